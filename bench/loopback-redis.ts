// Throwaway redis-server processes on loopback, for the test setup, the tests that need a server of their
// own and the benchmarks: no persistence and noeviction (as Verdict requires) unless told otherwise.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { freePort } from "./free-port.js";

export const LOOPBACK = "127.0.0.1";

export interface RedisServer {
  port: number;
  child: ChildProcess;
}

/** Every throwaway server's arguments; `extra` comes last, so it overrides them. */
export function redisServerArgs(port: number, dir: string, extra: readonly string[] = []): string[] {
  return [
    ...["--port", String(port), "--bind", LOOPBACK, "--dir", dir, "--dbfilename", `${port}.rdb`],
    ...["--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
    ...extra,
  ];
}

/** A cluster node's arguments; the bus port is passed rather than derived, as port + 10000 may not exist. */
export function clusterNodeArgs(port: number, busPort: number, nodeTimeoutMs: number): string[] {
  return [
    ...["--cluster-enabled", "yes", "--cluster-config-file", `nodes-${port}.conf`],
    ...["--cluster-port", String(busPort), "--cluster-node-timeout", String(nodeTimeoutMs)],
  ];
}

export function redisCli(port: number, ...args: string[]): string {
  return spawnSync("redis-cli", ["-h", LOOPBACK, "-p", String(port), ...args], { encoding: "utf8" }).stdout ?? "";
}

export async function waitUntil(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function requireRedisServer(): void {
  if (spawnSync("redis-server", ["--version"]).error) {
    throw new Error("redis-server is not on PATH: this needs a real Redis (apt-get install redis-server)");
  }
}

/**
 * Starts a server on a free port and waits for its PING. A port free when asked for can be taken before
 * redis-server binds it (suites start servers in parallel), and a server that cannot bind exits: then it
 * starts again on another.
 */
export async function startRedisServer(
  dir: string,
  extra: (port: number) => Promise<string[]> | string[] = () => [],
): Promise<RedisServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn("redis-server", redisServerArgs(port, dir, await extra(port)), { stdio: "ignore" });
    const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
    await waitUntil(() => exited() || redisCli(port, "PING").trim() === "PONG", `redis on ${port}`);
    if (!exited()) return { port, child };
    if (attempt === 5) throw new Error(`redis-server could not start on a free port ${attempt} times`);
  }
}

/** A cluster node: a server whose bus port is a free port of its own. */
export function startClusterNode(dir: string, nodeTimeoutMs: number): Promise<RedisServer> {
  return startRedisServer(dir, async (port) => clusterNodeArgs(port, await freePort(), nodeTimeoutMs));
}

/** Joins the nodes into one cluster (each master with `replicas` replicas) and waits until it serves. */
export async function createCluster(ports: readonly number[], replicas: 0 | 1): Promise<void> {
  const create = spawnSync(
    "redis-cli",
    [
      ...["--cluster", "create", ...ports.map((p) => `${LOOPBACK}:${p}`)],
      ...["--cluster-replicas", String(replicas), "--cluster-yes"],
    ],
    { encoding: "utf8" },
  );
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await waitUntil(
    () => ports.every((p) => redisCli(p, "CLUSTER", "INFO").includes("cluster_state:ok")),
    "cluster_state:ok",
  );
}

/** Kills the servers (a paused one is resumed first, or it could not die) and waits for them to exit. */
export async function stopRedisServers(children: Iterable<ChildProcess>): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGCONT");
          child.kill("SIGKILL");
        }),
    ),
  );
}
