// Refuses a Redis that may evict keys: an evicted stream entry is a lost event.
import { masters, type RedisClient } from "./client.js";

export class UnsafeRedisError extends Error {
  override readonly name = "UnsafeRedisError";
}

export async function assertNoEviction(client: RedisClient): Promise<void> {
  for (const node of masters(client)) {
    const reply = await node.config("GET", "maxmemory-policy");
    const policy = reply[1];
    if (policy !== "noeviction") {
      throw new UnsafeRedisError(
        `Redis at ${node.options.host ?? node.options.path}:${node.options.port} has maxmemory-policy ${policy}; ` +
          `Verdict needs noeviction, or evicted stream entries would lose accepted events ` +
          `(run: CONFIG SET maxmemory-policy noeviction)`,
      );
    }
  }
}
