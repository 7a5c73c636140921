// A line chart as server-rendered SVG: a point for each bucket that has a value, joined into a trend only
// where enough outcomes stand behind each point; a thin value is drawn hollow and left unjoined.
import { html, type Html } from "../html.js";
import { axes, figure, niceTicks, slotOf, yOf, type Bucket } from "./frame.js";

export interface LineChart {
  /** Unique on the page. */
  id: string;
  caption: string;
  bucketHeader: string;
  buckets: readonly Bucket[];
  /** Null where the bucket has nothing to measure (no point, a gap in the line). */
  values: readonly (number | null)[];
  valueLabel: string;
  format: (value: number) => string;
  /** How many outcomes each value stands on (shown with it); below `minVolume` a value is no trend. */
  volumes?: readonly number[];
  volumeLabel?: string;
  minVolume?: number;
  /** A fixed top of the scale (1 for a rate); otherwise the largest value, rounded up. */
  max?: number;
  /** The steps the scale may tick at (DURATION_STEPS_MS for times); else 1, 2 or 5 times a power of ten. */
  tickSteps?: readonly number[];
  /** The line's name on its points (`data-series`) when there is a `second`. */
  name?: string;
  /** A second line over the same buckets (the 90th percentile over the median), dashed, on the same volumes. */
  second?: { name: string; label: string; values: readonly (number | null)[] };
}

interface Point {
  i: number;
  x: number;
  y: number;
  value: number;
  trend: boolean;
}

/** Path commands joining consecutive trend points; a missing or thin bucket breaks the line. */
function trendPath(points: readonly Point[]): string {
  let d = "";
  let previous: Point | undefined;
  for (const point of points) {
    if (!point.trend) {
      previous = undefined;
      continue;
    }
    const joined = previous !== undefined && previous.i === point.i - 1;
    d += `${joined ? "L" : "M"}${point.x.toFixed(1)} ${point.y.toFixed(1)}`;
    previous = point;
  }
  return d;
}

function details(chart: LineChart, i: number, value: number): string {
  const volume = chart.volumes?.[i];
  return `${chart.valueLabel} ${chart.format(value)}${volume === undefined ? "" : ` · ${chart.volumeLabel ?? "volume"} ${volume}`}`;
}

/** One line's points and marks: a circle per bucket with a value, hollow where the volume is thin. */
function line(
  chart: LineChart,
  values: readonly (number | null)[],
  top: number,
  series: { name?: string; label: string; className: string },
): Html {
  const points: Point[] = [];
  values.forEach((value, i) => {
    if (value === null) return;
    const { x, width } = slotOf(i, chart.buckets.length);
    const volume = chart.volumes?.[i];
    const trend = volume === undefined || volume >= (chart.minVolume ?? 0);
    points.push({ i, x: x + width / 2, y: yOf(value, top), value, trend });
  });
  const marks = points.map((p) => {
    const bucket = chart.buckets[p.i]!;
    const volume = chart.volumes?.[p.i];
    const text = details({ ...chart, valueLabel: series.label }, p.i, p.value);
    return html`<g class="bucket" data-start="${bucket.start}"><title>${bucket.label}: ${text}</title><circle class="point${p.trend ? "" : " thin"}"${series.name === undefined ? "" : html` data-series="${series.name}"`} data-start="${bucket.start}" data-value="${p.value}"${volume === undefined ? "" : html` data-volume="${volume}"`} cx="${p.x.toFixed(1)}" cy="${p.y.toFixed(1)}" r="4"></circle></g>`;
  });
  return html`<path class="${series.className}" d="${trendPath(points)}"></path>${marks}`;
}

export function lineChart(chart: LineChart): Html {
  const present = [...chart.values, ...(chart.second?.values ?? [])].filter((v): v is number => v !== null);
  const ticks = niceTicks(chart.max ?? Math.max(0, ...present), 4, 0, chart.tickSteps);
  const top = ticks[ticks.length - 1]!;
  const first = line(chart, chart.values, top, {
    ...(chart.name === undefined ? {} : { name: chart.name }),
    label: chart.valueLabel,
    className: "line",
  });
  const second = chart.second
    ? line(chart, chart.second.values, top, {
        name: chart.second.name,
        label: chart.second.label,
        className: "line second",
      })
    : "";
  const body = html`${axes(ticks, chart.format, chart.buckets)}${first}${second}`;
  const show = (values: readonly (number | null)[]): string[] =>
    values.map((v) => (v === null ? "none" : chart.format(v)));
  const columns = [{ label: chart.valueLabel, values: show(chart.values) }];
  if (chart.second) columns.push({ label: chart.second.label, values: show(chart.second.values) });
  if (chart.volumes) columns.push({ label: chart.volumeLabel ?? "Volume", values: chart.volumes.map(String) });
  return figure(chart.id, "line-chart", chart.caption, body, chart.bucketHeader, chart.buckets, columns);
}
