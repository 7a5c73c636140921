// A shard owner's reads of its stream. Every call that can make entries someone's (a read through the
// consumer group, the claim of the previous owners' pending entries) checks the lease in the same Redis call
// (read-entries.lua, claim-orphans.lua): a worker that lost the shard, whose call reaches Redis late, must
// not take entries into a pending list the new owner never reads. Waiting for new entries is a plain XREAD
// on the dedicated connection, which delivers nothing to anybody.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Scripts } from "../redis/scripts.js";
import { CONSUMER_GROUP } from "./consumer-group.js";

/** An entry as XREADGROUP gives it: its id and [field, value], or null for a pending entry deleted since. */
export type RawEntry = [id: Buffer, fields: Buffer[] | null];

export type ReaderScript = "read-entries" | "claim-orphans";

export interface ShardReaderDeps {
  /** The shard's own connection: its reads and blocking waits, in order, never stalling other commands. */
  reader: RedisClient;
  /** The worker's shared connection, for the one-off claim at takeover. */
  client: RedisClient;
  /** The worker's scripts (whichever others it has), called on either connection. */
  scripts: Pick<Scripts<ReaderScript>, "runBufferOn">;
  keys: Keys;
  shard: number;
  /** "<worker>:<token>", as the lease holds it. */
  leaseValue: string;
  /** The consumer name: entries read are pending under it until committed. */
  workerId: string;
  /** Longest wait for new entries before a read comes back empty (so the actor can tick and stop). */
  blockMs: number;
}

/** What one fenced read gives: entries, the lease gone, or (nothing new for ">") the stream's newest entry id. */
type GroupRead = RawEntry[] | "lease-lost" | { newest: string };

function nothingNew(read: GroupRead): read is { newest: string } {
  return typeof read === "object" && "newest" in read;
}

export class ShardReader {
  constructor(private readonly deps: ShardReaderDeps) {}

  /** Takes over every entry delivered to an earlier owner and never acknowledged; false when the lease is lost. */
  async claimOrphans(): Promise<boolean> {
    const { client, scripts, keys, shard, leaseValue, workerId } = this.deps;
    const claimed = await scripts.runBufferOn(client, "claim-orphans", [keys.lease(shard), keys.stream(shard), keys.fence(shard)], [leaseValue, CONSUMER_GROUP, workerId]);
    return claimed !== -1;
  }

  /** Entries delivered to this consumer and not acknowledged (its own retries, the orphans it claimed). */
  async pending(count: number): Promise<RawEntry[] | "lease-lost"> {
    const reply = await this.readGroup(count, "0");
    return nothingNew(reply) ? [] : reply;
  }

  /** Entries never delivered to anyone; when there are none, waits up to blockMs for some to arrive. */
  async fresh(count: number): Promise<RawEntry[] | "lease-lost"> {
    const first = await this.readGroup(count, ">");
    if (!nothingNew(first)) return first;
    const { reader, keys, shard, blockMs } = this.deps;
    const arrived = await reader.xreadBuffer("COUNT", 1, "BLOCK", blockMs, "STREAMS", keys.stream(shard), first.newest);
    if (!arrived) return [];
    const second = await this.readGroup(count, ">");
    return nothingNew(second) ? [] : second;
  }

  private async readGroup(count: number, from: "0" | ">"): Promise<GroupRead> {
    const { reader, scripts, keys, shard, leaseValue, workerId } = this.deps;
    const reply = (await scripts.runBufferOn(
      reader,
      "read-entries",
      [keys.lease(shard), keys.stream(shard), keys.fence(shard)],
      [leaseValue, CONSUMER_GROUP, workerId, count, from],
    )) as RawEntry[] | Buffer | number;
    if (reply === -1) return "lease-lost";
    if (Buffer.isBuffer(reply)) return { newest: reply.toString() };
    return reply as RawEntry[];
  }
}
