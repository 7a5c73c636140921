// The load of `npm run bench:client` in one Node process: `events` events over `outcomes` outcomes, sent one
// of three ways. `plain`: a fetch loop of 500-event batches, `inFlight` requests at once, no retries, no
// ordering; with `keys`, it gives each event a random idempotency_key, as a careful hand-written loop would.
// `client`: verdict/client, an agent loop per outcome awaiting each `track` (docs/client.md), with
// `idempotency` auto (guarantees on) or off. Prints {events, requests, accepted, failed, seconds, cpuSeconds}
// as JSON; CPU is this process's own (user + system).
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { VerdictClient } from "../src/client/index.js";

export interface ClientLoadSpec {
  mode: "client" | "plain";
  port: number;
  token: string;
  events: number;
  /** Outcome keys `${prefix}-${i}`, i below this; event n goes to outcome n mod outcomes. */
  outcomes: number;
  prefix: string;
  inFlight: number;
  /** `client`: its idempotency option; `plain`: "auto" sends a random key with each event, "off" none. */
  idempotency: "auto" | "off";
  /** `client`: the `dist` folder of another build whose client to drive instead of this build's (a baseline). */
  clientDist?: string;
}

export interface ClientLoadResult {
  events: number;
  /** Batch requests sent. */
  requests: number;
  accepted: number;
  failed: number;
  seconds: number;
  cpuSeconds: number;
}

const BATCH = 500;

interface BenchEvent {
  outcome_key: string;
  action: string;
  properties: { value: number };
  idempotency_key?: string;
}

function eventAt(spec: ClientLoadSpec, n: number): BenchEvent {
  return { outcome_key: `${spec.prefix}-${n % spec.outcomes}`, action: "step", properties: { value: n } };
}

let requests = 0;
const countingFetch: typeof fetch = (input, init) => {
  requests++;
  return fetch(input, init);
};

async function plain(spec: ClientLoadSpec): Promise<{ accepted: number; failed: number }> {
  const url = `http://127.0.0.1:${spec.port}/v1/events/batch`;
  const headers = { authorization: `Bearer ${spec.token}`, "content-type": "application/json" };
  let next = 0;
  let accepted = 0;
  let failed = 0;
  async function lane(): Promise<void> {
    while (next < spec.events) {
      const from = next;
      next = Math.min(spec.events, next + BATCH);
      const events: BenchEvent[] = [];
      for (let n = from; n < next; n++) {
        const event = eventAt(spec, n);
        if (spec.idempotency === "auto") event.idempotency_key = randomUUID();
        events.push(event);
      }
      const response = await countingFetch(url, { method: "POST", headers, body: JSON.stringify({ events }) });
      const body = (await response.json()) as { accepted?: number; failed?: unknown[] };
      if (response.status === 202) {
        accepted += body.accepted ?? 0;
        failed += body.failed?.length ?? 0;
      } else failed += events.length;
    }
  }
  await Promise.all(Array.from({ length: spec.inFlight }, () => lane()));
  return { accepted, failed };
}

/** A fleet: one agent loop per outcome, each awaiting its own events one after another, as docs/client.md shows. */
async function withClient(
  spec: ClientLoadSpec,
  Client: typeof VerdictClient,
): Promise<{ accepted: number; failed: number }> {
  const client = new Client({
    baseUrl: `http://127.0.0.1:${spec.port}`,
    token: spec.token,
    maxInFlight: spec.inFlight,
    fetch: countingFetch,
    idempotency: spec.idempotency,
  });
  let failed = 0;
  async function agent(outcome: number): Promise<void> {
    for (let n = outcome; n < spec.events; n += spec.outcomes) {
      try {
        await client.track(eventAt(spec, n));
      } catch {
        failed++;
      }
    }
  }
  await Promise.all(Array.from({ length: spec.outcomes }, (_, outcome) => agent(outcome)));
  await client.close();
  return { accepted: client.stats().accepted, failed };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as ClientLoadSpec;
  // Loaded before the clock starts, as this build's client is.
  const Client =
    spec.clientDist === undefined
      ? VerdictClient
      : (
          (await import(pathToFileURL(join(spec.clientDist, "src/client/index.js")).href)) as {
            VerdictClient: typeof VerdictClient;
          }
        ).VerdictClient;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { accepted, failed } = spec.mode === "client" ? await withClient(spec, Client) : await plain(spec);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const result: ClientLoadResult = {
    events: spec.events,
    requests,
    accepted,
    failed,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
  process.stdout.write(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
