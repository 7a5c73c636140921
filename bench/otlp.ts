// OTLP trace ingest (`npm run bench:otlp`, also row 9 of `npm run bench`): spans/s through POST /v1/traces
// (protobuf, 512-span requests as the OpenTelemetry SDKs batch them) against the same events through
// POST /v1/events/batch (500-event batches, the route's maximum), on one ingress process and its Redis, in
// interleaved rounds; and the ingress's and Redis's CPU per span or event, from /proc.
//
// Each round sends fresh spans once (a fixed amount of work: every span's idempotency key is new, as in
// production; repeating bodies would measure the duplicate path). A span is the event the mapping makes
// of it, so the batch side sends exactly those events, ids and idempotency keys included.
// BENCH_ROUNDS (default 5), OTLP_BENCH_WARMUP_ROUNDS (default 1, unmeasured, per side) and OTLP_BENCH_REQUESTS
// (default 100 requests of 512 spans per round) set the work;
// OTLP_BENCH_PROFILE_DIR writes the ingress's CPU profile there (node --cpu-prof) when it stops.
// Prints the figures on stderr and, last, as one JSON line on stdout.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SpanKind, SpanStatusCode, trace, context, type Tracer } from "@opentelemetry/api";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { Accounts } from "../src/accounts/accounts.js";
import { Keys } from "../src/redis/keys.js";
import {
  api,
  cpuSecondsOf,
  load,
  median,
  rotatingRounds,
  runMain,
  spawnVerdict,
  startRedis,
  stopChild,
  type LoadResult,
} from "./harness.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_ROUNDS = Number(process.env.OTLP_BENCH_WARMUP_ROUNDS ?? 1);
const REQUESTS = Number(process.env.OTLP_BENCH_REQUESTS ?? 100);
const SPANS_PER_REQUEST = 512;
const SPANS_PER_CONVERSATION = 4;
const BATCH = 500;
const CONNECTIONS = 8;
const KEY_PREFIX = "bench:";
const CUSTOMER = "cust-42";
const AGENT = "support-bot";
/** The bound on traces / batch. */
const RATIO_BOUND = 0.8;

export interface OtlpSide {
  /** Spans (or events) per second of the median round. */
  perSecond: number;
  rounds: number[];
  /** p50 / p99 per request of the median round, ms. */
  p50Ms: number;
  p99Ms: number;
  /**
   * CPU µs per span (or event) over every round: the ingress process (all threads), its main thread alone
   * (the rest is GC and compilation threads), Redis.
   */
  cpuMicros: { ingress: number; ingressMain: number; redis: number };
}

export interface OtlpFigures {
  traces: OtlpSide;
  batch: OtlpSide;
  /** Median over rounds of traces / batch, each round's pair measured back to back. */
  ratio: number;
  spansPerRound: number;
  /** Mean protobuf body of a 512-span request. */
  bodyBytes: number;
}

/** One conversation as an agent framework exports it: chat, tool call, chat, then the agent span. */
function conversation(tracer: Tracer, key: string, n: number): void {
  const start = Date.now() - 1000;
  const root = tracer.startSpan(`invoke_agent ${AGENT}`, {
    startTime: new Date(start),
    attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": AGENT, "gen_ai.conversation.id": key },
  });
  const parent = trace.setSpan(context.active(), root);
  const chat = (from: number, to: number, finish: string): void => {
    const span = tracer.startSpan(
      "chat gpt-4o",
      {
        kind: SpanKind.CLIENT,
        startTime: new Date(start + from),
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "openai",
          "gen_ai.request.model": "gpt-4o",
          "gen_ai.usage.input_tokens": 100 + (n % 50),
          "gen_ai.usage.output_tokens": 20 + (n % 7),
          "gen_ai.response.finish_reasons": [finish],
          // Instrumentations send message contents; the ingress reads past them.
          "gen_ai.input.messages": JSON.stringify([
            {
              role: "user",
              parts: [{ type: "text", content: `Where is my order ${n}? It was due last week and nobody answers.` }],
            },
          ]),
        },
      },
      parent,
    );
    span.end(new Date(start + to));
  };
  chat(1, 200, "tool_calls");
  const tool = tracer.startSpan(
    "execute_tool refund",
    {
      startTime: new Date(start + 210),
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "refund",
        "gen_ai.tool.type": "function",
      },
    },
    parent,
  );
  if (n % 10 === 9) tool.setStatus({ code: SpanStatusCode.ERROR, message: "timed out" });
  tool.end(new Date(start + 260));
  chat(270, 500, "stop");
  root.end(new Date(start + 510));
}

