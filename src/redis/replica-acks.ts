// Redis WAIT after a write that must survive a failover: replication is asynchronous, so a write a master
// acknowledged can be lost when a replica that did not have it yet is promoted. WAIT blocks until that many
// replicas acknowledged every earlier write *of this connection*, so it must run on the connection that
// wrote, to the node that owns the written key. A pipeline routes by its first key: EXISTS on the key
// (a cheap read) takes the WAIT to the right node and connection, on one Redis or a cluster alike.
import type { RedisClient } from "./client.js";

/**
 * True once `replicas` replicas hold everything this client wrote to `key`'s node, false when fewer did
 * within `timeoutMs` or the WAIT failed (the write's durability is then unknown, never assumed).
 */
export async function replicated(
  client: RedisClient,
  key: string,
  replicas: number,
  timeoutMs: number,
): Promise<boolean> {
  if (replicas <= 0) return true;
  try {
    // WAIT 0 would block forever: a deadline already spent still waits a millisecond, then answers.
    const results = await client
      .pipeline()
      .exists(key)
      .wait(replicas, Math.max(1, Math.round(timeoutMs)))
      .exec();
    const [error, acknowledged] = results?.[1] ?? [new Error("no reply"), 0];
    return error === null && typeof acknowledged === "number" && acknowledged >= replicas;
  } catch {
    return false;
  }
}
