// Agents (Variant B): the contract an outcome snapshots when an agent's first event for a key creates it.

/** How an agent outcome's numeric `properties.attribution` values become its charge's quantity. */
export type AttributionMethod = "first" | "last" | "min" | "max" | "sum";

export interface AgentRecord {
  key: string;
  name: string;
  goal: string | null;
  /** Canonical condition text; agent conditions read only `value`. */
  condition: string;
  settlement_period: string | null;
  attribution_method: AttributionMethod;
}
