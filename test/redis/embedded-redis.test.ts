// The embedded Redis of `npm start` runs with the settings docs/operations.md gives for it: append-only
// with a second's fsync, nothing else saved, noeviction, small stream nodes, and AOF rewrites no sooner
// than 256 MB (a commit rewrites whole snapshots, so the file grows far faster than the data).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedRedis, type EmbeddedRedis } from "../../src/redis/embedded.js";

describe("the embedded Redis", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verdict-embedded-redis-"));
  let server: EmbeddedRedis;
  let redis: Redis;

  beforeAll(async () => {
    server = await startEmbeddedRedis(dataDir);
    redis = new Redis({ path: server.socketPath });
  });

  afterAll(async () => {
    redis.disconnect();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const setting = async (name: string): Promise<string | undefined> => (await redis.config("GET", name))[1];

  it("is started by this process", () => {
    expect(server.owned).toBe(true);
  });

  it("persists to its append-only file with a second's fsync and no snapshots", async () => {
    expect(await setting("appendonly")).toBe("yes");
    expect(await setting("appendfsync")).toBe("everysec");
    expect(await setting("save")).toBe("");
  });

  it("rewrites its append-only file no sooner than 256 MB", async () => {
    expect(await setting("auto-aof-rewrite-min-size")).toBe(String(256 * 1024 * 1024));
    expect(await setting("auto-aof-rewrite-percentage")).toBe("100");
  });

  it("never evicts and keeps stream nodes small", async () => {
    expect(await setting("maxmemory-policy")).toBe("noeviction");
    expect(await setting("stream-node-max-bytes")).toBe("1024");
  });
});
