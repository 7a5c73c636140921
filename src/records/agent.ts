// Agents (Variant B): the contract an outcome snapshots when an agent's first event for a key creates it.
import type { AttributionMethod } from "../outcomes/outcome-record.js";

export interface AgentRecord {
  key: string;
  name: string;
  goal: string | null;
  /** Canonical condition text; agent conditions read only `value`. */
  condition: string;
  settlement_period: string | null;
  attribution_method: AttributionMethod;
}
