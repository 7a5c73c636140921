// Vitest global setup: starts real redis-server processes on free ports (one standalone, one 3-master
// cluster) for the whole run, hands their addresses to the suites, and stops them after.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redisStandalone: { host: string; port: number };
    redisCluster: { host: string; port: number }[];
  }
}

const HOST = "127.0.0.1";

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 100) is free too. */
async function freePort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 100)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + 100))) {
      taken.add(port);
      taken.add(port + 100);
      return port;
    }
  }
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cli(port: number, ...args: string[]): string {
  const result = spawnSync("redis-cli", ["-h", HOST, "-p", String(port), ...args], { encoding: "utf8" });
  return result.stdout ?? "";
}

function startServer(port: number, dir: string, extra: string[]): ChildProcess {
  return spawn(
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
      ...extra,
    ],
    { stdio: "ignore" },
  );
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (spawnSync("redis-server", ["--version"]).error) {
    throw new Error("redis-server is not on PATH: the tests need a real Redis (apt-get install redis-server)");
  }
  const dir = mkdtempSync(join(tmpdir(), "verdict-test-redis-"));
  const taken = new Set<number>();
  const children: ChildProcess[] = [];

  const standalonePort = await freePort(taken);
  children.push(startServer(standalonePort, dir, ["--dbfilename", "standalone.rdb"]));

  const clusterPorts = [await freePort(taken), await freePort(taken), await freePort(taken)];
  for (const port of clusterPorts) {
    children.push(
      startServer(port, dir, [
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        `nodes-${port}.conf`,
        "--cluster-port",
        String(port + 100),
        "--cluster-node-timeout",
        "2000",
        "--dbfilename",
        `cluster-${port}.rdb`,
      ]),
    );
  }
  for (const port of [standalonePort, ...clusterPorts]) {
    await waitFor(() => cli(port, "PING").trim() === "PONG", `redis on ${port}`);
  }
  const create = spawnSync(
    "redis-cli",
    ["--cluster", "create", ...clusterPorts.map((p) => `${HOST}:${p}`), "--cluster-replicas", "0", "--cluster-yes"],
    { encoding: "utf8" },
  );
  if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
  await waitFor(
    () => clusterPorts.every((p) => cli(p, "CLUSTER", "INFO").includes("cluster_state:ok")),
    "cluster_state:ok",
  );

  project.provide("redisStandalone", { host: HOST, port: standalonePort });
  project.provide(
    "redisCluster",
    clusterPorts.map((port) => ({ host: HOST, port })),
  );

  return async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGKILL");
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  };
}
