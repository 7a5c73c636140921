// `verdict serve` (role all) as a user starts it: a supervisor with ingress and worker children. It runs
// the planned children behind one API port and one operations port that sums their metrics by role,
// restarts a child killed with SIGKILL while clients retry with their idempotency keys (every event
// applied exactly once, in order), and on SIGTERM under load loses nothing it answered 202 for.
// The supervisor does not depend on the Redis topology, so it runs against the standalone server only.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { envFor, spawnVerdict, type VerdictProcess } from "../support/processes.js";

/** The supervisor's children, by the role each was given in its environment. */
function childrenOf(pid: number): { pid: number; role: string }[] {
  let out = "";
  try {
    out = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" });
  } catch {
    return []; // pgrep exits 1 when there are none
  }
  return out
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .flatMap((child) => {
      try {
        const env = readFileSync(`/proc/${child}/environ`, "utf8").split("\0");
        const role = env.find((entry) => entry.startsWith("VERDICT_ROLE="))?.slice("VERDICT_ROLE=".length);
        return role ? [{ pid: child, role }] : [];
      } catch {
        return []; // exited meanwhile
      }
    });
}

/** The nice value of each thread of a process (field 19 of each /proc/PID/task/TID/stat). */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

async function metricsText(process: VerdictProcess): Promise<string> {
  return (await fetch(`http://127.0.0.1:${process.metricsPort}/metrics`)).text();
}

