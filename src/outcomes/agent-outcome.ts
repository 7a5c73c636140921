// Variant B creation: the first event for an unseen key resolves customer, agent, rate card and price, and
// the outcome snapshots them, so later edits to the agent or the rate card never change it.
import { parseDuration } from "../condition/index.js";
import type { AgentRecord } from "../records/agent.js";
import type { CustomerRecord } from "../records/customer.js";
import type { RateCardRecord } from "../records/rate-card.js";
import type { BatchRecordReader, RecordReader } from "../records/batch-record-reader.js";
import type { EventEnvelope } from "../streams/event-envelope.js";
import { emptyTally } from "./charge.js";
import { newOutcomeRecord } from "./new-outcome.js";
import type { OutcomeRecord } from "./outcome-record.js";
import { terminalRejection, type TerminalRejection } from "./terminal-rejection.js";

/**
 * Starts reading the records a creation from `event` needs first (its customer and agent), without waiting:
 * the batch reader keeps the reads (and their failures) for createAgentOutcome.
 */
export function prefetchAgentRecords(records: BatchRecordReader, event: EventEnvelope): void {
  void records.get<CustomerRecord>(event.accountId, "customer", event.customerKey ?? "");
  if (event.agentKey !== undefined) void records.get<AgentRecord>(event.accountId, "agent", event.agentKey);
}

/** Resolves a new key's contract, rejecting in the order decisions.md fixes. */
export async function createAgentOutcome(
  records: RecordReader,
  event: EventEnvelope,
): Promise<OutcomeRecord | TerminalRejection> {
  const { accountId } = event;
  const customerKey = event.customerKey ?? "";
  const customer = await records.get<CustomerRecord>(accountId, "customer", customerKey);
  if (!customer) return terminalRejection("CUSTOMER_NOT_FOUND", `no customer ${customerKey}`);

  let agent: AgentRecord | undefined;
  if (event.agentKey !== undefined) {
    agent = await records.get<AgentRecord>(accountId, "agent", event.agentKey);
    if (!agent) return terminalRejection("AGENT_NOT_FOUND", `no agent ${event.agentKey}`);
  }
  const rateCard =
    customer.rate_card_key === null
      ? undefined
      : await records.get<RateCardRecord>(accountId, "rate-card", customer.rate_card_key);
  if (!rateCard) return terminalRejection("RATE_CARD_NOT_FOUND", `customer ${customerKey} has no rate card`);

  if (!agent) {
    // Inference: a rate card with exactly one entry names the agent.
    const only = rateCard.entries.length === 1 ? rateCard.entries[0] : undefined;
    agent = only ? await records.get<AgentRecord>(accountId, "agent", only.agent_key) : undefined;
    if (!agent) {
      return terminalRejection(
        "AGENT_NOT_FOUND",
        `no agent_key given and it cannot be inferred from rate card ${rateCard.key}`,
      );
    }
  }
  const agentKey = agent.key;
  const entry = rateCard.entries.find((candidate) => candidate.agent_key === agentKey);
  if (!entry)
    return terminalRejection(
      "RATE_CARD_ENTRY_NOT_FOUND",
      `rate card ${rateCard.key} has no entry for agent ${agentKey}`,
    );

  return newOutcomeRecord({
    accountId,
    key: event.outcomeKey,
    origin: {
      kind: "agent",
      agentKey,
      customerKey,
      rateCardKey: rateCard.key,
      currency: rateCard.currency,
      unitAmount: entry.unit_amount,
      attributionMethod: agent.attribution_method,
      attribution: emptyTally(),
    },
    goal: agent.goal,
    condition: agent.condition,
    settlementPeriodMs: agent.settlement_period === null ? null : parseDuration(agent.settlement_period),
    settlesAt: null,
    at: event.receivedAt,
  });
}
