// The worker's turn cork: commands issued in one event-loop turn leave each node's socket in one write,
// the sockets reopen after the turn, and every command still gets its reply.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { masters, type RedisClient } from "../../src/redis/client.js";
import { TurnCork } from "../../src/redis/turn-cork.js";
import { DEPLOYMENTS, connectTo, uniquePrefix } from "../support/redis.js";

describe.each(DEPLOYMENTS)("TurnCork (%s)", (deployment) => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await connectTo(deployment);
  });
  afterAll(() => redis.disconnect());

  it("sends a turn's commands in one write per node and answers each", async () => {
    const prefix = uniquePrefix();
    // Every node's connection ready first: a cluster client may still be connecting to a master when it
    // says it is ready, and a command for that master then waits in its offline queue and is written on its
    // own once connected (CI once saw 18 writes for one node), which is not what this test is about.
    await Promise.all(masters(redis).map((node) => node.ping()));
    const sockets = masters(redis).map((node) => node.stream);
    const writes = sockets.map(() => 0);
    const originals = sockets.map((socket, i) => {
      const write = socket._writev?.bind(socket);
      if (!write) throw new Error("expected a socket that writes chunks together (_writev)");
      const single = socket._write.bind(socket);
      socket._writev = (chunks, callback) => {
        writes[i]!++;
        write(chunks, callback);
      };
      socket._write = (chunk, encoding, callback) => {
        writes[i]!++;
        single(chunk, encoding, callback);
      };
      return { write, single };
    });
    try {
      const cork = new TurnCork(redis);
      const sets: Promise<unknown>[] = [];
      for (let i = 0; i < 50; i++) {
        cork.hold();
        // Keys spread over the cluster's slots, so every node gets some of the commands.
        sets.push(redis.set(`${prefix}k${i}`, String(i)));
      }
      expect(sockets.every((socket) => socket.writableCorked > 0)).toBe(true);
      await Promise.all(sets);
      expect(writes).toEqual(sockets.map(() => 1));
      expect(sockets.every((socket) => socket.writableCorked === 0)).toBe(true);
      const values = await Promise.all(Array.from({ length: 50 }, (_, i) => redis.get(`${prefix}k${i}`)));
      expect(values).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    } finally {
      sockets.forEach((socket, i) => {
        socket._writev = originals[i]!.write;
        socket._write = originals[i]!.single;
      });
    }
  });
});
