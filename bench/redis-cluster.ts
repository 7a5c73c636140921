// A throwaway 3-master Redis Cluster on loopback for the benchmarks (no replicas, no persistence,
// noeviction as Verdict requires). Cluster bus ports are the node's port + 100: the default + 10000 may be
// out of range for a free port.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Cluster } from "ioredis";
import { freePort, redisVersion, sleep, stopChild, track } from "./harness.js";

export interface BenchCluster {
  nodes: { host: string; port: number }[];
  /** For REDIS_CLUSTER_NODES. */
  nodesSetting: string;
  children: ChildProcess[];
  admin: Cluster;
  stop(): Promise<void>;
}

const HOST = "127.0.0.1";
const MASTERS = 3;

function cli(port: number, ...args: string[]): string {
  return spawnSync("redis-cli", ["-h", HOST, "-p", String(port), ...args], { encoding: "utf8" }).stdout ?? "";
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (check()) return;
    await sleep(50);
  }
  throw new Error(`${what} not reached within 20 s`);
}

/** A port whose bus port (port + 100) is free too, never 6379. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port === 6379 || port > 65_000 || taken.has(port) || taken.has(port + 100)) continue;
    taken.add(port);
    taken.add(port + 100);
    return port;
  }
}

export async function startRedisCluster(dir: string): Promise<BenchCluster> {
  redisVersion();
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < MASTERS; i++) ports.push(await clusterPort(taken));
  const children = ports.map((port) =>
    track(
      spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--bind",
          HOST,
          "--dir",
          dir,
          "--save",
          "",
          "--appendonly",
          "no",
          "--maxmemory-policy",
          "noeviction",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          `nodes-${port}.conf`,
          "--cluster-port",
          String(port + 100),
          "--dbfilename",
          `cluster-${port}.rdb`,
        ],
        { stdio: "ignore" },
      ),
    ),
  );
  for (const port of ports) await waitFor(() => cli(port, "PING").trim() === "PONG", `redis on ${port}`);
  const create = spawnSync(
    "redis-cli",
    ["--cluster", "create", ...ports.map((p) => `${HOST}:${p}`), "--cluster-replicas", "0", "--cluster-yes"],
    { encoding: "utf8" },
  );
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await waitFor(() => ports.every((p) => cli(p, "CLUSTER", "INFO").includes("cluster_state:ok")), "cluster_state:ok");
  const nodes = ports.map((port) => ({ host: HOST, port }));
  const admin = new Cluster(nodes);
  return {
    nodes,
    nodesSetting: nodes.map((n) => `${n.host}:${n.port}`).join(","),
    children,
    admin,
    stop: async () => {
      admin.disconnect();
      await Promise.all(children.map((child) => stopChild(child)));
    },
  };
}
