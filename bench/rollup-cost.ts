// `npm run bench:rollup-cost`: what insight rollups add to row 3 of `npm run bench` (issue 40: at most 3%).
// Builds the checked-out commit a second time in a throwaway git worktree under the temp dir with rollups cut
// out (stageRollups and RollupDelta's recorders return at once: no rollup operation, no verdict cause or
// false-clause evaluation), then runs row 3 (`BENCH_ONLY=e2e node dist/bench/run.js`) in this tree and in
// that one by turns, the order alternating. Prints each run's events/s and CPU µs per event of the worker
// and of Redis (from /proc, as row 3 reports them), the medians and their ratios, and the load average.
// ROLLUP_COST_PAIRS (default 4) sets the pairs; BENCH_SECONDS and BENCH_E2E_CONDITION pass through to row 3
// (row 3's events make no verdict; `BENCH_SECONDS=2 BENCH_E2E_CONDITION='COUNT(step)>=10'` makes every
// outcome's last event its verdict). The cut tree is HEAD: commit what you measure.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { median, runMain } from "./harness.js";

const PAIRS = Number(process.env.ROLLUP_COST_PAIRS ?? 4);
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run {
  rollups: boolean;
  eventsPerSecond: number;
  workerUs: number;
  redisUs: number;
  load: number;
}

/**
 * Makes each named function return at its start, failing loudly when the code moved (a condition the
 * compiler cannot fold, so the rest stays reachable and type-checks as it did).
 */
function cut(file: string, heads: readonly string[]): void {
  let source = readFileSync(file, "utf8");
  for (const head of heads) {
    if (!source.includes(head)) throw new Error(`${file}: "${head}" not found; update bench/rollup-cost.ts`);
    source = source.replace(head, `${head}\n    if (Date.now() > 0) return;`);
  }
  writeFileSync(file, source);
}

/** This commit, built again with rollups cut out, in a worktree of its own. */
function buildWithoutRollups(tree: string): void {
  execFileSync("git", ["-C", ROOT, "worktree", "add", "--detach", tree, "HEAD"], { stdio: "inherit" });
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  cut(join(tree, "src/actors/rollup-staging.ts"), [
    "export function stageRollups(commit: BatchCommit, keys: Keys, shard: number): void {",
  ]);
  cut(join(tree, "src/outcomes/insight-rollup.ts"), [
    "  opened(record: OutcomeRecord): void {",
    "  verdict(record: OutcomeRecord): void {",
    "  charge(accountId: string, charge: ChargeRecord): void {",
    "  deadLetter(letter: DeadLetterRecord, record: OutcomeRecord | undefined): void {",
  ]);
  execFileSync("npm", ["run", "build"], { cwd: tree, stdio: "inherit" });
}

const ROW3 =
  /([\d,]+) events\/s \(([\d,]+) events in [\d.]+ s[^)]*\)\. CPU seconds used meanwhile: ingress [\d.]+, worker ([\d.]+), Redis ([\d.]+)/;

async function row3(tree: string, rollups: boolean): Promise<Run> {
  const load = loadavg()[0]!;
  const { stdout: output } = await promisify(execFile)("node", ["dist/bench/run.js"], {
    cwd: tree,
    env: { ...process.env, BENCH_ONLY: "e2e" },
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const found = ROW3.exec(output);
  if (!found) throw new Error(`no row 3 in the output of ${tree}:\n${output.slice(-2000)}`);
  const events = Number(found[2]!.replaceAll(",", ""));
  return {
    rollups,
    eventsPerSecond: Number(found[1]!.replaceAll(",", "")),
    workerUs: (Number(found[3]) / events) * 1e6,
    redisUs: (Number(found[4]) / events) * 1e6,
    load,
  };
}

function show(run: Run): string {
  return `${run.rollups ? "with   " : "without"}  ${Math.round(run.eventsPerSecond).toLocaleString("en").padStart(8)} events/s  worker ${run.workerUs.toFixed(2)} µs/event  Redis ${run.redisUs.toFixed(2)} µs/event  (load ${run.load.toFixed(1)})`;
}

async function main(): Promise<void> {
  if (!existsSync(join(ROOT, "dist/bench/run.js"))) throw new Error("build this tree first (npm run build)");
  const runs: Run[] = [];
  const without = join(mkdtempSync(join(tmpdir(), "verdict-no-rollups-")), "tree");
  try {
    buildWithoutRollups(without);
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? [true, false] : [false, true];
      for (const rollups of order) {
        const run = await row3(rollups ? ROOT : without, rollups);
        runs.push(run);
        console.log(show(run));
      }
    }
  } finally {
    if (existsSync(without))
      execFileSync("git", ["-C", ROOT, "worktree", "remove", "--force", without], { stdio: "inherit" });
    rmSync(join(without, ".."), { recursive: true, force: true });
  }
  const of = (rollups: boolean, pick: (run: Run) => number): number =>
    median(runs.filter((run) => run.rollups === rollups).map(pick));
  const ratio = (pick: (run: Run) => number): string => (of(true, pick) / of(false, pick)).toFixed(3);
  console.log(
    `medians of ${PAIRS} pairs, with / without rollups: events/s ${ratio((r) => r.eventsPerSecond)}x, worker CPU per event ${ratio((r) => r.workerUs)}x, Redis CPU per event ${ratio((r) => r.redisUs)}x (bound: at most 1.03x CPU, at least 0.97x events/s); load average now ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}

runMain(main);
