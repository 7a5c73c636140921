// Variant A from traces: a trace naming `verdict.task_key` opens its outcome from that task before any of its
// events is enqueued, as POST /v1/outcomes would (an outcome already open is left as it is).
import { parseDuration } from "../condition/index.js";
import { ApiError } from "../errors/api-error.js";
import type { RecordStore } from "../records/record-store.js";
import type { TaskRecord } from "../records/task.js";
import type { OutcomeStore } from "../stores/outcome-store.js";

/** Outcomes opened recently, per process: later exports of their conversations skip the open. */
const REMEMBERED = 10_000;

export class OutcomeOpener {
  private readonly opened = new Set<string>();

  constructor(
    private readonly outcomes: OutcomeStore,
    private readonly records: RecordStore,
  ) {}

  /** Opens `key` from `taskKey` unless it exists; undefined when open, else why it cannot be. */
  async open(accountId: string, key: string, taskKey: string, now: number): Promise<string | undefined> {
    const id = `${accountId}\u0000${key}`;
    if (this.opened.has(id)) return undefined;
    const task = await this.records.get<TaskRecord>(accountId, "task", taskKey);
    if (!task) return `no task ${taskKey}`;
    try {
      await this.outcomes.open({
        accountId,
        key,
        taskKey: task.key,
        goal: task.goal,
        condition: task.condition,
        settlementPeriodMs: task.settlement_period === null ? null : parseDuration(task.settlement_period),
        settlesAt: null,
        now,
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 403) return error.message;
      throw error;
    }
    // An outcome opened from another task is left as it is; the events then apply to it all the same.
    if (this.opened.size >= REMEMBERED) this.opened.delete(this.opened.values().next().value!);
    this.opened.add(id);
    return undefined;
  }
}
