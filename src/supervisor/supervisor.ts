// `verdict serve` with role all: a small supervisor that runs the ingress and the shard workers as child
// processes (node:cluster), so each gets its own core and event loop. uWebSockets.js listens with
// SO_REUSEPORT, so every ingress child binds the same port and the kernel spreads connections. The
// supervisor serves the one operations port of the machine (metrics summed over the children with a
// `role` label, readiness of them all), restarts a child that dies with backoff, and stops them in order:
// ingress first, so nothing is accepted that no worker will process, then the workers (leases released).
import cluster, { type Worker as Child } from "node:cluster";
import { AggregatorRegistry, Counter, Gauge, Registry } from "prom-client";
import type { Logger } from "../telemetry/logger.js";
import { isChildReply, type ChildMetrics, type ChildReply } from "./messages.js";
import type { ProcessPlan } from "./process-plan.js";

export type ChildRole = "ingress" | "worker";

export interface SupervisorDeps {
  plan: ProcessPlan;
  /** The script each child runs (the `verdict` CLI) and its arguments. */
  exec: string;
  args: readonly string[];
  /** Environment for the children on top of the supervisor's own (the role is added per child). */
  env: Readonly<Record<string, string>>;
  logger: Logger;
  /** How long a child may take to stop before it is killed. */
  stopGraceMs: number;
}

/** A place in the plan: the same slot is refilled when its child dies. */
interface Slot {
  name: string;
  role: ChildRole;
  child: Child | undefined;
  /** Times of recent unexpected exits, for backoff and the crash-loop check. */
  exits: number[];
  restart: NodeJS.Timeout | undefined;
}

const ANSWER_TIMEOUT_MS = 1000;
const CRASH_WINDOW_MS = 60_000;
/** This many unexpected exits within the window is a crash loop: /readyz fails until it calms down. */
const CRASH_LOOP_EXITS = 5;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;

export class Supervisor {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, (reply: ChildReply) => void>();
  private nextId = 0;
  private stopping = false;
  /** The supervisor's own metrics, merged into what /metrics answers. */
  readonly registry = new Registry();
  private readonly restarts = new Counter({
    name: "verdict_supervisor_child_restarts_total",
    help: "Children restarted after an unexpected exit, by role",
    labelNames: ["role"],
    registers: [this.registry],
  });

  private readonly running = new Gauge({
    name: "verdict_supervisor_children",
    help: "Children running now, by role",
    labelNames: ["role"],
    registers: [this.registry],
    collect: () => {
      for (const role of ["ingress", "worker"] as const) {
        this.running.set({ role }, this.slots.filter((slot) => slot.role === role && slot.child?.isConnected()).length);
      }
    },
  });

  constructor(private readonly deps: SupervisorDeps) {
    for (const role of ["ingress", "worker"] as const) {
      for (let i = 0; i < deps.plan[role]; i++)
        this.slots.push({ name: `${role}-${i}`, role, child: undefined, exits: [], restart: undefined });
    }
    cluster.on("message", (_child, message: unknown) => {
      if (!isChildReply(message)) return;
      this.pending.get(message.id)?.(message);
    });
  }

  start(): void {
    cluster.setupPrimary({ exec: this.deps.exec, args: [...this.deps.args] });
    for (const slot of this.slots) this.fork(slot);
    this.deps.logger.info(
      { ingress: this.deps.plan.ingress, worker: this.deps.plan.worker },
      "supervisor started its children",
    );
  }

  private fork(slot: Slot): void {
    slot.restart = undefined;
    const child = cluster.fork({ ...this.deps.env, VERDICT_ROLE: slot.role });
    slot.child = child;
    child.on("exit", (code: number | null, signal: string | null) => {
      if (slot.child === child) slot.child = undefined;
      if (this.stopping) return;
      const now = Date.now();
      slot.exits = [...slot.exits.filter((at) => now - at < CRASH_WINDOW_MS), now];
      const delay = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.exits.length - 1));
      this.deps.logger.error(
        { child: slot.name, pid: child.process.pid, code, signal, restartInMs: delay },
        "child exited; restarting",
      );
      this.restarts.inc({ role: slot.role });
      slot.restart = setTimeout(() => this.fork(slot), delay);
    });
  }

  /** Asks a child; undefined when it does not answer in time (busy, starting, or gone). */
  private ask(child: Child, verdict: "readiness" | "metrics"): Promise<ChildReply | undefined> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(undefined);
      }, ANSWER_TIMEOUT_MS);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(reply);
      });
      try {
        child.send({ verdict, id });
      } catch {
        // The channel closed between the check and the send: the child is going.
      }
    });
  }

  /** What keeps the machine from being ready, child by child; empty when every child is up and ready. */
  async failingChecks(): Promise<string[]> {
    const now = Date.now();
    const perSlot = await Promise.all(
      this.slots.map(async (slot): Promise<string[]> => {
        const recentExits = slot.exits.filter((at) => now - at < CRASH_WINDOW_MS).length;
        const loop =
          recentExits >= CRASH_LOOP_EXITS ? [`${slot.name} crash loop (${recentExits} exits in a minute)`] : [];
        const child = slot.child;
        if (!child?.isConnected()) return [...loop, `${slot.name} not running`];
        const reply = await this.ask(child, "readiness");
        if (!reply || reply.verdict !== "readiness") return [...loop, `${slot.name} not answering`];
        return [...loop, ...reply.failing.map((check) => `${slot.name}: ${check}`)];
      }),
    );
    return perSlot.flat();
  }

  /** Prometheus text: every child's metrics summed per role (the children label them), and the supervisor's. */
  async metrics(): Promise<string> {
    const children = this.slots.flatMap((slot) => (slot.child?.isConnected() ? [slot.child] : []));
    const replies = await Promise.all(children.map((child) => this.ask(child, "metrics")));
    const sets: ChildMetrics[] = replies.flatMap((reply) => (reply?.verdict === "metrics" ? [reply.metrics] : []));
    sets.push(await this.registry.getMetricsAsJSON());
    return AggregatorRegistry.aggregate(sets).metrics();
  }

  /** Stops the ingress children, then the workers; a child that does not stop within the grace is killed. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) clearTimeout(slot.restart);
    for (const role of ["ingress", "worker"] as const) {
      await Promise.all(this.slots.filter((slot) => slot.role === role).map((slot) => this.stopChild(slot)));
    }
  }

  private stopChild(slot: Slot): Promise<void> {
    const child = slot.child;
    if (!child || child.isDead()) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => {
        this.deps.logger.warn({ child: slot.name }, "child did not stop in time; killing it");
        child.process.kill("SIGKILL");
      }, this.deps.stopGraceMs);
      child.once("exit", () => {
        clearTimeout(kill);
        resolve();
      });
      child.process.kill("SIGTERM");
    });
  }
}
