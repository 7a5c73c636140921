// The laptop default: a redis-server owned by this process, append-only, listening on a unix socket under ./.verdict/.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";

export class RedisServerMissingError extends Error {
  override readonly name = "RedisServerMissingError";
  constructor() {
    super(
      "No Redis configured and no redis-server on PATH. Install one (Debian/Ubuntu: sudo apt-get install redis-server; " +
        "macOS: brew install redis) or point Verdict at a running Redis with REDIS_URL=redis://host:6379 " +
        "(or REDIS_CLUSTER_NODES=host:port,...).",
    );
  }
}

export interface EmbeddedRedis {
  socketPath: string;
  /** True when this process started the server (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

async function answersPing(socketPath: string): Promise<boolean> {
  const probe = new Redis({
    path: socketPath,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // No server yet is the expected answer here, not an error worth ioredis's "unhandled error" warning.
  probe.on("error", () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** The embedded Redis's stream-node-max-bytes (see docs/operations.md, Redis memory per open outcome). */
export const STREAM_NODE_MAX_BYTES = 1024;
/** The embedded Redis's auto-aof-rewrite-min-size (see docs/operations.md, the embedded Redis's AOF). */
const AOF_REWRITE_MIN_SIZE = "256mb";

/** Starts (or reuses, if one is already serving the data dir) the embedded redis-server. */
export async function startEmbeddedRedis(dataDir: string): Promise<EmbeddedRedis> {
  mkdirSync(dataDir, { recursive: true });
  const socketPath = join(dataDir, "redis.sock");
  if (existsSync(socketPath) && (await answersPing(socketPath))) {
    return { socketPath, owned: false, stop: () => Promise.resolve() };
  }
  if (spawnSync("redis-server", ["--version"]).error) throw new RedisServerMissingError();
  rmSync(socketPath, { force: true });
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      "0",
      "--unixsocket",
      socketPath,
      "--unixsocketperm",
      "700",
      "--dir",
      dataDir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--save",
      "",
      // Every commit rewrites its outcomes' whole snapshots, so the AOF grows many times faster than the data:
      // at Redis's 64 MB a small data set is rewritten (a fork and a pass over every key) every few tens of MB.
      "--auto-aof-rewrite-min-size",
      AOF_REWRITE_MIN_SIZE,
      "--maxmemory-policy",
      "noeviction",
      // Redis 7.0 gives every new stream node this many bytes at once, so each outcome's event log (a
      // stream of a few entries) held 4 KiB from its first event at the default 4096.
      "--stream-node-max-bytes",
      String(STREAM_NODE_MAX_BYTES),
      "--logfile",
      join(dataDir, "redis.log"),
    ],
    // Its own process group: Ctrl-C in a terminal signals the whole foreground group, and Verdict must
    // finish its shutdown (committing, releasing leases) before its Redis goes. Verdict stops it last.
    { stdio: "ignore", detached: true },
  );
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(socketPath))) {
    if (child.exitCode !== null)
      throw new Error(`redis-server exited with ${child.exitCode}; see ${join(dataDir, "redis.log")}`);
    if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${socketPath} within 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    socketPath,
    owned: true,
    stop: () =>
      new Promise<void>((resolveStop) => {
        if (child.exitCode !== null) return resolveStop();
        child.once("exit", () => resolveStop());
        child.kill("SIGTERM");
      }),
  };
}
