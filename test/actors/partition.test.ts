// A worker cut off from Redis for longer than its lease: it runs in a network namespace of its own, joined
// to this host by a veth pair, and the test takes the host's end of the link down. The other worker takes
// its shards; when the link comes back, whatever the cut-off worker still had in flight reaches Redis late
// and is refused by the commit's fence check. Clients keep sending throughout, retrying each event with
// its idempotency key until it is accepted: at the end every outcome's log holds every accepted event
// exactly once, in order, and the cut-off worker reports its leases lost rather than writing under them.
//
// Needs root for `ip netns` (CI and this project's test machines run as root); without it the suite fails
// at once with a message saying so.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { startPrivateRedis, type PrivateRedis } from "../support/private-redis.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli/main.js", import.meta.url));
const OUTCOMES = 24;
const LEASE_TTL_MS = 2000;
const CUT_MS = 3 * LEASE_TTL_MS;

/** Names and addresses of this run's namespace: derived from the pid, so parallel runs do not collide. */
function netFor(pid: number): { ns: string; hostIf: string; nsIf: string; hostIp: string; nsIp: string } {
  const n = pid % 250;
  return {
    ns: `verdict-part-${pid}`,
    hostIf: `vdh${pid}`.slice(0, 15),
    nsIf: `vdn${pid}`.slice(0, 15),
    hostIp: `10.213.${n}.1`,
    nsIp: `10.213.${n}.2`,
  };
}

function ip(...args: string[]): void {
  const result = spawnSync("ip", args, { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `\`ip ${args.join(" ")}\` failed (this suite needs root and iproute2 for network namespaces): ${result.stderr || result.error}`,
    );
  }
}

