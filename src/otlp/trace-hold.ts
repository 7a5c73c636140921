// Spans of a trace whose outcome is not known yet wait in Redis (bounded; any ingress may release them)
// until a span of the same trace names it, for the hold time; then a sweep ends their hold, counted and logged.
import type { RedisClient } from "../redis/client.js";
import type { Keys } from "../redis/keys.js";
import { Scripts } from "../redis/scripts.js";
import { msgpack } from "../codec/msgpack.js";
import type { MappedSpan, SpanKeys } from "./map-span.js";
import { packTraceKeys, unpackTraceKeys } from "./trace-keys.js";

export interface TraceHoldOptions {
  /** How long spans wait for their trace's outcome key (VERDICT_OTLP_HOLD). */
  holdMs: number;
  /** Most spans one account may hold at once; beyond, unkeyed spans are rejected. */
  maxHeldSpans: number;
  /** How long a trace's keys are kept for its later spans, at least (at most twice). */
  traceKeysTtlMs: number;
}

/** One trace of a request: the keys its spans name (when they name its outcome) and its spans that name none. */
export interface TraceAsk {
  traceId: string;
  keys: SpanKeys | undefined;
  unkeyed: MappedSpan[];
}

export type TraceAnswer =
  /** Keys known: `released` are spans held for the trace by earlier requests, to be sent with this one's. */
  | { status: "known"; keys: SpanKeys; released: MappedSpan[] }
  | { status: "held" }
  /** Unknown, and the account's hold is full: the unkeyed spans are rejected. */
  | { status: "full" };

/** resolve-traces.lua's status codes, for the traces it has nothing to hand back for. */
const RESOLVED = { KNOWN_AS_ASKED: 1, HELD: 2, FULL: 3 } as const;
type Resolved = (typeof RESOLVED)[keyof typeof RESOLVED];

interface TraceHoldReplies {
  /** Per trace: a Resolved code, or the keys recorded for it and 1 when spans are held for it. */
  "resolve-traces": (Resolved | [keys: string, waiting: 0 | 1])[];
  /** Per trace: the number of spans its hold ended with. */
  "release-traces": number[];
  /** 1 when the account was forgotten. */
  "forget-account": number;
}

const SCRIPTS = ["resolve-traces", "release-traces", "forget-account"] as const;

export class TraceHold {
  private readonly scripts: Scripts<TraceHoldReplies>;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly options: TraceHoldOptions,
  ) {
    this.scripts = new Scripts(redis, new URL("./lua/", import.meta.url), SCRIPTS);
  }

  /**
   * Resolves one request's traces in one script call (the account's keys share a slot), then reads the
   * spans held for the traces that have any, in one more round trip when there are some.
   */
  async resolve(accountId: string, asks: readonly TraceAsk[], now: number): Promise<TraceAnswer[]> {
    if (asks.length === 0) return [];
    const period = Math.floor(now / this.options.traceKeysTtlMs);
    const keys = [
      this.keys.otlpHeldTraces(accountId),
      this.keys.otlpHeldCount(accountId),
      this.keys.otlpTraceKeys(accountId, period),
      this.keys.otlpTraceKeys(accountId, period - 1),
      this.keys.otlpTraceKeys(accountId, period - 2),
    ];
    const args: (string | number | Buffer)[] = [
      now,
      this.options.holdMs,
      this.options.maxHeldSpans,
      this.options.traceKeysTtlMs,
    ];
    for (const ask of asks) {
      // Keys as strings: ioredis writes a string argument far more cheaply than a Buffer, per trace.
      if (ask.keys !== undefined) args.push(ask.traceId, packTraceKeys(ask.keys));
      else {
        keys.push(this.keys.otlpHeldSpans(accountId, ask.traceId));
        args.push(ask.traceId, "", ask.unkeyed.length, ...ask.unkeyed.map((span) => msgpack.pack(span)));
      }
    }
    const reply = await this.scripts.run("resolve-traces", keys, args);
    if (reply.includes(RESOLVED.HELD)) {
      // After the hold, so the sweep's forget-account sees the bump (or finds the account again).
      await this.redis.zincrby(this.keys.otlpHoldingAccounts(), 1, accountId);
    }
    const held = await this.heldSpans(accountId, asks, reply);
    return reply.map((answer, i): TraceAnswer => {
      if (answer === RESOLVED.KNOWN_AS_ASKED) return { status: "known", keys: asks[i]!.keys!, released: [] };
      if (answer === RESOLVED.HELD) return { status: "held" };
      if (answer === RESOLVED.FULL) return { status: "full" };
      return {
        status: "known",
        keys: unpackTraceKeys(answer[0]),
        released: (held.get(i) ?? []).map((b) => msgpack.unpack(b) as MappedSpan),
      };
    });
  }

  /** The spans held for each known trace the script said has some, by index of its ask. */
  private async heldSpans(
    accountId: string,
    asks: readonly TraceAsk[],
    reply: TraceHoldReplies["resolve-traces"],
  ): Promise<Map<number, Buffer[]>> {
    const waiting: number[] = [];
    reply.forEach((answer, i) => {
      if (Array.isArray(answer) && answer[1] === 1) waiting.push(i);
    });
    const lists = await Promise.all(
      waiting.map((i) => this.redis.lrangeBuffer(this.keys.otlpHeldSpans(accountId, asks[i]!.traceId), 0, -1)),
    );
    return new Map(waiting.map((i, j) => [i, lists[j]!]));
  }

  /** Ends the holds of traces whose held spans were enqueued. */
  async release(accountId: string, traceIds: readonly string[]): Promise<void> {
    if (traceIds.length === 0) return;
    await this.end(accountId, "released", traceIds);
  }

  /**
   * Ends every hold past its deadline, account by account; tells `expired` how many spans of which
   * traces of each account it gave up on.
   */
  async sweep(now: number, expired: (accountId: string, traces: Map<string, number>) => void): Promise<void> {
    const holding = this.keys.otlpHoldingAccounts();
    const flat = await this.redis.zrange(holding, "0", "-1", "WITHSCORES");
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const accountId = flat[i]!;
      const due = await this.redis.zrangebyscore(
        this.keys.otlpHeldTraces(accountId),
        "-inf",
        String(now),
        "LIMIT",
        0,
        500,
      );
      if (due.length > 0) {
        const ended = await this.end(accountId, now, due);
        const traces = new Map<string, number>();
        due.forEach((traceId, j) => {
          if ((ended[j] ?? 0) > 0) traces.set(traceId, ended[j]!);
        });
        if (traces.size > 0) expired(accountId, traces);
      }
      if ((await this.redis.zcard(this.keys.otlpHeldTraces(accountId))) === 0) {
        await this.scripts.run("forget-account", [holding], [accountId, flat[i + 1]!]);
      }
    }
  }

  private async end(accountId: string, dueBy: "released" | number, traceIds: readonly string[]): Promise<number[]> {
    const keys = [
      this.keys.otlpHeldTraces(accountId),
      this.keys.otlpHeldCount(accountId),
      ...traceIds.map((t) => this.keys.otlpHeldSpans(accountId, t)),
    ];
    const reply = await this.scripts.run("release-traces", keys, [dueBy, ...traceIds]);
    return reply.map(Number);
  }
}
