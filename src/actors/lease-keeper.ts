// A worker's shard leases behind a narrow interface: acquire (minting a fencing token, and only counted
// once the replicas hold it), renew and release, over the lease scripts in lua/.
import type { Keys } from "../redis/keys.js";
import { replicated } from "../redis/replica-acks.js";
import type { Scripts } from "../redis/scripts.js";
import type { RedisClient } from "../redis/client.js";
import type { Logger } from "../telemetry/logger.js";
import { LEASE_REPLY, type ActorScriptReplies } from "./actor-scripts.js";

export interface LeaseKeeperDeps {
  client: RedisClient;
  keys: Keys;
  scripts: Pick<Scripts<Pick<ActorScriptReplies, "lease-acquire" | "lease-renew" | "lease-release">>, "run">;
  /** The holder named in every lease value. */
  workerId: string;
  leaseTtlMs: number;
  /** Replicas that must hold a new lease before it counts (WAIT); 0 trusts the master. */
  replicaAcks: number;
  replicaAckTimeoutMs: number;
  logger: Logger;
}

export class LeaseKeeper {
  constructor(private readonly deps: LeaseKeeperDeps) {}

  /** The new lease's value "<worker>:<token>", or undefined when another worker holds it or it could not be made safe. */
  async acquire(shard: number): Promise<string | undefined> {
    const { client, keys, scripts, workerId, leaseTtlMs, replicaAcks, replicaAckTimeoutMs } = this.deps;
    const value = await scripts.run("lease-acquire", this.keysOf(shard), [workerId, leaseTtlMs]);
    if (value === null) return undefined;
    // A lease (and its fencing token) a failover could roll back is not one to write under: a promoted
    // replica without it would let another worker mint the same token. Give it back and try next beat.
    if (!(await replicated(client, keys.lease(shard), replicaAcks, replicaAckTimeoutMs))) {
      this.deps.logger.warn(
        { shard, replicas: replicaAcks },
        "lease not acknowledged by enough replicas; giving it back",
      );
      await this.release(shard, value).catch(() => {});
      return undefined;
    }
    return value;
  }

  /** Extends the lease; false when another worker took the shard. */
  async renew(shard: number, value: string): Promise<boolean> {
    return (
      (await this.deps.scripts.run("lease-renew", this.keysOf(shard), [value, this.deps.leaseTtlMs])) ===
      LEASE_REPLY.HELD
    );
  }

  /** Gives the lease up if it is still this one. */
  async release(shard: number, value: string): Promise<void> {
    await this.deps.scripts.run("lease-release", this.keysOf(shard), [value]);
  }

  private keysOf(shard: number): string[] {
    return [this.deps.keys.lease(shard), this.deps.keys.fence(shard)];
  }
}
