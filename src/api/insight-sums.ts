// One group's sums for GET /v1/insights: a typed array per counted metric, one cell per bucket.
import { METRIC, timeToVerdictBoundsMs } from "../outcomes/insight-rollup.js";
import type { GroupDayCursor } from "./group-day-cursor.js";

export const HISTOGRAM_SIZE = timeToVerdictBoundsMs.length + 1;

/** METRIC's codes as bytes, to dispatch on a stored metric without making it a string. */
const CODE = Object.fromEntries(Object.entries(METRIC).map(([name, code]) => [name, code.charCodeAt(0)])) as Record<
  keyof typeof METRIC,
  number
>;
const DIGIT_0 = 0x30;

export class GroupSums {
  readonly opened: Float64Array;
  readonly confirmed: Float64Array;
  readonly failed: Float64Array;
  readonly forced: Float64Array;
  readonly deadLetters: Float64Array;
  readonly charges = new Map<string, Float64Array>();
  readonly chargeCounts = new Map<string, number>();
  readonly deadLetterCodes = new Map<string, number>();
  readonly histogram = new Float64Array(HISTOGRAM_SIZE);
  /** Each bucket's histogram in a row, kept only when the answer gives each point its percentiles. */
  readonly bucketHistograms: Float64Array | undefined;
  readonly causes = { locked: 0, idle: 0, deadline: 0 };
  readonly clauses = new Map<string, { text: string; count: number }>();
  private lastClause: { id: Buffer; clause: { text: string; count: number } } | undefined;

  constructor(
    private readonly buckets: number,
    perBucket: boolean,
  ) {
    this.bucketHistograms = perBucket ? new Float64Array(buckets * HISTOGRAM_SIZE) : undefined;
    this.opened = new Float64Array(buckets);
    this.confirmed = new Float64Array(buckets);
    this.failed = new Float64Array(buckets);
    this.forced = new Float64Array(buckets);
    this.deadLetters = new Float64Array(buckets);
  }

  /** An archived row's counter: its metric (METRIC code and suffix) and value. */
  add(bucket: number, metric: string, value: string | number): void {
    if (metric[0] === METRIC.clauseText) {
      this.clause(metric.slice(1)).text = String(value);
      return;
    }
    const code = metric.charCodeAt(0);
    if (code === CODE.histogram) this.addHistogram(bucket, Number(metric.slice(1)), Number(value));
    else if (!this.addPlain(bucket, code, Number(value)))
      this.addSuffixed(bucket, code, metric.slice(1), Number(value));
  }

  /** A stored triple's metric and count, the cursor just past its hour; a negative bucket reads past it. */
  addCell(bucket: number, cursor: GroupDayCursor): void {
    cursor.str();
    const { bytes, start, end } = cursor;
    const code = bytes[start]!;
    if (code === CODE.clauseText) {
      const clause = this.clauseAt(bytes, start + 1, end);
      cursor.str();
      // An id names one leaf of one compiled condition, so its text never changes: read it once.
      if (clause.text === "") clause.text = cursor.text();
      return;
    }
    const n = cursor.number();
    if (bucket < 0 || this.addPlain(bucket, code, n)) return;
    if (code === CODE.clause) {
      this.clauseAt(bytes, start + 1, end).count += n;
      return;
    }
    if (code === CODE.histogram) {
      let index = 0;
      for (let i = start + 1; i < end; i++) index = index * 10 + bytes[i]! - DIGIT_0;
      this.addHistogram(bucket, index, n);
      return;
    }
    this.addSuffixed(bucket, code, bytes.toString("utf8", start + 1, end), n);
  }

  /** The metrics without a suffix; false for the others. */
  private addPlain(bucket: number, code: number, n: number): boolean {
    switch (code) {
      case CODE.opened:
        this.opened[bucket]! += n;
        return true;
      case CODE.confirmed:
        this.confirmed[bucket]! += n;
        return true;
      case CODE.failed:
        this.failed[bucket]! += n;
        return true;
      case CODE.forced:
        this.forced[bucket]! += n;
        this.causes.deadline += n;
        return true;
      case CODE.locked:
        this.causes.locked += n;
        return true;
      case CODE.idle:
        this.causes.idle += n;
        return true;
    }
    return false;
  }

  private addHistogram(bucket: number, index: number, n: number): void {
    this.histogram[index]! += n;
    if (this.bucketHistograms) this.bucketHistograms[bucket * HISTOGRAM_SIZE + index]! += n;
  }

  /** The metrics whose suffix names a currency, a dead-letter code or a clause. */
  private addSuffixed(bucket: number, code: number, suffix: string, n: number): void {
    switch (code) {
      case CODE.chargeAmount: {
        let amounts = this.charges.get(suffix);
        if (!amounts) this.charges.set(suffix, (amounts = new Float64Array(this.buckets)));
        amounts[bucket]! += n;
        return;
      }
      case CODE.chargeCount:
        this.chargeCounts.set(suffix, (this.chargeCounts.get(suffix) ?? 0) + n);
        return;
      case CODE.deadLetters:
        this.deadLetters[bucket]! += n;
        this.deadLetterCodes.set(suffix, (this.deadLetterCodes.get(suffix) ?? 0) + n);
        return;
      case CODE.clause:
        this.clause(suffix).count += n;
        return;
    }
  }

  /** The clause whose id is bytes[start, end): the one named last is found again without its id as a string. */
  private clauseAt(bytes: Buffer, start: number, end: number): { text: string; count: number } {
    const last = this.lastClause;
    if (last && last.id.length === end - start) {
      let i = 0;
      while (i < last.id.length && last.id[i] === bytes[start + i]) i++;
      if (i === last.id.length) return last.clause;
    }
    const clause = this.clause(bytes.toString("utf8", start, end));
    this.lastClause = { id: bytes.subarray(start, end), clause };
    return clause;
  }

  private clause(id: string): { text: string; count: number } {
    let clause = this.clauses.get(id);
    if (!clause) this.clauses.set(id, (clause = { text: "", count: 0 }));
    return clause;
  }
}
