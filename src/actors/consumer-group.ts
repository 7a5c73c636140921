// The shard stream's consumer group, created on first use. An actor taking a shard over claims the earlier
// owners' pending entries through it (claim-orphans.lua, called by ShardReader).
import type { RedisClient } from "../redis/client.js";

export const CONSUMER_GROUP = "verdict";

export async function ensureConsumerGroup(client: RedisClient, stream: string): Promise<void> {
  try {
    await client.xgroup("CREATE", stream, CONSUMER_GROUP, "0", "MKSTREAM");
  } catch (error) {
    if (!String(error).includes("BUSYGROUP")) throw error;
  }
}
