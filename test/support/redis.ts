// Redis for suites: both deployments of the run's global setup, each test with its own key prefix.
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { connectRedis, waitReady, type RedisClient, type RedisEndpoint } from "../../src/redis/client.js";

export type Deployment = "standalone" | "cluster";

/** Both deployments, for `describe.each(DEPLOYMENTS)`. */
export const DEPLOYMENTS: readonly Deployment[] = ["standalone", "cluster"];

export function endpointOf(deployment: Deployment): RedisEndpoint {
  if (deployment === "standalone") {
    const { host, port } = inject("redisStandalone");
    return { kind: "standalone", url: `redis://${host}:${port}` };
  }
  return { kind: "cluster", nodes: inject("redisCluster") };
}

/** Environment variables that point a spawned Verdict process at the deployment. */
export function envOf(deployment: Deployment): Record<string, string> {
  if (deployment === "standalone") {
    const { host, port } = inject("redisStandalone");
    return { REDIS_URL: `redis://${host}:${port}` };
  }
  return {
    REDIS_CLUSTER_NODES: inject("redisCluster")
      .map((n) => `${n.host}:${n.port}`)
      .join(","),
  };
}

export async function connectTo(deployment: Deployment): Promise<RedisClient> {
  const client = connectRedis(endpointOf(deployment), { connectionName: "verdict-test" });
  await waitReady(client);
  return client;
}

/** A key prefix no other test uses, so suites share servers without seeing each other's keys. */
export function uniquePrefix(): string {
  return `t${randomBytes(5).toString("hex")}:`;
}
