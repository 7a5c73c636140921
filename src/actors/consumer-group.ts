// The shard stream's consumer group: created on first use, and taken over from previous owners when an
// actor starts (their pending entries become ours; consumers left with nothing pending are removed).
import type { RedisClient } from "../redis/client.js";

export const CONSUMER_GROUP = "verdict";

export async function ensureConsumerGroup(client: RedisClient, stream: string): Promise<void> {
  try {
    await client.xgroup("CREATE", stream, CONSUMER_GROUP, "0", "MKSTREAM");
  } catch (error) {
    if (!String(error).includes("BUSYGROUP")) throw error;
  }
}

/**
 * Claims every pending entry of the group for `consumer`, then deletes the other consumers that have none
 * (a consumer with pending entries is never deleted: they could not be claimed).
 */
export async function claimOrphans(client: RedisClient, stream: string, consumer: string): Promise<void> {
  let cursor = "0-0";
  do {
    const reply = (await client.xautoclaim(stream, CONSUMER_GROUP, consumer, 0, cursor, "COUNT", 1000, "JUSTID")) as [string, string[], string[]?];
    cursor = reply[0];
  } while (cursor !== "0-0");
  const consumers = (await client.xinfo("CONSUMERS", stream, CONSUMER_GROUP)) as unknown[][];
  for (const fields of consumers) {
    const info = new Map<string, unknown>();
    for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
    const name = String(info.get("name"));
    if (name !== consumer && Number(info.get("pending")) === 0) {
      await client.xgroup("DELCONSUMER", stream, CONSUMER_GROUP, name);
    }
  }
}
