// The attributes the protobuf reader keeps: those the mapping reads (the names below and the account's own
// lists). The others, message contents among them, are skipped unread, and kept names are the constants
// here rather than a string made per attribute.
import type { OtlpMapping } from "./mapping-config.js";
import { OUTCOME_KEY_ATTRIBUTE } from "./mapping-config.js";

/**
 * Every attribute name the mapping's code reads on a span, its events or its resource, besides the
 * account's mapping lists (a test records the names the mapping reads and checks they are all here).
 */
export const MAPPING_READS: readonly string[] = [
  // span-family.ts
  "gen_ai.operation.name",
  "openinference.span.kind",
  "ai.operationId",
  // action-name.ts
  "gen_ai.tool.name",
  "gen_ai.agent.name",
  "ai.toolCall.name",
  "ai.telemetry.functionId",
  "tool.name",
  "error.type",
  // span-properties.ts
  "gen_ai.response.model",
  "gen_ai.request.model",
  "ai.response.model",
  "ai.model.id",
  "llm.model_name",
  "gen_ai.provider.name",
  "gen_ai.system",
  "ai.model.provider",
  "llm.provider",
  "gen_ai.usage.input_tokens",
  "ai.usage.inputTokens",
  "ai.usage.promptTokens",
  "llm.token_count.prompt",
  "gen_ai.usage.output_tokens",
  "ai.usage.outputTokens",
  "ai.usage.completionTokens",
  "llm.token_count.completion",
  "gen_ai.response.finish_reasons",
  "ai.response.finishReason",
  "gen_ai.tool.type",
  "verdict.value",
  // map-span.ts: the explicit outcome key and evaluation results (span events)
  OUTCOME_KEY_ATTRIBUTE,
  "gen_ai.evaluation.name",
  "gen_ai.evaluation.score.value",
  "gen_ai.evaluation.score.label",
];

interface Kept {
  bytes: Buffer;
  name: string;
}

/** A set of attribute names matched against a key's UTF-8 bytes in place. */
export class AttributeFilter {
  /** Kept names by their UTF-8 length. */
  private readonly byLength: (Kept[] | undefined)[] = [];

  constructor(names: Iterable<string>) {
    for (const name of new Set(names)) {
      const bytes = Buffer.from(name, "utf8");
      (this.byLength[bytes.length] ??= []).push({ bytes, name });
    }
  }

  /** The kept name spelt by `buf[start, end)`, or undefined when it is not kept. */
  match(buf: Buffer, start: number, end: number): string | undefined {
    const candidates = this.byLength[end - start];
    if (candidates === undefined) return undefined;
    next: for (const { bytes, name } of candidates) {
      // From the end: names of one length mostly share their prefix (`gen_ai.`).
      for (let i = bytes.length - 1; i >= 0; i--) if (buf[start + i] !== bytes[i]) continue next;
      return name;
    }
    return undefined;
  }
}

const filters = new Map<string, AttributeFilter>();
/** Distinct account mappings whose filters are kept; past it the cache starts over. */
const MAX_FILTERS = 256;

/** The filter for a mapping: the names above and every name its lists hold. */
export function filterFor(mapping: OtlpMapping): AttributeFilter {
  const own = [
    ...mapping.outcome_key_attributes,
    ...mapping.task_key_attributes,
    ...mapping.agent_key_attributes,
    ...mapping.customer_key_attributes,
    ...mapping.include_attributes,
  ];
  const key = JSON.stringify(own);
  let filter = filters.get(key);
  if (filter === undefined) {
    if (filters.size >= MAX_FILTERS) filters.clear();
    filter = new AttributeFilter([...MAPPING_READS, ...own]);
    filters.set(key, filter);
  }
  return filter;
}
