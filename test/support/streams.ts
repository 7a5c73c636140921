// Reads a shard stream the way the worker does, for tests that check what the ingress wrote.
import { expect } from "vitest";
import type { RedisClient } from "../../src/redis/client.js";
import { unpackEnvelope, type EventEnvelope } from "../../src/streams/event-envelope.js";
import { ENTRY_FIELD, entryEvents } from "../../src/streams/stream-entry.js";

/** Every event in the stream, in order, with the id of the entry that holds it. */
export async function streamEvents(
  redis: RedisClient,
  stream: string,
): Promise<{ id: string; envelope: EventEnvelope }[]> {
  const entries = await redis.xrangeBuffer(stream, "-", "+");
  return entries.flatMap(([id, fields]) => {
    expect(fields.map(String)[0]).toBe(ENTRY_FIELD);
    const events = entryEvents(fields[1]!);
    expect(events).toBeDefined();
    return events!.map((bytes) => ({ id: id.toString(), envelope: unpackEnvelope(bytes) }));
  });
}
