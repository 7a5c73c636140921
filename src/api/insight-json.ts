// The body of GET /v1/insights written as JSON bytes straight from the typed sums: a large answer's points
// are never objects or strings. Field order is InsightsView's (docs/api.md#insights).
import { failingClauses, percentiles, totalsOf, type GroupResult } from "./insight-series.js";
import { HISTOGRAM_SIZE, type GroupSums } from "./insight-sums.js";
import { asciiBytes, JsonBytes } from "./json-bytes.js";

/** The answer's fields before its groups, in InsightsView's order. */
export interface InsightsHead {
  bucket: string;
  from: string;
  to: string;
  tz: string;
  groups_total: number;
}

/** A point's fields after `start`, in InsightPoint's order, up to the charges' opening brace. */
const FIELD = {
  confirmed: asciiBytes(',"confirmed":'),
  failed: asciiBytes(',"failed":'),
  forced: asciiBytes(',"forced":'),
  deadLetters: asciiBytes(',"dead_letters":'),
  charges: asciiBytes(',"charges":{'),
};
/** The bytes of a JSON point's size, for the buffer's first guess. */
const POINT_BYTES = 128;
const COMMA = 0x2c;
const CLOSE = 0x7d;
/** Counts up to this (exclusive, a power of two) make a point's counts one number, its key among the runs. */
const SMALL = 1024;
/** Most distinct runs formatted per answer; the rest are written number by number. */
const MAX_RUNS = 4096;

/**
 * A point's counts (opened to dead_letters) written as JSON, each distinct run of small counts formatted
 * once per answer: hours repeat the same few small counts, mostly zeros, so most points copy one run.
 */
class CountRuns {
  private readonly formatted = new Map<number, Buffer>();

  constructor(private readonly out: JsonBytes) {}

  write(opened: number, confirmed: number, failed: number, forced: number, deadLetters: number): void {
    // `x & (SMALL - 1)` equals x only for a whole number in [0, SMALL) (NaN gives 0, not NaN).
    const small =
      (opened & (SMALL - 1)) === opened &&
      (confirmed & (SMALL - 1)) === confirmed &&
      (failed & (SMALL - 1)) === failed &&
      (forced & (SMALL - 1)) === forced &&
      (deadLetters & (SMALL - 1)) === deadLetters;
    if (!small) return writeCounts(this.out, opened, confirmed, failed, forced, deadLetters);
    const key = (((opened * SMALL + confirmed) * SMALL + failed) * SMALL + forced) * SMALL + deadLetters;
    let run = this.formatted.get(key);
    if (run === undefined) {
      if (this.formatted.size >= MAX_RUNS) return writeCounts(this.out, opened, confirmed, failed, forced, deadLetters);
      const bytes = new JsonBytes(POINT_BYTES);
      writeCounts(bytes, opened, confirmed, failed, forced, deadLetters);
      this.formatted.set(key, (run = Buffer.from(bytes.done())));
    }
    this.out.bytes(run);
  }
}

/** `<opened>,"confirmed":…,"dead_letters":<n>,"charges":{`. */
function writeCounts(
  out: JsonBytes,
  opened: number,
  confirmed: number,
  failed: number,
  forced: number,
  deadLetters: number,
): void {
  out.number(opened);
  out.bytes(FIELD.confirmed);
  out.number(confirmed);
  out.bytes(FIELD.failed);
  out.number(failed);
  out.bytes(FIELD.forced);
  out.number(forced);
  out.bytes(FIELD.deadLetters);
  out.number(deadLetters);
  out.bytes(FIELD.charges);
}

/** One group's points, each `{"start":…,"opened":…,…,"charges":{…}}` (with its percentiles when kept). */
function writeSeries(out: JsonBytes, runs: CountRuns, sums: GroupSums, openings: readonly Buffer[]): void {
  const currencies = [...sums.charges].map(([currency, amounts]) => ({
    name: `${JSON.stringify(currency)}:`,
    amounts,
  }));
  const { opened, confirmed, failed, forced, deadLetters, bucketHistograms } = sums;
  for (let i = 0; i < openings.length; i++) {
    if (i > 0) out.byte(COMMA);
    out.bytes(openings[i]!);
    runs.write(opened[i]!, confirmed[i]!, failed[i]!, forced[i]!, deadLetters[i]!);
    let first = true;
    for (const { name, amounts } of currencies) {
      if (amounts[i]! === 0) continue;
      out.text(first ? name : `,${name}`);
      out.number(amounts[i]!);
      first = false;
    }
    out.byte(CLOSE);
    if (bucketHistograms)
      out.text(
        `,"time_to_verdict_ms":${JSON.stringify(percentiles(bucketHistograms.subarray(i * HISTOGRAM_SIZE, (i + 1) * HISTOGRAM_SIZE)))}`,
      );
    out.byte(CLOSE);
  }
}

/** The whole answer as JSON bytes: `head`'s fields, then `groups` with a point per bucket start. */
export function insightsJson(head: InsightsHead, groups: readonly GroupResult[], starts: readonly number[]): Buffer {
  // Each point's opening, formatted once for every group.
  const openings = starts.map((start) => asciiBytes(`{"start":"${new Date(start).toISOString()}","opened":`));
  const out = new JsonBytes(groups.length * starts.length * POINT_BYTES);
  const runs = new CountRuns(out);
  out.text(`${JSON.stringify(head).slice(0, -1)},"groups":[`);
  groups.forEach(({ key, sums }, index) => {
    out.text(`${index === 0 ? "" : ","}{"key":${JSON.stringify(key)},"series":[`);
    writeSeries(out, runs, sums, openings);
    out.text(`],"totals":${JSON.stringify(totalsOf(sums))},"failing_clauses":${JSON.stringify(failingClauses(sums))}}`);
  });
  out.text("]}");
  return out.done();
}
