// `npm run bench:client`: verdict/client against the service as `npm start` runs it (one `serve` process,
// role all, default shards), beside a plain fetch loop of 500-event batches with as many requests in flight,
// each with and without idempotency keys (keys make the service claim each one, which costs it time
// whoever sends them). Each run is a fresh Node process sending the same events over the same outcomes. It
// starts once the service's workers have applied everything the run before it sent (that backlog would
// otherwise take the machine from whichever sender runs next), and with no idempotency claims (each run's 10
// claims per outcome would pile up in the outcomes' hashes, whose lookups Redis scans linearly up to 128
// fields, so a run's cost would depend on the keyed runs before it). Rounds rotate the order so all see the
// same machine. Prints events/s and the sender's own CPU per event for each, and the client's rate as a
// share of the plain loop's.
//
// CLIENT_BENCH_EVENTS (default 100,000) events per run over CLIENT_BENCH_OUTCOMES (default 10,000) open
// outcomes; CLIENT_BENCH_ROUNDS (default 5) rounds of each (short runs, many rounds: this host is shared).
// BENCH_BASE_DIST (the `dist` folder of a baseline build, as for `npm run bench:ab`) adds that build's client
// with and without keys to the rounds, so a change to the client is measured before and after in one run.
// CLIENT_BENCH_PROFILE_DIR=dir runs each counted sender under `node --cpu-prof`, its profile written there.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { Accounts } from "../src/accounts/accounts.js";
import { VerdictClient } from "../src/client/index.js";
import { Keys } from "../src/redis/keys.js";
import type { ClientLoadResult, ClientLoadSpec } from "./client-load.js";
import { median, runJsonChild, runMain, serveDrained, spawnVerdict, startRedis, stopChild } from "./harness.js";

const EVENTS = Number(process.env.CLIENT_BENCH_EVENTS ?? 100_000);
const OUTCOMES = Number(process.env.CLIENT_BENCH_OUTCOMES ?? 10_000);
const ROUNDS = Number(process.env.CLIENT_BENCH_ROUNDS ?? 5);
const IN_FLIGHT = 8;
const KEY_PREFIX = "bench:";
const TOKEN_SECRET = randomBytes(32).toString("base64url");
const BASE_DIST = process.env.BENCH_BASE_DIST;
const PROFILE_DIR = process.env.CLIENT_BENCH_PROFILE_DIR;

