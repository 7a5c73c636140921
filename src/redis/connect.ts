// Opens the Redis the options name: starts (or reuses) the embedded redis-server, or points at a URL or cluster.
import { Cluster } from "ioredis";
import { connectRedis, waitReady, type ConnectOptions, type RedisClient, type RedisEndpoint } from "./client.js";
import { startEmbeddedRedis } from "./embedded.js";
import type { RedisTarget } from "../config/options.js";
import type { Logger } from "../telemetry/logger.js";

export interface ResolvedRedis {
  endpoint: RedisEndpoint;
  /** Stops the embedded server when this process started it; a no-op otherwise. */
  release(): Promise<void>;
}

/** Where to connect; for the embedded default this starts the server first (or reuses a running one). */
export async function resolveRedis(target: RedisTarget, logger: Logger): Promise<ResolvedRedis> {
  if (target.kind === "standalone")
    return { endpoint: { kind: "standalone", url: target.url }, release: () => Promise.resolve() };
  if (target.kind === "cluster")
    return { endpoint: { kind: "cluster", nodes: target.nodes }, release: () => Promise.resolve() };
  logger.info(
    { dataDir: target.dataDir },
    `no REDIS_URL or REDIS_CLUSTER_NODES: using an embedded redis-server (append-only persistence) owned by Verdict under ${target.dataDir}`,
  );
  const embedded = await startEmbeddedRedis(target.dataDir);
  logger.info(
    { socket: embedded.socketPath, owned: embedded.owned },
    embedded.owned
      ? "embedded redis-server started"
      : "embedded redis-server already running for this data dir; reusing it",
  );
  return { endpoint: { kind: "socket", path: embedded.socketPath }, release: () => embedded.stop() };
}

const ERROR_LOG_INTERVAL_MS = 10_000;

function logErrors(client: RedisClient, logger: Logger, connectionName: string | undefined): void {
  // ioredis reconnects by itself; without a listener every attempt would print an "Unhandled error event".
  let lastLogged = 0;
  client.on("error", (error: Error) => {
    if (Date.now() - lastLogged < ERROR_LOG_INTERVAL_MS) return;
    lastLogged = Date.now();
    logger.warn({ err: error, connection: connectionName }, "redis connection error (reconnecting)");
  });
}

/**
 * A connection for shard pub/sub (SSUBSCRIBE). On a cluster, ioredis's sharded subscribers follow each
 * channel's slot to the node that owns it, so messages published there arrive without a cluster-bus hop.
 */
export function openShardSubscriber(endpoint: RedisEndpoint, connectionName: string, logger: Logger): RedisClient {
  const client =
    endpoint.kind === "cluster"
      ? new Cluster([...endpoint.nodes], { shardedSubscribers: true, redisOptions: { connectionName } })
      : connectRedis(endpoint, { connectionName });
  logErrors(client, logger, connectionName);
  return client;
}

/**
 * A connected client that answered PING. On a cluster, every master connection is opened now and every
 * node the client learns of later is connected at once: ioredis opens node connections lazily, and a
 * client without offline queue would otherwise refuse the first command sent to each node.
 */
export async function openClient(
  endpoint: RedisEndpoint,
  options: ConnectOptions,
  logger: Logger,
): Promise<RedisClient> {
  const client = connectRedis(endpoint, options);
  logErrors(client, logger, options.connectionName);
  try {
    await waitReady(client);
    if (client instanceof Cluster) {
      client.on("+node", (node: { status: string; connect(): Promise<void> }) => {
        if (node.status === "wait") node.connect().catch(() => {});
      });
      await Promise.all(
        client
          .nodes("all")
          .filter((node) => node.status === "wait")
          .map((node) => node.connect()),
      );
      await waitReady(client);
    }
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}
