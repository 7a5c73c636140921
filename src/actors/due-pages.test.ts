// A settle's pages of due outcomes: the page after one whose commit is not yet run is listed past that
// page, which Redis still lists as due, and never holds any of it.
import { describe, expect, it } from "vitest";
import { DuePages } from "./due-pages.js";

/** A due index of `members`, recording each listing's offset and limit. */
function index(members: string[]): { list: (offset: number, limit: number) => Promise<string[]>; listed: number[][] } {
  const listed: number[][] = [];
  return {
    listed,
    list: (offset, limit) => {
      listed.push([offset, limit]);
      return Promise.resolve(members.slice(offset, offset + limit));
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
    // The first page's commit is not sent yet: Redis still holds o0-o2 at the head, and the listing starts past them.
    expect(await pages.after(first)).toEqual(["o3", "o4", "o5"]);
    expect(redis.listed).toEqual([
      [0, 3],
      [3, 3],
    ]);
  });

  it("leaves out the page in hand when an outcome opened meanwhile moved it down the index", async () => {
    const pages = new DuePages(index(["new", ...due]).list, 3);
    expect(await pages.after(["o0", "o1", "o2"])).toEqual(["o3", "o4"]);
  });

  it("ends after a short page without listing", async () => {
    const redis = index(due);
    const pages = new DuePages(redis.list, 3);
    expect(await pages.after(["o6"])).toEqual([]);
    expect(redis.listed).toEqual([]);
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
