// Refuses to run a deployment with a shard count other than the one its data was written with. Under another
// count an outcome hashes to another shard, so its snapshot, its idempotency claims and the events still
// queued in its old shard's stream would no longer be found: accepted events lost, as far as anyone can tell.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";

export class ShardCountMismatchError extends Error {
  override readonly name = "ShardCountMismatchError";
}

/**
 * Records `shards` as the deployment's shard count when none is recorded yet, then checks that it is the
 * one recorded. Data from before the record existed is checked as far as one key allows: a stream for
 * shard number `shards` means it was written with more shards.
 */
export async function claimShardCount(client: RedisClient, keys: Keys, shards: number): Promise<void> {
  const key = keys.shardCount();
  if ((await client.get(key)) === null) {
    if ((await client.exists(keys.stream(shards))) === 1) {
      throw new ShardCountMismatchError(
        `this Redis holds a Verdict deployment (key prefix ${JSON.stringify(keys.prefix)}) written with more than ${shards} shards ` +
          `(a stream for shard ${shards} exists), but VERDICT_SHARDS is ${shards}; the shard count is fixed for the life of a ` +
          `deployment: set VERDICT_SHARDS to the count it was created with`,
      );
    }
    await client.set(key, String(shards), "NX");
  }
  const recorded = Number(await client.get(key));
  if (recorded !== shards) {
    throw new ShardCountMismatchError(
      `this Redis holds a Verdict deployment (key prefix ${JSON.stringify(keys.prefix)}) of ${recorded} shards, but VERDICT_SHARDS ` +
        `is ${shards}; the shard count is fixed for the life of a deployment: set VERDICT_SHARDS=${recorded}, or use another ` +
        `VERDICT_KEY_PREFIX for a new deployment`,
    );
  }
}
