// What one batch teaches a cohort: increments of the model's fields, summed in memory first so a busy
// cohort costs one hash update per batch, not one per event.
import { isFloatField } from "./model-fields.js";

export class ModelDelta {
  private readonly increments = new Map<string, number>();

  get empty(): boolean {
    return this.increments.size === 0;
  }

  add(name: string, by: number): void {
    this.increments.set(name, (this.increments.get(name) ?? 0) + by);
  }

  /** The increments as the commit's two flat lists, [field, n, field, n, ...]: integers and floats. */
  pairs(): { counts: (string | number)[]; sums: (string | number)[] } {
    const counts: (string | number)[] = [];
    const sums: (string | number)[] = [];
    for (const [name, by] of this.increments) {
      if (isFloatField(name)) sums.push(name, by);
      else counts.push(name, by);
    }
    return { counts, sums };
  }

  /** The increments as a partial hash would hold them: for merging in tests and benchmarks. */
  asHash(): Record<string, string> {
    const hash: Record<string, string> = {};
    for (const [name, by] of this.increments) hash[name] = String(by);
    return hash;
  }
}
