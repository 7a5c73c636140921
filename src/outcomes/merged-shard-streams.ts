// Pages through one stream per shard as if it were one, in entry order (ties broken by shard), for the
// account-wide lists whose entries are written per shard (dead letters, charges).
import type { RedisClient } from "../redis/client.js";
import { compareEntryIds } from "../streams/entry-id.js";

/** Entries read per step by a list whose filter may skip many. */
export const FILTERED_PAGE = 500;

export interface ShardEntry {
  shard: number;
  entryId: string;
  payload: Buffer;
}

export interface StreamPosition {
  shard: number;
  entryId: string;
}

/** A position as clients see it: "<shard>-<ms>-<seq>". */
export function formatPosition(position: StreamPosition): string {
  return `${position.shard}-${position.entryId}`;
}

export function parsePosition(text: string): StreamPosition | undefined {
  const match = /^(\d+)-(\d+-\d+)$/.exec(text);
  if (!match?.[1] || !match[2]) return undefined;
  return { shard: Number(match[1]), entryId: match[2] };
}

function compare(a: StreamPosition, b: StreamPosition): number {
  return compareEntryIds(a.entryId, b.entryId) || a.shard - b.shard;
}

/** Up to `count` entries after `after` across every shard's stream, in merged order. */
export async function mergedPage(
  client: RedisClient,
  shards: number,
  keyOf: (shard: number) => string,
  after: StreamPosition | undefined,
  count: number,
  range: { from?: number; to?: number } = {},
): Promise<ShardEntry[]> {
  const end = range.to === undefined ? "+" : String(range.to);
  const perShard = await Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      // Entries at the cursor's id in later shards still follow it in the merged order.
      const from = after ? (shard > after.shard ? after.entryId : `(${after.entryId}`) : range.from === undefined ? "-" : String(range.from);
      const reply = (await client.xrangeBuffer(keyOf(shard), from, end, "COUNT", count)) as [Buffer, Buffer[]][];
      return reply.map(([id, fields]): ShardEntry => ({ shard, entryId: id.toString(), payload: fields[1] ?? Buffer.alloc(0) }));
    }),
  );
  return perShard
    .flat()
    .filter((entry) => !after || compare(entry, after) > 0)
    .sort(compare)
    .slice(0, count);
}

/**
 * Collects `limit` entries that pass `keep`, paging the merged streams; the cursor is the last entry
 * examined, so a page of filtered-out entries is never read twice.
 */
export async function filteredPage<T>(
  client: RedisClient,
  shards: number,
  keyOf: (shard: number) => string,
  after: StreamPosition | undefined,
  limit: number,
  decode: (entry: ShardEntry) => T | undefined,
  range: { from?: number; to?: number } = {},
  /** Entries read per step; larger when `decode` filters, so a sparse match does not take many round trips. */
  pageSize = limit + 1,
): Promise<{ items: T[]; next: StreamPosition | null }> {
  const items: T[] = [];
  let position = after;
  for (;;) {
    const page = await mergedPage(client, shards, keyOf, position, pageSize, range);
    for (const [i, entry] of page.entries()) {
      position = entry;
      const item = decode(entry);
      if (item === undefined) continue;
      items.push(item);
      if (items.length === limit) {
        const more = i < page.length - 1 || (await mergedPage(client, shards, keyOf, position, 1, range)).length > 0;
        return { items, next: more ? entry : null };
      }
    }
    if (page.length < pageSize) return { items, next: null };
  }
}
