// When time alone next changes an open outcome: its settlement or an IDLE window elapsing. The shard's
// due-time index is scored by it, so the monitor touches only what is due.
import { nextExpiryAfter } from "../condition/index.js";
import { compiledCondition } from "./compiled-conditions.js";
import type { OutcomeRecord } from "./outcome-record.js";

export function dueAtOf(record: OutcomeRecord): number | null {
  if (record.status !== "OPEN") return null;
  const wake = nextExpiryAfter(compiledCondition(record.condition), record.conditionState, record.clock);
  if (wake === null) return record.settlesAt;
  return record.settlesAt === null ? wake : Math.min(wake, record.settlesAt);
}
