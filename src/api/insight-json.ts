// The body of GET /v1/insights written as JSON straight from the typed sums: a large answer's points are
// never objects, and the text is joined once. Field order is InsightsView's (docs/api.md#insights).
import { failingClauses, percentiles, totalsOf, type GroupResult } from "./insight-series.js";
import { HISTOGRAM_SIZE, type GroupSums } from "./insight-sums.js";

/** The answer's fields before its groups, in InsightsView's order. */
export interface InsightsHead {
  bucket: string;
  from: string;
  to: string;
  tz: string;
  groups_total: number;
}

/** One group's points, each `{"start":…,"opened":…,…,"charges":{…}}` (with its percentiles when kept). */
function writeSeries(parts: string[], sums: GroupSums, starts: readonly string[]): void {
  const currencies = [...sums.charges].map(([currency, amounts]) => ({ name: JSON.stringify(currency), amounts }));
  const { opened, confirmed, failed, forced, deadLetters, bucketHistograms } = sums;
  for (let i = 0; i < starts.length; i++) {
    let charges = "";
    for (const { name, amounts } of currencies) {
      const amount = amounts[i]!;
      if (amount !== 0) charges += `${charges === "" ? "" : ","}${name}:${amount}`;
    }
    const histogram = bucketHistograms ? `,"time_to_verdict_ms":${JSON.stringify(percentiles(bucketHistograms.subarray(i * HISTOGRAM_SIZE, (i + 1) * HISTOGRAM_SIZE)))}` : "";
    parts.push(
      `${i === 0 ? "" : ","}${starts[i]}${opened[i]},"confirmed":${confirmed[i]},"failed":${failed[i]},"forced":${forced[i]},"dead_letters":${deadLetters[i]},"charges":{${charges}}${histogram}}`,
    );
  }
}

/** The whole answer as JSON text: `head`'s fields, then `groups` with a point per bucket start. */
export function insightsJson(head: InsightsHead, groups: readonly GroupResult[], starts: readonly number[]): string {
  // Each point's opening, formatted once for every group.
  const openings = starts.map((start) => `{"start":"${new Date(start).toISOString()}","opened":`);
  const headText = JSON.stringify(head);
  const parts: string[] = [headText.slice(0, -1), ',"groups":['];
  groups.forEach(({ key, sums }, index) => {
    parts.push(`${index === 0 ? "" : ","}{"key":${JSON.stringify(key)},"series":[`);
    writeSeries(parts, sums, openings);
    parts.push(`],"totals":${JSON.stringify(totalsOf(sums))},"failing_clauses":${JSON.stringify(failingClauses(sums))}}`);
  });
  parts.push("]}");
  return parts.join("");
}