/** Fresh spans for one round, in requests of 512 in the order a BatchSpanProcessor exports them. */
function roundSpans(round: number): ReadableSpan[][] {
  const recorder = new InMemorySpanExporter();
  // Variant B from the resource's customer: no outcome to open first, on either side.
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": "bench-agent", "verdict.customer_key": CUSTOMER }),
    spanProcessors: [new SimpleSpanProcessor(recorder)],
  });
  const tracer = provider.getTracer("bench");
  const conversations = (REQUESTS * SPANS_PER_REQUEST) / SPANS_PER_CONVERSATION;
  for (let c = 0; c < conversations; c++) conversation(tracer, `otlp-${round}-${c % 2000}`, c);
  const spans = recorder.getFinishedSpans();
  return Array.from({ length: REQUESTS }, (_, r) => spans.slice(r * SPANS_PER_REQUEST, (r + 1) * SPANS_PER_REQUEST));
}

/** The event the mapping documents for a span of roundSpans (docs/otlp.md), as POST /v1/events/batch takes it. */
function eventOf(span: ReadableSpan): Record<string, unknown> {
  const a = span.attributes;
  const { traceId, spanId } = span.spanContext();
  const operation = String(a["gen_ai.operation.name"]);
  const failed = span.status.code === SpanStatusCode.ERROR ? ".error" : "";
  const action =
    operation === "invoke_agent"
      ? `agent.${AGENT}`
      : operation === "execute_tool"
        ? `tool.${String(a["gen_ai.tool.name"])}${failed}`
        : operation;
  const durationMs = (span.endTime[0] - span.startTime[0]) * 1e3 + (span.endTime[1] - span.startTime[1]) / 1e6;
  const properties: Record<string, unknown> = { duration_ms: durationMs, value: 1, trace_id: traceId, span_id: spanId };
  if (operation === "chat") {
    const input = Number(a["gen_ai.usage.input_tokens"]);
    const output = Number(a["gen_ai.usage.output_tokens"]);
    Object.assign(properties, {
      model: "gpt-4o",
      provider: "openai",
      input_tokens: input,
      output_tokens: output,
      finish_reasons: a["gen_ai.response.finish_reasons"],
      value: input + output,
    });
  }
  if (operation === "execute_tool") properties.tool_type = "function";
  return {
    key: traceKeys.get(traceId),
    customer_key: CUSTOMER,
    agent_key: AGENT,
    action,
    properties,
    idempotency_key: `otlp:${traceId}:${spanId}`,
  };
}

/** Each trace's outcome key, from its root span: the children name none, they take their trace's. */
const traceKeys = new Map<string, string>();

function bodies(requests: ReadableSpan[][]): { traces: string[]; batches: string[]; bytes: number } {
  traceKeys.clear();
  for (const span of requests.flat()) {
    const key = span.attributes["gen_ai.conversation.id"];
    if (key !== undefined) traceKeys.set(span.spanContext().traceId, String(key));
  }
  const traces = requests.map((request) =>
    Buffer.from(ProtobufTraceSerializer.serializeRequest(request)!).toString("base64"),
  );
  const events = requests.flat().map(eventOf);
  const batches: string[] = [];
  for (let i = 0; i < events.length; i += BATCH) batches.push(JSON.stringify({ events: events.slice(i, i + BATCH) }));
  const bytes = traces.reduce((total, body) => total + Buffer.byteLength(body, "base64"), 0) / traces.length;
  return { traces, batches, bytes };
}

interface Round {
  side: "traces" | "batch";
  load: LoadResult;
  units: number;
  cpu: { ingress: number; ingressMain: number; redis: number };
}

function side(rounds: Round[]): OtlpSide {
  const perSecond = rounds.map((r) => r.units / r.load.seconds);
  const middle = [...rounds].sort((a, b) => a.units / a.load.seconds - b.units / b.load.seconds)[
    Math.floor(rounds.length / 2)
  ]!;
  const units = rounds.reduce((total, r) => total + r.units, 0);
  const micros = (pick: (r: Round) => number): number =>
    (rounds.reduce((total, r) => total + pick(r), 0) / units) * 1e6;
  return {
    perSecond: median(perSecond),
    rounds: perSecond,
    p50Ms: middle.load.p50Ms,
    p99Ms: middle.load.p99Ms,
    cpuMicros: {
      ingress: micros((r) => r.cpu.ingress),
      ingressMain: micros((r) => r.cpu.ingressMain),
      redis: micros((r) => r.cpu.redis),
    },
  };
}

