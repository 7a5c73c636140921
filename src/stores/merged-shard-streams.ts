// Pages through one stream per shard as if it were one, in entry order (ties broken by shard), for the
// account-wide lists whose entries are written per shard (dead letters, charges).
import type { RedisClient } from "../redis/client.js";
import { LAST_ENTRY_ID, compareEntryIds, isEntryId } from "../streams/entry-id.js";
import { ShardMerge } from "./shard-merge.js";

/** Entries examined per step by a list whose filter may skip many. */
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

/** The position a text names, or undefined unless it is one this service could have formatted. */
export function parsePosition(text: string): StreamPosition | undefined {
  const match = /^(0|[1-9]\d{0,5})-(.*)$/s.exec(text);
  if (!match?.[1] || match[2] === undefined || !isEntryId(match[2])) return undefined;
  return { shard: Number(match[1]), entryId: match[2] };
}

/** A list cursor's position: one this service formatted, in one of `shards` shards, with room after it. */
export function parseCursorPosition(text: string | undefined, shards: number): StreamPosition | undefined {
  const position = text === undefined ? undefined : parsePosition(text);
  return position && position.shard < shards && position.entryId !== LAST_ENTRY_ID ? position : undefined;
}

function compare(a: StreamPosition, b: StreamPosition): number {
  return compareEntryIds(a.entryId, b.entryId) || a.shard - b.shard;
}

/** One more sorted source of entries beside the shards' streams (the archive), in the same order. */
export type ExtraEntries = (after: StreamPosition | undefined, count: number) => Promise<ShardEntry[]>;

/**
 * Collects `limit` entries that `decode` keeps, walking the merged streams (shard-merge.ts), and looks on
 * for one more: only an entry kept after the page makes a next page, so the last page's cursor is null
 * even when a filter skips every entry after it. The cursor is the page's last entry. `extra` entries
 * (archived ones, which may still be in their stream too) merge in; an entry read from both is taken once.
 */
export async function filteredPage<T>(
  client: RedisClient,
  shards: number,
  keyOf: (shard: number) => string,
  after: StreamPosition | undefined,
  limit: number,
  decode: (entry: ShardEntry) => T | undefined,
  range: { from?: number; to?: number } = {},
  /** Entries decoded per step; larger when `decode` filters. */
  pageSize = limit + 1,
  extra?: ExtraEntries,
): Promise<{ items: T[]; next: StreamPosition | null }> {
  const end = range.to === undefined ? "+" : String(range.to);
  // Where each shard starts: entries at the cursor's id in later shards still follow it in the merged order.
  const start = (shard: number): string =>
    after
      ? shard > after.shard
        ? after.entryId
        : `(${after.entryId}`
      : range.from === undefined
        ? "-"
        : String(range.from);
  const entries = new ShardMerge<ShardEntry>(
    extra ? shards + 1 : shards,
    {
      read: async (shard, last, count) => {
        if (shard === shards && extra) return extra(last ?? after, count);
        const reply = (await client.xrangeBuffer(
          keyOf(shard),
          last === undefined ? start(shard) : `(${last.entryId}`,
          end,
          "COUNT",
          count,
        )) as [Buffer, Buffer[]][];
        return reply.map(([id, fields]): ShardEntry => ({
          shard,
          entryId: id.toString(),
          payload: fields[1] ?? Buffer.alloc(0),
        }));
      },
      compare,
      // The extra source is read after the streams in each round: see outcome-archiver.ts on why that and a
      // grace period before deleting from Redis leave no gap.
      readLast: extra ? shards : undefined,
    },
    Math.ceil((2 * pageSize) / shards),
  );
  const items: T[] = [];
  let previous: ShardEntry | undefined;
  let pageEnd: ShardEntry | undefined;
  for (;;) {
    const taken = await entries.take(pageSize);
    const page = taken.filter((entry) => !(previous && compare(previous, entry) === 0) && ((previous = entry), true));
    for (const entry of page) {
      const item = decode(entry);
      if (item === undefined) continue;
      if (pageEnd !== undefined) return { items, next: pageEnd };
      items.push(item);
      if (items.length === limit) pageEnd = entry;
    }
    if (taken.length < pageSize) return { items, next: null };
  }
}
