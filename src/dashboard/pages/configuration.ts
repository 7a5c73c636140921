// The four configuration record kinds on the shared record pages: tasks (Variant A), agents, customers and
// rate cards (Variant B), each mapping its form to the API's PUT body.
import type {
  Agent,
  Customer,
  PutAgentBody,
  PutCustomerBody,
  PutRateCardBody,
  PutTaskBody,
  RateCard,
  Task,
} from "../../client/wire-types.js";
import type { DashboardRoute } from "../context.js";
import type { FieldErrors } from "../field-errors.js";
import { html, type Html } from "../html.js";
import { insightsPath } from "./insights.js";
import { recordPages, type FormField } from "./record-pages.js";

const contractFields = (valueOnly: boolean): FormField[] => [
  { name: "name", label: "Name", required: true },
  { name: "goal", label: "Goal", multiline: true, hint: "What a good outcome looks like, in words (optional)." },
  {
    name: "condition",
    label: "Condition",
    required: true,
    multiline: true,
    condition: { valueOnly },
    hint: valueOnly
      ? "Agents read only properties.value, e.g. COUNT(reply)>=2 AND F(review>=4)."
      : "For example COUNT(agent_response)>=2 AND NOT escalated AND customer_csat_set.",
  },
  {
    name: "settlement_period",
    label: "Settlement period",
    hint: "How long an outcome stays open, e.g. 1d, 12h, 1w or P1DT2H (optional).",
  },
];

const contractBody = (values: Record<string, string>): PutTaskBody => ({
  name: values.name!.trim(),
  goal: values.goal!.trim() === "" ? null : values.goal!,
  condition: values.condition!,
  settlement_period: values.settlement_period!.trim() === "" ? null : values.settlement_period!.trim(),
});

const ATTRIBUTION = ["last", "first", "min", "max", "sum"] as const;

/** The agent's body; an attribution outside the form's choices is the field's error. */
function agentBody(values: Record<string, string>): { body: PutAgentBody } | { errors: FieldErrors } {
  const chosen = values.attribution_method || "last";
  const attribution = ATTRIBUTION.find((method) => method === chosen);
  if (attribution === undefined) return { errors: { attribution_method: `Choose one of ${ATTRIBUTION.join(", ")}.` } };
  return { body: { ...contractBody(values), attribution_method: attribution } };
}

/** Rate card entries typed one per line, "agent_key unit_amount". */
function parseEntries(text: string): { entries: { agent_key: string; unit_amount: number }[] } | { error: string } {
  const entries: { agent_key: string; unit_amount: number }[] = [];
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  for (const [i, line] of lines.entries()) {
    const match = /^(\S+)[\s,:=]+(\d+)$/.exec(line);
    if (!match)
      return {
        error: `Line ${i + 1}: write an agent key, a space, then a whole number of minor units (support-bot 250).`,
      };
    entries.push({ agent_key: match[1]!, unit_amount: Number(match[2]) });
  }
  return { entries };
}

/** The link from a list row to the record's insight page. */
function chartsColumn(
  kind: "tasks" | "agents" | "customers",
  singular: string,
): { label: string; value(record: { key: string }): Html } {
  return {
    label: "Insights",
    value: (record) =>
      html`<a href="${insightsPath(kind, record.key)}">Charts<span class="visually-hidden"> of ${singular} ${record.key}</span></a>`,
  };
}

export const configurationPages: DashboardRoute[] = [
  ...recordPages<Task, PutTaskBody, "tasks">({
    segment: "tasks",
    listField: "tasks",
    routes: (client) => client.tasks,
    singular: "task",
    title: "Tasks",
    fields: contractFields(false),
    columns: [
      { label: "Name", value: (task) => task.name },
      { label: "Condition", value: (task) => html`<code>${task.condition}</code>` },
      { label: "Settlement period", value: (task) => task.settlement_period ?? "none" },
      chartsColumn("tasks", "task"),
    ],
    formValues: (task) => ({
      name: task.name,
      goal: task.goal ?? "",
      condition: task.condition,
      settlement_period: task.settlement_period ?? "",
    }),
    body: (values) => ({ body: contractBody(values) }),
  }),
  ...recordPages<Agent, PutAgentBody, "agents">({
    segment: "agents",
    listField: "agents",
    routes: (client) => client.agents,
    singular: "agent",
    title: "Agents",
    fields: [
      ...contractFields(true),
      {
        name: "attribution_method",
        label: "Attribution method",
        choices: ATTRIBUTION,
        hint: "How the charge counts numeric properties.attribution values: last, first, min, max or sum.",
      },
    ],
    columns: [
      { label: "Name", value: (agent) => agent.name },
      { label: "Condition", value: (agent) => html`<code>${agent.condition}</code>` },
      { label: "Attribution", value: (agent) => agent.attribution_method },
      chartsColumn("agents", "agent"),
    ],
    formValues: (agent) => ({
      name: agent.name,
      goal: agent.goal ?? "",
      condition: agent.condition,
      settlement_period: agent.settlement_period ?? "",
      attribution_method: agent.attribution_method,
    }),
    body: agentBody,
  }),
  ...recordPages<Customer, PutCustomerBody, "customers">({
    segment: "customers",
    listField: "customers",
    routes: (client) => client.customers,
    singular: "customer",
    title: "Customers",
    fields: [
      { name: "name", label: "Name", required: true },
      {
        name: "rate_card_key",
        label: "Rate card key",
        hint: "The rate card that prices this customer's outcomes (optional).",
      },
    ],
    columns: [
      { label: "Name", value: (customer) => customer.name },
      { label: "Rate card", value: (customer) => customer.rate_card_key ?? "none" },
      chartsColumn("customers", "customer"),
    ],
    formValues: (customer) => ({ name: customer.name, rate_card_key: customer.rate_card_key ?? "" }),
    body: (values) => ({
      body: {
        name: values.name!.trim(),
        rate_card_key: values.rate_card_key!.trim() === "" ? null : values.rate_card_key!.trim(),
      },
    }),
  }),
  ...recordPages<RateCard, PutRateCardBody, "rate_cards">({
    segment: "rate-cards",
    listField: "rate_cards",
    routes: (client) => client.rateCards,
    singular: "rate card",
    title: "Rate cards",
    fields: [
      { name: "currency", label: "Currency", required: true, hint: "Three-letter ISO 4217 code: EUR, USD, GBP." },
      {
        name: "entries",
        label: "Entries",
        multiline: true,
        hint: "One agent per line: the agent key, a space, the price of one confirmed outcome in minor units (support-bot 250 is 2.50).",
      },
    ],
    columns: [
      { label: "Currency", value: (card) => card.currency },
      {
        label: "Entries",
        value: (card) => card.entries.map((entry) => `${entry.agent_key} ${entry.unit_amount}`).join(", ") || "none",
      },
    ],
    formValues: (card) => ({
      currency: card.currency,
      entries: card.entries.map((entry) => `${entry.agent_key} ${entry.unit_amount}`).join("\n"),
    }),
    body: (values) => {
      const parsed = parseEntries(values.entries!);
      if ("error" in parsed) return { errors: { entries: parsed.error } satisfies FieldErrors };
      return { body: { currency: values.currency!.trim().toUpperCase(), entries: parsed.entries } };
    },
  }),
];
