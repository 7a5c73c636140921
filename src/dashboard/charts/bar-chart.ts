// A stacked bar chart as server-rendered SVG: one column per bucket, one bar per series in it (drawn
// even at zero height, so every bucket has every series), each bar carrying its bucket and value.
import { html, type Html } from "../html.js";
import { axes, figure, HEIGHT, niceTicks, PLOT, slotOf, yOf, type Bucket } from "./frame.js";

export interface BarSeries {
  /** Machine name: the bar's `data-series` and its CSS class `bar-<name>`. */
  name: string;
  /** Words for people: the legend, the table header, the hover details. */
  label: string;
  values: readonly number[];
}

export interface BarChart {
  /** Unique on the page. */
  id: string;
  caption: string;
  /** The table's first column header ("Day", "Hour"). */
  bucketHeader: string;
  buckets: readonly Bucket[];
  /** Stacked bottom to top, in this order. */
  series: readonly BarSeries[];
  /** Values are whole counts or minor units: the scale's ticks are whole numbers too. */
  format?: (value: number) => string;
}

const plain = (value: number): string => String(value);

/** One bucket's column: a hover target over the whole height, its stacked bars, and a native tooltip. */
function column(chart: BarChart, i: number, top: number, format: (value: number) => string): Html {
  const bucket = chart.buckets[i]!;
  const { x, width } = slotOf(i, chart.buckets.length);
  const gap = Math.min(4, width * 0.2);
  const details = chart.series.map((s) => `${s.label} ${format(s.values[i] ?? 0)}`).join(" · ");
  let base = 0;
  const bars = chart.series.map((s) => {
    const value = s.values[i] ?? 0;
    const y0 = yOf(base, top);
    base += value;
    const y1 = yOf(base, top);
    return html`<rect class="bar bar-${s.name}" data-series="${s.name}" data-start="${bucket.start}" data-value="${value}" x="${(x + gap / 2).toFixed(1)}" y="${y1.toFixed(1)}" width="${(width - gap).toFixed(1)}" height="${(y0 - y1).toFixed(1)}"></rect>`;
  });
  return html`<g class="bucket" data-start="${bucket.start}"><title>${bucket.label}: ${details}</title><rect class="hit" x="${x.toFixed(1)}" y="${PLOT.top}" width="${width.toFixed(1)}" height="${HEIGHT - PLOT.top - PLOT.bottom}"></rect>${bars}</g>`;
}

/** The legend as SVG text, so the colours are named in the picture itself. */
function legend(series: readonly BarSeries[]): Html {
  return html`<g class="legend">${series.map(
    (s, i) =>
      html`<rect class="bar bar-${s.name} swatch" x="${PLOT.left + 8 + i * 100}" y="${PLOT.top}" width="11" height="11"></rect><text class="tick" x="${PLOT.left + 24 + i * 100}" y="${PLOT.top + 10}">${s.label}</text>`,
  )}</g>`;
}

export function barChart(chart: BarChart): Html {
  const format = chart.format ?? plain;
  const totals = chart.buckets.map((_, i) => chart.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  // Headroom above the tallest column keeps the legend clear of the bars.
  const ticks = niceTicks(Math.max(...totals, 0) * (chart.series.length > 1 ? 1.2 : 1), 4, 1);
  const top = ticks[ticks.length - 1]!;
  const columns = chart.buckets.map((_, i) => column(chart, i, top, format));
  const body = html`${axes(ticks, format, chart.buckets)}${columns}${chart.series.length > 1 ? legend(chart.series) : ""}`;
  const table = chart.series.map((s) => ({
    label: s.label,
    values: chart.buckets.map((_, i) => format(s.values[i] ?? 0)),
  }));
  return figure(chart.id, "bar-chart", chart.caption, body, chart.bucketHeader, chart.buckets, table);
}