describe("a worker partitioned from Redis past its lease (network namespace)", () => {
  const net = netFor(process.pid);
  let redis: PrivateRedis;
  let t: TestApp;
  let cutOff: ChildProcess;
  let cutOffLog = "";
  let other: VerdictProcess;

  beforeAll(async () => {
    ip("netns", "add", net.ns);
    ip("link", "add", net.hostIf, "type", "veth", "peer", "name", net.nsIf);
    ip("link", "set", net.nsIf, "netns", net.ns);
    ip("addr", "add", `${net.hostIp}/30`, "dev", net.hostIf);
    ip("link", "set", net.hostIf, "up");
    ip("netns", "exec", net.ns, "ip", "addr", "add", `${net.nsIp}/30`, "dev", net.nsIf);
    ip("netns", "exec", net.ns, "ip", "link", "set", net.nsIf, "up");
    ip("netns", "exec", net.ns, "ip", "link", "set", "lo", "up");

    // Reached from the namespace over the veth address: not loopback, so protected mode must be off.
    redis = await startPrivateRedis(["--bind", "127.0.0.1", net.hostIp, "--protected-mode", "no"]);
    t = await startTestApp("standalone", {
      role: "ingress",
      redis: { kind: "standalone", url: redis.url },
      shards: 8,
      leaseTtlMs: LEASE_TTL_MS,
    });
    expect((await t.request("PUT", "/v1/tasks/part", { name: "part", condition: "never" })).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    cutOff?.kill("SIGKILL");
    await other?.kill();
    await t?.stop();
    await redis?.cleanup();
    spawnSync("ip", ["link", "del", net.hostIf]);
    spawnSync("ip", ["netns", "del", net.ns]);
  }, 60_000);

  /** The worker inside the namespace, reaching Redis over the veth link; ready once its /readyz answers. */
  async function startCutOffWorker(): Promise<void> {
    const env = {
      ...process.env,
      ...envFor(t.options),
      REDIS_URL: redis.url.replace("127.0.0.1", net.hostIp),
      VERDICT_LOG_LEVEL: "info",
      VERDICT_METRICS_HOST: net.nsIp,
      VERDICT_METRICS_PORT: "9464",
    };
    cutOff = spawn("ip", ["netns", "exec", net.ns, process.execPath, CLI, "serve", "--role", "worker"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    cutOff.stdout!.on("data", (chunk: Buffer) => (cutOffLog += chunk.toString()));
    cutOff.stderr!.on("data", (chunk: Buffer) => (cutOffLog += chunk.toString()));
    await eventually(
      async () => {
        if (cutOff.exitCode !== null) throw new Error(`the namespaced worker exited: ${cutOffLog}`);
        const ready = await fetch(`http://${net.nsIp}:9464/readyz`).catch(() => undefined);
        return ready?.status === 200 ? true : undefined;
      },
      20_000,
      "the namespaced worker ready",
    );
  }

  async function ownedShards(host: string, port: number): Promise<number> {
    const text = await (await fetch(`http://${host}:${port}/metrics`)).text();
    const line = text.split("\n").find((l) => l.startsWith("verdict_owned_shards "));
    return Number(line?.split(" ")[1] ?? 0);
  }

  async function send(key: string, value: number): Promise<number | undefined> {
    const reply = await t
      .request("POST", "/v1/events", {
        outcome_key: key,
        action: "step",
        idempotency_key: `${key}/${value}`,
        properties: { value },
      })
      .catch(() => undefined);
    return reply?.status;
  }

  it("refuses the cut-off worker's late writes and applies every accepted event once, in order", async () => {
    await startCutOffWorker();
    // The cut-off worker owns every shard until the other one joins; then they split them.
    await eventually(
      async () => ((await ownedShards(net.nsIp, 9464)) === 8 ? true : undefined),
      20_000,
      "the namespaced worker owning every shard",
    );
    other = await spawnVerdict("worker", envFor(t.options));
    await eventually(
      async () => ((await ownedShards(net.nsIp, 9464)) < 8 ? true : undefined),
      20_000,
      "the shards split between the workers",
    );

    const keys = Array.from({ length: OUTCOMES }, (_, i) => `part-${i}`);
    for (const key of keys)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "part" })).status).toBe(201);

    const sent = new Map<string, number>();
    let sending = true;
    const clients = keys.map(async (key) => {
      let value = 0;
      while (sending) {
        while ((await send(key, value)) !== 202) await new Promise((r) => setTimeout(r, 50));
        value++;
        sent.set(key, value);
        await new Promise((r) => setTimeout(r, 20));
      }
    });

    await new Promise((r) => setTimeout(r, 1000));
    ip("link", "set", net.hostIf, "down");
    // Past the lease: the other worker sees the cut-off one's heartbeat expire and takes all its shards.
    await eventually(
      async () => ((await ownedShards("127.0.0.1", other.metricsPort)) === 8 ? true : undefined),
      CUT_MS + 10_000,
      "the other worker owning every shard",
    );
    await new Promise((r) => setTimeout(r, CUT_MS));
    ip("link", "set", net.hostIf, "up");
    // The cut-off worker hears back from Redis: its renewals and commits under the old leases are refused.
    await eventually(
      () => Promise.resolve(cutOffLog.includes("lost shard lease") ? true : undefined),
      30_000,
      "the namespaced worker to report its leases lost",
    );
    await new Promise((r) => setTimeout(r, 2000));
    sending = false;
    await Promise.all(clients);

    for (const key of keys) {
      const want = Array.from({ length: sent.get(key) ?? 0 }, (_, i) => i);
      const values = await eventually(
        async () => {
          const reply = await t.request("GET", `/v1/outcomes/${key}/events?limit=1000`);
          const got = (reply.body as { events: { properties: { value: number } }[] }).events.map(
            (e) => e.properties.value,
          );
          return got.length >= want.length ? got : undefined;
        },
        30_000,
        `${key}'s events applied`,
      );
      expect(values).toEqual(want);
    }
    const letters = await t.request("GET", "/v1/dlq");
    expect((letters.body as { dead_letters: unknown[] }).dead_letters).toEqual([]);
  }, 120_000);
});
