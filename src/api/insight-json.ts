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

/** A point's fields after `opened`, in InsightPoint's order. */
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

/** One group's points, each `{"start":…,"opened":…,…,"charges":{…}}` (with its percentiles when kept). */
function writeSeries(out: JsonBytes, sums: GroupSums, openings: readonly Buffer[]): void {
  const currencies = [...sums.charges].map(([currency, amounts]) => ({
    name: `${JSON.stringify(currency)}:`,
    amounts,
  }));
  const { opened, confirmed, failed, forced, deadLetters, bucketHistograms } = sums;
  for (let i = 0; i < openings.length; i++) {
    if (i > 0) out.byte(COMMA);
    out.bytes(openings[i]!);
    out.number(opened[i]!);
    out.bytes(FIELD.confirmed);
    out.number(confirmed[i]!);
    out.bytes(FIELD.failed);
    out.number(failed[i]!);
    out.bytes(FIELD.forced);
    out.number(forced[i]!);
    out.bytes(FIELD.deadLetters);
    out.number(deadLetters[i]!);
    out.bytes(FIELD.charges);
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
  out.text(`${JSON.stringify(head).slice(0, -1)},"groups":[`);
  groups.forEach(({ key, sums }, index) => {
    out.text(`${index === 0 ? "" : ","}{"key":${JSON.stringify(key)},"series":[`);
    writeSeries(out, sums, openings);
    out.text(`],"totals":${JSON.stringify(totalsOf(sums))},"failing_clauses":${JSON.stringify(failingClauses(sums))}}`);
  });
  out.text("]}");
  return out.done();
}
