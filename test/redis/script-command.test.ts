// Verdict's own EVALSHA encoding: byte for byte what ioredis would write, and understood by real Redis,
// standalone and cluster, including binary and UTF-8 arguments and a script Redis has not cached.
import { createHash, randomBytes } from "node:crypto";
import fc from "fast-check";
import { Command } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { masters, type RedisClient } from "../../src/redis/client.js";
import { ScriptCommand, runScript, type LoadedScript } from "../../src/redis/script-command.js";
import { DEPLOYMENTS, connectTo, uniquePrefix } from "../support/redis.js";

const asBuffer = (writable: string | Buffer): Buffer =>
  typeof writable === "string" ? Buffer.from(writable, "utf8") : writable;

describe("ScriptCommand encoding", () => {
  it("writes the same bytes as ioredis's own encoder for any mix of strings, numbers and Buffers", () => {
    const arg = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.integer(),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(fc.constantFrom("evalsha", "eval"), fc.array(arg, { maxLength: 12 }), (name, args) => {
        const ours = asBuffer(new ScriptCommand(name, args).toWritable());
        const theirs = asBuffer(new Command(name, args).toWritable({}));
        expect(ours.equals(theirs)).toBe(true);
      }),
    );
  });
});

describe.each(DEPLOYMENTS)("runScript (%s)", (deployment) => {
  let redis: RedisClient;
  beforeAll(async () => {
    redis = await connectTo(deployment);
  });
  afterAll(() => redis.disconnect());

  const script = (lua: string): LoadedScript => ({ lua, sha: createHash("sha1").update(lua).digest("hex") });

  it("runs a script Redis has never seen (NOSCRIPT, then EVAL) and returns binary and UTF-8 arguments intact", async () => {
    // A comment no other run has: the script cannot be in the server's cache yet.
    const echo = script(`-- ${randomBytes(8).toString("hex")}\nreturn {KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4]}`);
    const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const key = `${uniquePrefix()}echo`;
    const reply = (await runScript(redis, echo, [key], ["héllo ✓ 𝄞", binary, Buffer.alloc(0), 42], null)) as Buffer[];
    expect(reply.map((b) => b.toString("utf8"))).toEqual([key, "héllo ✓ 𝄞", binary.toString("utf8"), "", "42"]);
    expect(reply[2]!.equals(binary)).toBe(true);
    // Cached now: the same call is answered by EVALSHA, as strings with replyEncoding utf8.
    expect(await runScript(redis, echo, [key], ["a", "b", "c", "d"], "utf8")).toEqual([key, "a", "b", "c", "d"]);
  });

  it("runs again after SCRIPT FLUSH", async () => {
    const count = script(`-- ${randomBytes(8).toString("hex")}\nreturn redis.call('INCR', KEYS[1])`);
    const key = `${uniquePrefix()}count`;
    expect(await runScript(redis, count, [key], [], "utf8")).toBe(1);
    await Promise.all(masters(redis).map((node) => node.script("FLUSH")));
    expect(await runScript(redis, count, [key], [], "utf8")).toBe(2);
  });
});
