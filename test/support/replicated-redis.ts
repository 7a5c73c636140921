// Redis with replicas, for the suites about replica acknowledgements (VERDICT_REPLICA_ACKS): a master with
// one replica, or a cluster of 3 masters with one replica each. Replicas can be paused (SIGSTOP) and
// resumed, so a WAIT can be shown to fall short on exactly the node that owns a key.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RedisEndpoint } from "../../src/redis/client.js";
import { freePort } from "./processes.js";

const HOST = "127.0.0.1";

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

function cli(port: number, ...args: string[]): string {
  return spawnSync("redis-cli", ["-h", HOST, "-p", String(port), ...args], { encoding: "utf8" }).stdout ?? "";
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startReplicatedRedis(kind: "standalone" | "cluster"): Promise<ReplicatedRedis> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-replicated-redis-"));
  const servers = new Map<number, ChildProcess>();
  const argsOf = new Map<number, string[]>();
  const start = (port: number, extra: string[]): void => {
    argsOf.set(port, extra);
    const args = [
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
      "--dbfilename",
      `${port}.rdb`,
      ...extra,
    ];
    servers.set(port, spawn("redis-server", args, { stdio: "ignore" }));
  };
  const clusterArgs = (port: number, busPort: number): string[] => [
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    `nodes-${port}.conf`,
    "--cluster-port",
    String(busPort),
    "--cluster-node-timeout",
    "1000",
  ];
  // A port that was free when asked for can be taken before redis-server binds it (other suites start
  // servers and connections in parallel), and a server that cannot bind exits: start it again elsewhere.
  const startAnywhere = async (): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      start(port, kind === "cluster" ? clusterArgs(port, await freePort()) : []);
      const server = servers.get(port)!;
      const exited = (): boolean => server.exitCode !== null || server.signalCode !== null;
      await until(() => exited() || cli(port, "PING").trim() === "PONG", `redis on ${port}`);
      if (!exited()) return port;
      servers.delete(port);
      argsOf.delete(port);
      if (attempt === 5) throw new Error(`redis-server could not start on a free port ${attempt} times`);
    }
  };
  const ports: number[] = [];
  const count = kind === "standalone" ? 2 : 6;
  for (let i = 0; i < count; i++) ports.push(await startAnywhere());

  let replicasOf: (key: string) => number[];
  let masterOf: (key: string) => number;
  if (kind === "standalone") {
    const [master, replica] = ports as [number, number];
    cli(replica, "REPLICAOF", HOST, String(master));
    await until(
      () =>
        cli(master, "INFO", "replication").includes("connected_slaves:1") &&
        cli(replica, "INFO", "replication").includes("master_link_status:up"),
      "the replica in sync",
    );
    replicasOf = () => [replica];
    masterOf = () => master;
  } else {
    const create = spawnSync(
      "redis-cli",
      ["--cluster", "create", ...ports.map((p) => `${HOST}:${p}`), "--cluster-replicas", "1", "--cluster-yes"],
      { encoding: "utf8" },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await until(() => ports.every((p) => cli(p, "CLUSTER", "INFO").includes("cluster_state:ok")), "cluster_state:ok");
    // Every master's replica linked and in sync.
    await until(
      () =>
        ports
          .filter((p) => cli(p, "ROLE").startsWith("slave"))
          .every((p) => cli(p, "INFO", "replication").includes("master_link_status:up")) &&
        ports.filter((p) => cli(p, "ROLE").startsWith("slave")).length === 3,
      "replicas in sync",
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
      start(port, argsOf.get(port) ?? []);
      await until(() => cli(port, "PING").trim() === "PONG", `redis on ${port} again`);
    },
    replicas: () => replicaPorts,
    pause: (port) => servers.get(port)?.kill("SIGSTOP"),
    resume: (port) => servers.get(port)?.kill("SIGCONT"),
    stop: async () => {
      await Promise.all(
        [...servers.values()].map(
          (server) =>
            new Promise<void>((resolve) => {
              if (server.exitCode !== null) return resolve();
              server.once("exit", () => resolve());
              server.kill("SIGCONT");
              server.kill("SIGKILL");
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
