// Vitest global setup: starts real redis-server processes on free ports (one standalone, one 3-master
// cluster) for the whole run, hands their addresses to the suites, and stops them after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  LOOPBACK,
  createCluster,
  requireRedisServer,
  startClusterNode,
  startRedisServer,
  stopRedisServers,
} from "../../bench/loopback-redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisStandalone: { host: string; port: number };
    redisCluster: { host: string; port: number }[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  requireRedisServer();
  const dir = mkdtempSync(join(tmpdir(), "verdict-test-redis-"));
  const standalone = await startRedisServer(dir);
  const cluster = [
    await startClusterNode(dir, 2000),
    await startClusterNode(dir, 2000),
    await startClusterNode(dir, 2000),
  ];
  await createCluster(
    cluster.map((node) => node.port),
    0,
  );

  project.provide("redisStandalone", { host: LOOPBACK, port: standalone.port });
  project.provide(
    "redisCluster",
    cluster.map(({ port }) => ({ host: LOOPBACK, port })),
  );

  return async () => {
    await stopRedisServers([standalone, ...cluster].map((server) => server.child));
    rmSync(dir, { recursive: true, force: true });
  };
}