async function main(): Promise<void> {
  console.error(`OTLP ingest bench: load average ${loadavg()[0]!.toFixed(1)} at the start`);
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-otlp-"));
  const redis = await startRedis(dir);
  const tokenSecret = randomBytes(32).toString("base64url");
  const { token } = await new Accounts(redis.admin, new Keys(KEY_PREFIX), tokenSecret).create("bench");
  const profileDir = process.env.OTLP_BENCH_PROFILE_DIR;
  const nodeArgs = profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`];
  const ingress = await spawnVerdict(
    "ingress",
    { redisUrl: redis.url, keyPrefix: KEY_PREFIX, tokenSecret, dataDir: join(dir, "data") },
    nodeArgs,
  );
  let made = 0;
  try {
    // One request before the rounds: every span is mapped, none rejected (an empty answer is full success).
    const probe = bodies(roundSpans(made++).slice(0, 1));
    const answer = await fetch(`http://127.0.0.1:${ingress.port}/v1/traces`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/x-protobuf" },
      body: Buffer.from(probe.traces[0]!, "base64"),
    });
    const answered = Buffer.from(await answer.arrayBuffer());
    if (answer.status !== 200 || answered.length !== 0)
      throw new Error(`POST /v1/traces answered ${answer.status} with ${answered.length} bytes (a partial success?)`);
    const batchProbe = await api(ingress.port, token, "POST", "/v1/events/batch", JSON.parse(probe.batches[0]!));
    if (batchProbe.status !== 202 || (batchProbe.body as { failed: unknown[] }).failed.length !== 0)
      throw new Error(`the batch route refused the mapped events: ${JSON.stringify(batchProbe.body)}`);

    let bodyBytes = 0;
    const measure = async (which: "traces" | "batch"): Promise<Round> => {
      const round = bodies(roundSpans(made++));
      bodyBytes = round.bytes;
      const pid = ingress.child.pid;
      const before = {
        ingress: cpuSecondsOf(pid),
        ingressMain: cpuSecondsOf(pid, pid),
        redis: cpuSecondsOf(redis.child.pid),
      };
      const common = { port: ingress.port, token, connections: CONNECTIONS };
      const result =
        which === "traces"
          ? await load(dir, {
              ...common,
              path: "/v1/traces",
              contentType: "application/x-protobuf",
              bodies: round.traces,
              maxRequests: round.traces.length,
              expectStatus: 200,
            })
          : await load(dir, {
              ...common,
              path: "/v1/events/batch",
              bodies: round.batches,
              maxRequests: round.batches.length,
              expectStatus: 202,
              expectBody: '"failed":[]',
            });
      if (result.errors > 0)
        throw new Error(`${which}: ${result.errors} of ${result.requests} requests not fully accepted`);
      const cpu = {
        ingress: cpuSecondsOf(pid) - before.ingress,
        ingressMain: cpuSecondsOf(pid, pid) - before.ingressMain,
        redis: cpuSecondsOf(redis.child.pid) - before.redis,
      };
      return { side: which, load: result, units: REQUESTS * SPANS_PER_REQUEST, cpu };
    };
    // One unmeasured round per side first: the OTLP path's code is compiled and optimised in its first
    // round, which would otherwise fall on the traces side of the first pair only.
    for (let i = 0; i < WARMUP_ROUNDS; i++) for (const which of ["traces", "batch"] as const) await measure(which);
    const measured = await rotatingRounds(["traces", "batch"] as const, ROUNDS, measure);
    const [traces, batch] = measured.map(side);
    const ratio = median(
      measured[0]!.map((t, i) => t.units / t.load.seconds / (measured[1]![i]!.units / measured[1]![i]!.load.seconds)),
    );
    const figures: OtlpFigures = {
      traces: traces!,
      batch: batch!,
      ratio,
      spansPerRound: REQUESTS * SPANS_PER_REQUEST,
      bodyBytes: Math.round(bodyBytes),
    };
    const cpu = (c: OtlpSide["cpuMicros"]): string =>
      `ingress ${c.ingress.toFixed(1)} µs (main thread ${c.ingressMain.toFixed(1)}), Redis ${c.redis.toFixed(1)} µs`;
    const pairs = figures.traces.rounds.map((r, i) => (r / figures.batch.rounds[i]!).toFixed(2)).join(", ");
    console.error(
      [
        `POST /v1/traces        ${Math.round(traces!.perSecond)} spans/s; CPU per span: ${cpu(traces!.cpuMicros)}`,
        `POST /v1/events/batch  ${Math.round(batch!.perSecond)} events/s; CPU per event: ${cpu(batch!.cpuMicros)}`,
        `traces / batch ${ratio.toFixed(3)}x (median of round pairs ${pairs}); bound: at least ${RATIO_BOUND}x ` +
          `(issue 39): ${ratio >= RATIO_BOUND ? "MET" : "NOT MET"}; load average ${loadavg()[0]!.toFixed(1)} at the end`,
      ].join("\n"),
    );
    console.log(JSON.stringify(figures));
  } finally {
    await stopChild(ingress.child, "SIGTERM");
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
