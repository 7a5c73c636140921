// A throwaway 3-master Redis Cluster on loopback for the benchmarks (no replicas, no persistence,
// noeviction as Verdict requires).
import type { ChildProcess } from "node:child_process";
import { Cluster } from "ioredis";
import { redisVersion, stopChild, track } from "./harness.js";
import { LOOPBACK, createCluster, startClusterNode } from "./loopback-redis.js";

export interface BenchCluster {
  nodes: { host: string; port: number }[];
  /** For REDIS_CLUSTER_NODES. */
  nodesSetting: string;
  children: ChildProcess[];
  admin: Cluster;
  stop(): Promise<void>;
}

const MASTERS = 3;
/** Redis's default: a benchmark never fails a node over. */
const NODE_TIMEOUT_MS = 15_000;

export async function startRedisCluster(dir: string): Promise<BenchCluster> {
  redisVersion();
  const servers = [];
  for (let i = 0; i < MASTERS; i++) servers.push(await startClusterNode(dir, NODE_TIMEOUT_MS));
  const children = servers.map((server) => track(server.child));
  await createCluster(
    servers.map((server) => server.port),
    0,
  );
  const nodes = servers.map(({ port }) => ({ host: LOOPBACK, port }));
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