/** Deletes every outcome's idempotency hash, so each run claims its keys into empty ones. */
async function forgetIdempotencyClaims(redis: Redis): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${KEY_PREFIX}*:idem:*`, "COUNT", 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = next;
  } while (cursor !== "0");
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-bench-client-"));
  const redis = await startRedis(dir);
  const { token } = await new Accounts(redis.admin, new Keys(KEY_PREFIX), TOKEN_SECRET).create("bench");
  const verdict = await spawnVerdict("all", {
    redisUrl: redis.url,
    keyPrefix: KEY_PREFIX,
    tokenSecret: TOKEN_SECRET,
    dataDir: join(dir, "verdict-data"),
  });
  try {
    const setup = new VerdictClient({ baseUrl: `http://127.0.0.1:${verdict.port}`, token });
    await setup.tasks.put("bench", { name: "Client bench", condition: "never_sent" });
    const prefix = "client-bench";
    for (let from = 0; from < OUTCOMES; from += 64) {
      await Promise.all(
        Array.from({ length: Math.min(64, OUTCOMES - from) }, (_, i) =>
          setup.outcomes.open({ key: `${prefix}-${from + i}`, task_key: "bench" }),
        ),
      );
    }
    const spec = { port: verdict.port, token, events: EVENTS, outcomes: OUTCOMES, prefix, inFlight: IN_FLIGHT };
    console.log(
      `${EVENTS.toLocaleString("en")} events over ${OUTCOMES.toLocaleString("en")} outcomes per run, ${IN_FLIGHT} requests in flight, ${ROUNDS} rounds of each sender`,
    );
    const variants: {
      label: string;
      mode: ClientLoadSpec["mode"];
      idempotency: ClientLoadSpec["idempotency"];
      clientDist?: string;
    }[] = [
      { label: "plain fetch loop, 500-event batches, no keys", mode: "plain", idempotency: "off" },
      {
        label: "plain fetch loop, 500-event batches, a random idempotency_key per event",
        mode: "plain",
        idempotency: "auto",
      },
      { label: "verdict/client, idempotency off (ordered retries, no keys)", mode: "client", idempotency: "off" },
      {
        label: "verdict/client, guarantees on (auto UUID v7 keys, ordered retries)",
        mode: "client",
        idempotency: "auto",
      },
    ];
    if (BASE_DIST !== undefined) {
      variants.push(
        {
          label: "baseline build's verdict/client, idempotency off",
          mode: "client",
          idempotency: "off",
          clientDist: BASE_DIST,
        },
        {
          label: "baseline build's verdict/client, guarantees on",
          mode: "client",
          idempotency: "auto",
          clientDist: BASE_DIST,
        },
      );
    }
    const specOf = (variant: (typeof variants)[number]): ClientLoadSpec => ({
      ...spec,
      mode: variant.mode,
      idempotency: variant.idempotency,
      ...(variant.clientDist !== undefined && { clientDist: variant.clientDist }),
    });
    const runs = variants.map(() => [] as ClientLoadResult[]);
    // A warm-up run of each (JIT, connection pools, the service's hot outcomes), not counted.
    for (const variant of variants) {
      await serveDrained(verdict.metricsPort);
      await forgetIdempotencyClaims(redis.admin);
      await runJsonChild<ClientLoadResult>("client-load", specOf(variant));
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts one variant later, so none always runs first or last.
      for (let k = 0; k < variants.length; k++) {
        const i = (round + k) % variants.length;
        const variant = variants[i]!;
        const profile =
          PROFILE_DIR === undefined
            ? []
            : [
                "--cpu-prof",
                `--cpu-prof-dir=${PROFILE_DIR}`,
                `--cpu-prof-name=${variant.mode}-${variant.idempotency}-${i}-round${round + 1}.cpuprofile`,
              ];
        await serveDrained(verdict.metricsPort);
        await forgetIdempotencyClaims(redis.admin);
        const result = await runJsonChild<ClientLoadResult>("client-load", specOf(variant), profile);
        if (result.accepted !== EVENTS || result.failed !== 0)
          throw new Error(`${variant.label}: ${result.accepted} accepted, ${result.failed} failed of ${EVENTS}`);
        runs[i]!.push(result);
        console.log(
          `  round ${round + 1}  ${Math.round(EVENTS / result.seconds)
            .toLocaleString("en")
            .padStart(
              7,
            )} events/s  ${((result.cpuSeconds / EVENTS) * 1e6).toFixed(2).padStart(6)} µs CPU/event  ${result.requests} requests  ${variant.label}`,
        );
      }
    }
    const rate = (i: number): number => median(runs[i]!.map((r) => EVENTS / r.seconds));
    const cpu = (i: number): number => median(runs[i]!.map((r) => (r.cpuSeconds / EVENTS) * 1e6));
    console.log("");
    console.log("| sender | events/s (median) | sender CPU per event (median) |");
    console.log("|---|---|---|");
    variants.forEach((variant, i) =>
      console.log(`| ${variant.label} | ${Math.round(rate(i)).toLocaleString("en")} | ${cpu(i).toFixed(2)} µs |`),
    );
    console.log("");
    const share = (a: number, b: number): string => `${((rate(a) / rate(b)) * 100).toFixed(1)}%`;
    // A round lasts 2-3 s and single rounds of one sender differ by a third here; all of a sender's events
    // over all of its seconds is the steadier comparison, printed beside the ratio of the medians.
    const pooledRate = (i: number): number =>
      (EVENTS * runs[i]!.length) / runs[i]!.reduce((sum, r) => sum + r.seconds, 0);
    const pooledShare = (a: number, b: number): string => `${((pooledRate(a) / pooledRate(b)) * 100).toFixed(1)}%`;
    console.log(
      `client with guarantees / plain loop with keys: ${share(3, 1)} of its rate (the same service work per event); over all rounds ${pooledShare(3, 1)}`,
    );
    console.log(`client with keys off / plain loop without keys: ${share(2, 0)}`);
    console.log(
      `client with guarantees / plain loop without keys: ${share(3, 0)} (the service's idempotency claims included)`,
    );
    if (BASE_DIST !== undefined) {
      const cpuChange = (a: number, b: number): string => `${(((cpu(a) - cpu(b)) / cpu(b)) * 100).toFixed(1)}%`;
      console.log(`baseline build's client with guarantees / plain loop with keys: ${share(5, 1)}`);
      console.log(
        `this build's client CPU per event against the baseline's: ${cpuChange(3, 5)} with guarantees, ${cpuChange(2, 4)} with keys off`,
      );
    }
  } finally {
    await stopChild(verdict.child, "SIGTERM");
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

runMain(main);
