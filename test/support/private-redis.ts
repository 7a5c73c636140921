// A redis-server of a test's own, for what the shared servers must not suffer: being killed, restarted from
// its append-only file, or run with other settings.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../bench/free-port.js";
import { redisServerArgs } from "../../bench/loopback-redis.js";

export interface PrivateRedis {
  url: string;
  /** Kills the server (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory (an append-only file, if configured, is replayed). */
  restart(): Promise<void>;
  /** Kills it if still running and removes its directory. */
  cleanup(): Promise<void>;
}

async function answers(port: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (ok) return;
    if (attempt > 100) throw new Error("private redis-server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `extra` arguments come last, so they override the defaults (`--appendonly yes`, a memory policy...). */
export async function startPrivateRedis(extra: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "verdict-private-redis-"));
  const args = redisServerArgs(port, dir, extra);
  let server: ChildProcess;
  let exited: Promise<void>;
  const start = async (): Promise<void> => {
    server = spawn("redis-server", args, { stdio: "ignore" });
    const child = server;
    exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    await answers(port);
  };
  const kill = async (): Promise<void> => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    cleanup: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