function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("verdict serve with role all (standalone)", () => {
  let t: TestApp;
  let supervisor: VerdictProcess | undefined;

  beforeAll(async () => {
    // The in-process app only creates the account and reads results; it runs no worker of its own.
    t = await startTestApp("standalone", { role: "ingress", shards: 8, leaseTtlMs: 1000 });
  });
  afterAll(async () => {
    await supervisor?.kill("SIGTERM");
    await t.stop();
  });

  async function send(path: string, body: unknown): Promise<number | undefined> {
    try {
      const response = await fetch(`http://127.0.0.1:${supervisor!.port}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return undefined; // connection refused or reset: a child was killed or the service is stopping
    }
  }

  async function openOutcomes(task: string, count: number): Promise<string[]> {
    expect((await t.request("PUT", `/v1/tasks/${task}`, { name: task, condition: "never_sent" })).status).toBe(201);
    const keys = Array.from({ length: count }, (_, i) => `${task}:${i}`);
    await Promise.all(
      keys.map(async (key) =>
        expect((await t.request("POST", "/v1/outcomes", { key, task_key: task })).status).toBe(201),
      ),
    );
    return keys;
  }

  async function loggedValues(key: string): Promise<number[]> {
    // A 503 (Redis slow to answer its liveness PING on a loaded machine) is a transient answer: retried,
    // as a client would.
    const reply = await eventually(
      async () => {
        const answer = await t.request("GET", `/v1/outcomes/${encodeURIComponent(key)}/events?limit=1000`);
        if (answer.status === 503) return undefined;
        expect(answer.status).toBe(200);
        return answer;
      },
      20_000,
      `${key}'s event log`,
    );
    return (reply.body as { events: { properties?: { value?: number } }[] }).events.map(
      (e) => e.properties?.value ?? -1,
    );
  }

  it("runs the planned children behind one API port and one operations port summing their metrics by role", async () => {
    supervisor = await spawnVerdict("all", {
      ...envFor(t.options),
      VERDICT_INGRESS_PROCESSES: "2",
      VERDICT_WORKER_PROCESSES: "2",
    });
    expect(
      childrenOf(supervisor.child.pid!)
        .map((c) => c.role)
        .sort(),
    ).toEqual(["ingress", "ingress", "worker", "worker"]);

    const [key] = await openOutcomes("plan", 1);
    // Separate connections, so the kernel spreads them over both ingress children.
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send("/v1/events", { outcome_key: key, action: "a", properties: { value: i } }),
      ),
    );
    expect(statuses.every((s) => s === 202)).toBe(true);
    await eventually(
      async () => ((await loggedValues(key!)).length === 40 ? true : undefined),
      10_000,
      "40 events applied",
    );

    const text = await metricsText(supervisor);
    expect(sample(text, 'verdict_events_total{result="accepted",role="ingress"}')).toBe(40);
    expect(sample(text, 'verdict_events_processed_total{role="worker"}')).toBe(40);
    // What the dashboard's process count reads: one per child, summed by role.
    expect(sample(text, 'verdict_processes{role="ingress"}')).toBe(2);
    expect(sample(text, 'verdict_processes{role="worker"}')).toBe(2);
    const ready = await fetch(`http://127.0.0.1:${supervisor.metricsPort}/readyz`);
    expect(await ready.json()).toEqual({ ready: true, failing: [] });

    // The workers give way to the ingress for the CPU (VERDICT_WORKER_NICE, default 10), every thread of them.
    const own = threadNices(supervisor.child.pid!)[0]!;
    for (const child of childrenOf(supervisor.child.pid!)) {
      const nices = new Set(threadNices(child.pid));
      expect([...nices], child.role).toEqual([child.role === "worker" ? Math.max(own, 10) : own]);
    }
  });

  it("restarts a child killed with SIGKILL; clients retrying with idempotency keys get every event applied once, in order", async () => {
    const keys = await openOutcomes("kill", 40);
    // Each client sends at least this many events, and goes on until both kills are done.
    const atLeast = 20;
    let killsDone = false;
    const sent = new Map<string, number>();
    const clients = keys.map(async (key) => {
      let i = 0;
      for (; i < atLeast || !killsDone; i++) {
        // Retry the same event until it is accepted: its idempotency key makes a resend harmless.
        while (
          (await send("/v1/events", {
            outcome_key: key,
            action: "step",
            idempotency_key: `${key}/${i}`,
            properties: { value: i },
          })) !== 202
        ) {
          await new Promise((r) => setTimeout(r, 50));
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      sent.set(key, i);
    });
    const killer = (async () => {
      for (const role of ["ingress", "worker"]) {
        await new Promise((r) => setTimeout(r, 400));
        const victim = childrenOf(supervisor!.child.pid!).find((c) => c.role === role)!;
        process.kill(victim.pid, "SIGKILL");
        await eventually(
          () =>
            Promise.resolve(
              childrenOf(supervisor!.child.pid!).some((c) => c.role === role && c.pid !== victim.pid)
                ? true
                : undefined,
            ),
          10_000,
          `a new ${role} child`,
        );
      }
    })();
    await killer;
    killsDone = true;
    await Promise.all(clients);

    for (const key of keys) {
      const count = sent.get(key)!;
      await eventually(
        async () => ((await loggedValues(key)).length >= count ? true : undefined),
        20_000,
        `${key} applied`,
      );
      expect(await loggedValues(key)).toEqual(Array.from({ length: count }, (_, i) => i));
    }
    const text = await metricsText(supervisor!);
    expect(sample(text, 'verdict_supervisor_child_restarts_total{role="ingress"}')).toBe(1);
    expect(sample(text, 'verdict_supervisor_child_restarts_total{role="worker"}')).toBe(1);
    await eventually(
      async () =>
        (await fetch(`http://127.0.0.1:${supervisor!.metricsPort}/readyz`)).status === 200 ? true : undefined,
      10_000,
      "ready again",
    );
  });

  it("stops on SIGTERM under load, ingress first, and loses nothing it answered 202 for", async () => {
    const keys = await openOutcomes("term", 20);
    const accepted = new Map<string, number[]>(keys.map((k) => [k, []]));
    let next = 0;
    const load = keys.map(async (key) => {
      for (;;) {
        const value = next++;
        const status = await send("/v1/events", { outcome_key: key, action: "step", properties: { value } });
        if (status === 202) accepted.get(key)!.push(value);
        else if (status === undefined) return; // the service has stopped listening
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    await supervisor!.kill("SIGTERM");
    supervisor = undefined;
    await Promise.all(load);
    expect([...accepted.values()].flat().length).toBeGreaterThan(0);

    // What was accepted but not yet applied waits in the streams for the next worker.
    const worker = await spawnVerdict("worker", envFor(t.options));
    try {
      for (const key of keys) {
        const want = accepted.get(key)!;
        const applied = await eventually(
          async () => {
            const values = await loggedValues(key);
            return want.every((v) => values.includes(v)) ? values : undefined;
          },
          20_000,
          `${key}'s accepted events applied`,
        );
        // Every accepted event once; an event whose answer was lost in the stop may be there too, once.
        expect(new Set(applied).size).toBe(applied.length);
      }
    } finally {
      await worker.kill("SIGTERM");
    }
  });
});
