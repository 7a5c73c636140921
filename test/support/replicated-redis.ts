// Redis with replicas, for the suites about replica acknowledgements (VERDICT_REPLICA_ACKS): a master with
// one replica, or a cluster of 3 masters with one replica each. Replicas can be paused (SIGSTOP) and
// resumed, so a WAIT can be shown to fall short on exactly the node that owns a key.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RedisEndpoint } from "../../src/redis/client.js";
import { freePort } from "../../bench/free-port.js";
import {
  LOOPBACK as HOST,
  clusterNodeArgs,
  createCluster,
  redisServerArgs,
  redisCli as cli,
  startRedisServer,
  stopRedisServers,
  waitUntil,
} from "../../bench/loopback-redis.js";

export interface ReplicatedRedis {
  endpoint: RedisEndpoint;
  /** The replica ports of the master that owns `key` (on one Redis: its one replica). */
  replicasOf(key: string): number[];
  /** The port of the master that owns `key` now. */
  masterOf(key: string): number;
  /** Kills a server with SIGKILL (a master dies; on a cluster its replica takes over). */
  kill(port: number): void;
  /** Starts a killed server again with its own settings (a cluster node rejoins, as a replica once replaced). */
  restart(port: number): Promise<void>;
  /** Every replica's port. */
  replicas(): number[];
  pause(port: number): void;
  resume(port: number): void;
  stop(): Promise<void>;
}

export async function startReplicatedRedis(kind: "standalone" | "cluster"): Promise<ReplicatedRedis> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-replicated-redis-"));
  const servers = new Map<number, ChildProcess>();
  const argsOf = new Map<number, string[]>();
  const startAnywhere = async (): Promise<number> => {
    const extraOf = async (port: number): Promise<string[]> => {
      const extra = kind === "cluster" ? clusterNodeArgs(port, await freePort(), 1000) : [];
      argsOf.set(port, extra);
      return extra;
    };
    const { port, child } = await startRedisServer(dir, extraOf);
    servers.set(port, child);
    return port;
  };
  const ports: number[] = [];
  const count = kind === "standalone" ? 2 : 6;
  for (let i = 0; i < count; i++) ports.push(await startAnywhere());

  let replicasOf: (key: string) => number[];
  let masterOf: (key: string) => number;
  if (kind === "standalone") {
    const [master, replica] = ports as [number, number];
    cli(replica, "REPLICAOF", HOST, String(master));
    await waitUntil(
      () =>
        cli(master, "INFO", "replication").includes("connected_slaves:1") &&
        cli(replica, "INFO", "replication").includes("master_link_status:up"),
      "the replica in sync",
      30_000,
    );
    replicasOf = () => [replica];
    masterOf = () => master;
  } else {
    await createCluster(ports, 1);
    // Every master's replica linked and in sync.
    await waitUntil(
      () =>
        ports
          .filter((p) => cli(p, "ROLE").startsWith("slave"))
          .every((p) => cli(p, "INFO", "replication").includes("master_link_status:up")) &&
        ports.filter((p) => cli(p, "ROLE").startsWith("slave")).length === 3,
      "replicas in sync",
      30_000,
    );
    const alive = (): number =>
      ports.find((p) => servers.get(p)?.exitCode === null && servers.get(p)?.signalCode === null)!;
    const portOf = (node: string[]): number => Number(node[1]!.split(":")[1]!.split("@")[0]);
    const owner = (key: string): { nodes: string[][]; master: string[] } => {
      const slot = Number(cli(alive(), "CLUSTER", "KEYSLOT", key).trim());
      const nodes = cli(alive(), "CLUSTER", "NODES")
        .trim()
        .split("\n")
        .map((line) => line.split(" "));
      const master = nodes.find(
        (n) =>
          n[2]!.includes("master") &&
          !n[2]!.includes("fail") &&
          n.slice(8).some((range) => {
            const [from, to] = range.split("-").map(Number);
            return slot >= from! && slot <= (to ?? from)!;
          }),
      );
      if (!master) throw new Error(`no master owns slot ${slot}`);
      return { nodes, master };
    };
    replicasOf = (key) => {
      const { nodes, master } = owner(key);
      return nodes.filter((n) => n[3] === master[0]).map(portOf);
    };
    masterOf = (key) => portOf(owner(key).master);
  }
  const replicaPorts = kind === "standalone" ? [ports[1]!] : ports.filter((p) => cli(p, "ROLE").startsWith("slave"));
  return {
    endpoint:
      kind === "standalone"
        ? { kind: "standalone", url: `redis://${HOST}:${ports[0]}` }
        : {
            kind: "cluster",
            nodes: ports.filter((p) => !replicaPorts.includes(p)).map((port) => ({ host: HOST, port })),
          },
    replicasOf: (key) => replicasOf(key),
    masterOf: (key) => masterOf(key),
    kill: (port) => servers.get(port)?.kill("SIGKILL"),
    restart: async (port) => {
      const old = servers.get(port);
      if (old && old.exitCode === null && old.signalCode === null) await new Promise((r) => old.once("exit", r));
      servers.set(port, spawn("redis-server", redisServerArgs(port, dir, argsOf.get(port)), { stdio: "ignore" }));
      await waitUntil(() => cli(port, "PING").trim() === "PONG", `redis on ${port} again`);
    },
    replicas: () => replicaPorts,
    pause: (port) => servers.get(port)?.kill("SIGSTOP"),
    resume: (port) => servers.get(port)?.kill("SIGCONT"),
    stop: async () => {
      await stopRedisServers(servers.values());
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
