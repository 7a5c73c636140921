// A settle's pages of due outcomes: the page after one whose commit is not yet run leaves that page out,
// though Redis still lists it as due.
import { describe, expect, it } from "vitest";
import { DuePages } from "./due-pages.js";

/** A due index whose first `removed` members are gone (their commit ran). */
function index(members: string[]): { list: (limit: number) => Promise<string[]>; limits: number[] } {
  const limits: number[] = [];
  return {
    limits,
    list: (limit) => {
      limits.push(limit);
      return Promise.resolve(members.slice(0, limit));
    },
  };
}

describe("DuePages", () => {
  const due = Array.from({ length: 7 }, (_, i) => `o${i}`);

  it("lists the next page past the one still due in Redis, whose commit has not run", async () => {
    const redis = index(due);
    const pages = new DuePages(redis.list, 3);
    const first = await pages.first();
    expect(first).toEqual(["o0", "o1", "o2"]);
    // The first page's commit is not sent yet: Redis lists o0-o2 again, and they are left out.
    expect(await pages.after(first)).toEqual(["o3", "o4", "o5"]);
    expect(redis.limits).toEqual([3, 6]);
  });

  it("leaves out only the page in hand when Redis has run the commits before it", async () => {
    const pages = new DuePages(index(due.slice(3)).list, 3);
    expect(await pages.after(["o0", "o1", "o2"])).toEqual(["o3", "o4", "o5"]);
  });

  it("ends after a short page without listing", async () => {
    const redis = index(due);
    const pages = new DuePages(redis.list, 3);
    expect(await pages.after(["o6"])).toEqual([]);
    expect(redis.limits).toEqual([]);
  });

  it("never leaves a failed listing unhandled when the settle stops before awaiting it", async () => {
    const pages = new DuePages(() => Promise.reject(new Error("connection lost")), 1);
    const unhandled: unknown[] = [];
    const track = (reason: unknown): void => void unhandled.push(reason);
    process.on("unhandledRejection", track);
    void pages.after(["o0"]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off("unhandledRejection", track);
    expect(unhandled).toEqual([]);
  });
});
