import { describe, expect, it } from "vitest";
import { ApiError } from "../errors/api-error.js";
import { errorData, errorFromData } from "./error-data.js";

/** As it arrives on the other side of a thread: structured clone keeps data, not classes. */
const crossed = <T>(value: T): T => structuredClone(value);

describe("errors as plain data", () => {
  it("keeps an ApiError's code, status, Retry-After, quota and details", () => {
    const original = new ApiError("QUOTA_EXCEEDED", "too many", [{ path: "q", message: "m" }], {
      status: 429,
      retryAfterSeconds: 1,
      quota: { name: "insight_reads", limit: 2 },
    });
    const back = errorFromData(crossed(errorData(original)));
    expect(back).toBeInstanceOf(ApiError);
    expect(back).toMatchObject({
      code: "QUOTA_EXCEEDED",
      message: "too many",
      status: 429,
      retryAfterSeconds: 1,
      quota: { name: "insight_reads", limit: 2 },
      details: [{ path: "q", message: "m" }],
    });
  });

  it("keeps a 503's Retry-After", () => {
    const back = errorFromData(
      crossed(errorData(new ApiError("SERVICE_UNAVAILABLE", "later", undefined, { retryAfterSeconds: 1 }))),
    );
    expect(back).toMatchObject({ code: "SERVICE_UNAVAILABLE", status: 503, retryAfterSeconds: 1 });
  });

  it("turns anything else into a plain Error with its message and stack, never an answer of the spec's shape", () => {
    const original = new TypeError("boom");
    const back = errorFromData(crossed(errorData(original)));
    expect(back).not.toBeInstanceOf(ApiError);
    expect(back.message).toBe("boom");
    expect(back.stack).toBe(original.stack);
    expect(errorFromData(crossed(errorData("text"))).message).toBe("text");
  });
});
