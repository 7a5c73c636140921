// What an outcome's snapshot size costs each commit that changes it: the worker packs the whole snapshot,
// sends it as a script argument that writes it (as commit.lua does), and a worker that does not hold the
// outcome reads and unpacks it. The caps of docs/configuration.md (Outcome caps) were chosen from these.
// Then what the caps' checks add to an event the fast way (far from the snapshot cap), in ns.
// Run with `npm run bench:snapshot`; prints the median of 15 rounds per size, in ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newOutcomeRecord } from "../src/outcomes/new-outcome.js";
import { DEFAULT_OUTCOME_CAPS, eventOverCap, snapshotRoom, type EventLimits } from "../src/outcomes/outcome-caps.js";
import {
  boundSnapshotBytes,
  packOutcome,
  snapshotBytesAtMost,
  unpackOutcome,
  type OutcomeRecord,
} from "../src/outcomes/outcome-record.js";
import { packEnvelope, type EventEnvelope } from "../src/streams/event-envelope.js";
import { median, runMain, startRedis } from "./harness.js";
import { measure } from "./micro.js";

const KIB = 1024;
const SIZES = [1 * KIB, 16 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 1024 * KIB, 4096 * KIB, 25_000 * KIB];
/** The reproducer's value size: an outcome grows by values of this size, one per action. */
const CHUNK = 250 * KIB;
const ROUNDS = 15;
const WRITE = "redis.call('SET', KEYS[1], ARGV[1]) return 1";

/** An outcome whose observations carry string values adding up to about `bytes`. */
function outcomeOf(bytes: number): OutcomeRecord {
  const record = newOutcomeRecord({
    accountId: "acct",
    key: "k",
    origin: { kind: "task", taskKey: "t" },
    goal: null,
    condition: "a AND b",
    settlementPeriodMs: null,
    settlesAt: null,
    at: 0,
  });
  for (let i = 0; i * CHUNK < bytes; i++) {
    const lastValue = "x".repeat(Math.min(CHUNK, bytes - i * CHUNK));
    record.observations[`action_${i}`] = { count: 1, hasValue: true, lastValue, lastAt: 0 };
  }
  return record;
}

/** The checks applyEventToOutcome makes for the caps on an event of a known action, a small value and a small snapshot. */
function measureChecks(): void {
  const record = outcomeOf(0);
  record.observations.agent_response = { count: 1, hasValue: true, lastValue: 3, lastAt: 0 };
  const event: EventEnvelope = {
    accountId: "acct",
    outcomeKey: "k",
    variant: "A",
    action: "agent_response",
    properties: { value: 4 },
    receivedAt: 1,
  };
  const limits: EventLimits = { caps: DEFAULT_OUTCOME_CAPS, envelopeBytes: packEnvelope(event).length };
  const base = packOutcome(record).length;
  measure("caps' checks per event", 1_000_000, () => {
    boundSnapshotBytes(record, snapshotBytesAtMost(record) + snapshotRoom(record, limits.envelopeBytes));
    if (eventOverCap(record, event, limits)) throw new Error("unexpected refusal");
    boundSnapshotBytes(record, base);
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "verdict-snapshot-"));
  const redis = await startRedis(dir);
  try {
    console.log("snapshot bytes | pack ms | write ms | read+unpack ms | total ms");
    for (const size of SIZES) {
      const record = outcomeOf(size);
      const pack: number[] = [];
      const write: number[] = [];
      const read: number[] = [];
      let bytes = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const t0 = performance.now();
        const snapshot = packOutcome(record);
        const t1 = performance.now();
        await redis.admin.eval(WRITE, 1, "{0}:snapshot", snapshot);
        const t2 = performance.now();
        const loaded = await redis.admin.getBuffer("{0}:snapshot");
        if (loaded) unpackOutcome(loaded);
        const t3 = performance.now();
        bytes = snapshot.length;
        pack.push(t1 - t0);
        write.push(t2 - t1);
        read.push(t3 - t2);
      }
      const [p, w, r] = [median(pack), median(write), median(read)];
      console.log(
        `${String(bytes).padStart(14)} | ${p.toFixed(2).padStart(7)} | ${w.toFixed(2).padStart(8)} | ${r.toFixed(2).padStart(14)} | ${(p + w + r).toFixed(2).padStart(8)}`,
      );
    }
  } finally {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  measureChecks();
}

runMain(main);
