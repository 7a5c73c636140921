// The lazy k-way merge behind the account-wide lists: any split of a sorted sequence over shards comes
// back whole and in order, in any page sizes, and a walk reads each item about once, not once per page.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ShardMerge, type ShardSource } from "./shard-merge.js";

/** Sorted arrays as per-shard sources (what ZRANGEBYLEX / XRANGE give), counting the items handed out. */
function arraySource(perShard: number[][]): ShardSource<number> & { itemsRead: number; reads: number } {
  const source = {
    itemsRead: 0,
    reads: 0,
    read: (shard: number, after: number | undefined, count: number): Promise<number[]> => {
      const items = perShard[shard]!.filter((n) => after === undefined || n > after).slice(0, count);
      source.itemsRead += items.length;
      source.reads++;
      return Promise.resolve(items);
    },
    compare: (a: number, b: number) => a - b,
  };
  return source;
}

describe("ShardMerge", () => {
  it("returns every shard's items in merged order, whatever the page sizes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { maxLength: 300 }),
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 50 }),
        async (values, shards, pageSizes, firstChunk) => {
          const perShard = Array.from({ length: shards }, (_, shard) =>
            values.filter((v) => v % shards === shard).sort((a, b) => a - b),
          );
          const merge = new ShardMerge(shards, arraySource(perShard), firstChunk);
          const seen: number[] = [];
          for (let page = 0; ; page++) {
            const size = pageSizes[page % pageSizes.length]!;
            const taken = await merge.take(size);
            seen.push(...taken);
            if (taken.length < size) break;
          }
          expect(seen).toEqual([...values].sort((a, b) => a - b));
          expect(await merge.take(1)).toEqual([]);
        },
      ),
    );
  });

  it("reads each item once on a walk, not once per page, in chunks that grow", async () => {
    const shards = 64;
    const perShard = Array.from({ length: shards }, (_, shard) =>
      Array.from({ length: 1_000 }, (_, i) => i * shards + shard),
    );
    const source = arraySource(perShard);
    const merge = new ShardMerge(shards, source, Math.ceil((2 * 500) / shards));
    let walked = 0;
    for (;;) {
      const page = await merge.take(500);
      walked += page.length;
      if (page.length < 500) break;
    }
    expect(walked).toBe(64_000);
    expect(source.itemsRead).toBe(64_000);
    // 16, 32, ... 512 items: six reads of each shard's 1,000, where pages of 500 read every shard 128 times.
    expect(source.reads).toBeLessThanOrEqual(64 * 7);
  });
});
