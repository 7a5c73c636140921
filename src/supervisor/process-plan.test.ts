// Default process counts per core count, and overrides.
import { describe, expect, it } from "vitest";
import { processPlan } from "./process-plan.js";

const none = { ingress: undefined, worker: undefined };

describe("processPlan", () => {
  it.each([
    [1, { ingress: 1, worker: 1 }],
    [2, { ingress: 1, worker: 1 }],
    [4, { ingress: 3, worker: 1 }],
    [16, { ingress: 15, worker: 1 }],
  ])("on %i cores runs %o", (cores, plan) => {
    expect(processPlan(cores, none)).toEqual(plan);
  });

  it("sizes the workers to the cores the ingress leaves, and takes either count as given", () => {
    expect(processPlan(8, { ingress: 4, worker: undefined })).toEqual({ ingress: 4, worker: 4 });
    expect(processPlan(8, { ingress: undefined, worker: 3 })).toEqual({ ingress: 7, worker: 3 });
    expect(processPlan(2, { ingress: 2, worker: 2 })).toEqual({ ingress: 2, worker: 2 });
  });
});
