// The per-account OTLP mapping: which attributes name an outcome, its task, agent and customer, and which
// extra attributes an event keeps. Defaults work with no configuration (docs/otlp.md, field by field).
import typia, { type tags } from "typia";

type AttributeName = string & tags.MinLength<1> & tags.MaxLength<256>;
type AttributeList = AttributeName[] & tags.MaxItems<32>;

export interface OtlpMapping {
  /** Looked up after `verdict.outcome_key`, in order, on the span then its resource. */
  outcome_key_attributes: AttributeList;
  /** Variant A: a task key here opens the outcome from that task on the trace's first span. */
  task_key_attributes: AttributeList;
  /** Variant B: the agent bound when the outcome is created. */
  agent_key_attributes: AttributeList;
  /** Variant B: the customer the outcome belongs to; a trace with one becomes a Variant B outcome. */
  customer_key_attributes: AttributeList;
  /**
   * Span attributes copied into each event's properties (dots become `_`). Nothing else of a span's
   * free text is stored: message contents and tool arguments only when named here.
   */
  include_attributes: AttributeList;
}

export const DEFAULT_OTLP_MAPPING: Readonly<OtlpMapping> = Object.freeze({
  outcome_key_attributes: [
    "gen_ai.conversation.id",
    "session.id",
    "langfuse.session.id",
    "ai.telemetry.metadata.sessionId",
  ],
  task_key_attributes: ["verdict.task_key"],
  agent_key_attributes: ["verdict.agent_key", "gen_ai.agent.id", "gen_ai.agent.name"],
  customer_key_attributes: ["verdict.customer_key", "enduser.id", "user.id"],
  include_attributes: [],
});

/** The attribute that names the outcome before any of the list: explicit beats inferred. */
export const OUTCOME_KEY_ATTRIBUTE = "verdict.outcome_key";

/** Validates a PUT body: every field optional, absent ones keep their defaults; unknown fields refused. */
export const validateMappingInput = typia.createValidateEquals<Partial<OtlpMapping>>();

/** A stored or submitted partial mapping over the defaults. */
export function withDefaults(partial: Partial<OtlpMapping>): OtlpMapping {
  return { ...DEFAULT_OTLP_MAPPING, ...partial };
}
