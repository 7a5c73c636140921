// A shard owner's reads of its stream through the consumer group, and the claim of entries delivered to
// other consumers. XREADGROUP delivers to whoever sends it, so a worker that lost the shard can still take
// entries with a read that reaches Redis late (held in TCP's retransmissions, or on a connection back from
// a partition before the one its renewals use). The claim, fenced by the lease (claim-orphans.lua), brings
// such entries back: at takeover, after a commit that refused to pass them (commit.lua), and now and then
// while the shard is idle. Reads stay plain XREADGROUPs: fencing each read in Lua would copy every entry
// through the script and back: a worker draining a backlog measured about 0.87x (docs/performance.md).
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import type { Scripts } from "../redis/scripts.js";
import { LEASE_LOST, type ActorScriptReplies } from "./actor-scripts.js";
import { CONSUMER_GROUP } from "./consumer-group.js";

/** An entry as XREADGROUP gives it: its id and [field, value], or null for a pending entry deleted since. */
export type RawEntry = [id: Buffer, fields: Buffer[] | null];

export interface ShardReaderDeps {
  /** The shard's own connection: its blocking reads never stall other commands. */
  reader: RedisClient;
  /** The worker's scripts (whichever others it has), on its shared connection. */
  scripts: Pick<Scripts<Pick<ActorScriptReplies, "claim-orphans">>, "run">;
  keys: Keys;
  shard: number;
  /** "<worker>:<token>", as the lease holds it. */
  leaseValue: string;
  /** The consumer name: entries read are pending under it until committed. */
  workerId: string;
  /** Longest wait for new entries before a read comes back empty (so the actor can tick and stop). */
  blockMs: number;
}

export class ShardReader {
  constructor(private readonly deps: ShardReaderDeps) {}

  /**
   * Takes over every entry pending under another consumer and removes consumers with nothing pending; how
   * many entries it took, or "lease-lost".
   */
  async claimOrphans(): Promise<number | "lease-lost"> {
    const { scripts, keys, shard, leaseValue, workerId } = this.deps;
    const claimed = await scripts.run(
      "claim-orphans",
      [keys.lease(shard), keys.stream(shard), keys.fence(shard)],
      [leaseValue, CONSUMER_GROUP, workerId],
    );
    return claimed === LEASE_LOST ? "lease-lost" : claimed;
  }

  /** Entries delivered to this consumer and not acknowledged (its own retries, the entries it claimed). */
  async pending(count: number): Promise<RawEntry[]> {
    const { reader, keys, shard, workerId } = this.deps;
    const reply = await reader.xreadgroupBuffer(
      "GROUP",
      CONSUMER_GROUP,
      workerId,
      "COUNT",
      count,
      "STREAMS",
      keys.stream(shard),
      "0",
    );
    return reply?.[0]?.[1] ?? [];
  }

  /** Entries never delivered to anyone, waiting up to `blockMs` (by default the configured one) for some to arrive. */
  async fresh(count: number, blockMs = this.deps.blockMs): Promise<RawEntry[]> {
    const { reader, keys, shard, workerId } = this.deps;
    const reply = await reader.xreadgroupBuffer(
      "GROUP",
      CONSUMER_GROUP,
      workerId,
      "COUNT",
      count,
      "BLOCK",
      blockMs,
      "STREAMS",
      keys.stream(shard),
      ">",
    );
    return reply?.[0]?.[1] ?? [];
  }
}
