// What both chart kinds share: the plot area, round axis ticks, bucket labels, and the figure that holds
// the SVG, its caption and the table of its numbers (the copyable, screen-reader form of the picture).
import { html, type Html } from "../html.js";

/** Drawing size in SVG units; the stylesheet scales the SVG to its column. */
export const WIDTH = 560;
export const HEIGHT = 200;
export const PLOT = { left: 52, right: 8, top: 12, bottom: 26 } as const;
export const PLOT_WIDTH = WIDTH - PLOT.left - PLOT.right;
export const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;

/** One time bucket as the API names it (`start`) and as a person reads it (`label`). */
export interface Bucket {
  start: string;
  label: string;
}

export interface TableColumn {
  label: string;
  values: readonly string[];
}

/** Steps a clock is read in (ms): a duration axis ticks at 15 min or 1 h, never at 16.7 min. */
export const DURATION_STEPS_MS: readonly number[] = [
  ...[1, 2, 5, 10, 20, 50, 100, 200, 500],
  ...[1, 2, 5, 10, 15, 30].map((s) => s * 1000),
  ...[1, 2, 5, 10, 15, 30].map((m) => m * 60_000),
  ...[1, 2, 3, 6, 12].map((h) => h * 3_600_000),
  ...[1, 2, 7].map((d) => d * 86_400_000),
];

/**
 * Ticks at 1, 2 or 5 times a power of ten (or at the first of `steps` large enough), at most `count` steps
 * up to a top at or above `max`; counts pass `minStep` 1 so no tick reads "0.5 outcomes".
 */
export function niceTicks(max: number, count = 4, minStep = 0, steps?: readonly number[]): number[] {
  if (!(max > 0)) return [0, Math.max(1, minStep)];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const decimal = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!;
  const step = Math.max(minStep, steps?.find((s) => s >= rough) ?? decimal);
  const ticks: number[] = [];
  for (let i = 0; i * step < max + step * 1e-9; i++) ticks.push(round(i * step));
  if (ticks[ticks.length - 1]! < max) ticks.push(round(ticks.length * step));
  return ticks;
}

function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/** The y coordinate of `value` on a plot whose top is `top`. */
export function yOf(value: number, top: number): number {
  return PLOT.top + PLOT_HEIGHT - (top === 0 ? 0 : (value / top) * PLOT_HEIGHT);
}

/** Gridlines with their labels, and a label under every bucket a reader can tell apart from its neighbours. */
export function axes(ticks: readonly number[], format: (value: number) => string, buckets: readonly Bucket[]): Html {
  const top = ticks[ticks.length - 1]!;
  const grid = ticks.map((tick) => {
    const y = yOf(tick, top).toFixed(1);
    return html`<line class="grid" x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${y}" y2="${y}"></line><text class="tick" x="${PLOT.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${format(tick)}</text>`;
  });
  const slot = PLOT_WIDTH / Math.max(1, buckets.length);
  // Room for the longest label (about 7 units a character at the tick size), so labels never overlap.
  const widest = Math.max(0, ...buckets.map((bucket) => bucket.label.length)) * 7 + 12;
  const every = Math.max(1, Math.ceil(widest / slot));
  const labels = buckets.map((bucket, i) =>
    i % every === 0
      ? html`<text class="tick" x="${(PLOT.left + slot * (i + 0.5)).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${bucket.label}</text>`
      : "",
  );
  return html`${grid}${labels}`;
}

/** The x coordinate where bucket `i` of `n` starts, and its width. */
export function slotOf(i: number, n: number): { x: number; width: number } {
  const width = PLOT_WIDTH / Math.max(1, n);
  return { x: PLOT.left + i * width, width };
}

/**
 * The figure: the SVG (an image named by the caption), the caption, and the table of the same numbers in a
 * disclosure, so it is there without scripts, for screen readers and for copying.
 */
export function figure(
  id: string,
  kind: string,
  caption: string,
  svgBody: Html,
  header: string,
  buckets: readonly Bucket[],
  columns: readonly TableColumn[],
): Html {
  const rows = buckets.map(
    (bucket, i) =>
      html`<tr><th scope="row"><time datetime="${bucket.start}">${bucket.label}</time></th>${columns.map((column) => html`<td>${column.values[i]}</td>`)}</tr>`,
  );
  return html`<figure class="chart-figure" data-chart="${kind}" id="${id}">
<svg class="chart ${kind}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="${id}-caption" preserveAspectRatio="xMinYMin meet">${svgBody}</svg>
<figcaption id="${id}-caption">${caption}</figcaption>
<details class="chart-numbers"><summary>Numbers</summary>
<table aria-labelledby="${id}-caption"><thead><tr><th scope="col">${header}</th>${columns.map((column) => html`<th scope="col">${column.label}</th>`)}</tr></thead><tbody>${rows}</tbody></table>
</details>
</figure>`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A bucket's label from the local date and time written in its start ("2026-11-03T14:00:00+01:00" is
 * Nov 3 14:00 where the reader asked), so the label never shifts to the server's zone.
 */
export function bucketLabel(start: string, bucket: "hour" | "day" | "week"): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/.exec(start);
  if (!match) return start;
  const day = `${MONTHS[Number(match[2]) - 1] ?? match[2]} ${Number(match[3])}`;
  return bucket === "hour" ? `${day} ${match[4] ?? "00"}:${match[5] ?? "00"}` : day;
}
