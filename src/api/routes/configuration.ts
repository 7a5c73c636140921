// Variant B configuration: agents, customers and rate cards, each with PUT (upsert), GET one, GET list, DELETE.
import typia, { type tags } from "typia";
import { ApiError } from "../../errors/api-error.js";
import type { Route } from "../../ingress/router.js";
import type { AgentRecord } from "../../records/agent.js";
import type { CustomerRecord } from "../../records/customer.js";
import type { RateCardRecord } from "../../records/rate-card.js";
import type { RecordStore } from "../../records/record-store.js";
import { contractFields, type ContractBody } from "../contract-fields.js";
import { validBody } from "../request-checks.js";
import { recordRoutes } from "../record-routes.js";

type Name = string & tags.MinLength<1> & tags.MaxLength<512>;
type RecordKey = string & tags.MinLength<1> & tags.MaxLength<512>;

export interface PutAgentBody extends ContractBody {
  attribution_method?: "first" | "last" | "min" | "max" | "sum";
}

export interface PutCustomerBody {
  name: Name;
  rate_card_key?: RecordKey | null;
}

export interface PutRateCardBody {
  currency: string & tags.Pattern<"^[A-Z]{3}$">;
  entries: {
    agent_key: RecordKey;
    unit_amount: number & tags.Type<"int64"> & tags.Minimum<0> & tags.Maximum<9007199254740991>;
  }[] &
    tags.MaxItems<10000>;
}

const validateAgent = typia.createValidateEquals<PutAgentBody>();
const validateCustomer = typia.createValidateEquals<PutCustomerBody>();
const validateRateCard = typia.createValidateEquals<PutRateCardBody>();

export function configurationRoutes(records: RecordStore): Route[] {
  return [
    ...recordRoutes<AgentRecord>(records, {
      kind: "agent",
      segment: "agents",
      listField: "agents",
      notFound: "AGENT_NOT_FOUND",
      build(key, raw) {
        const body = validBody(validateAgent(raw));
        return {
          key,
          // Variant B evaluates only properties.value: naming another property is a 400 here, not a surprise later.
          ...contractFields(body, { valueOnly: true }),
          attribution_method: body.attribution_method ?? "last",
        };
      },
    }),
    ...recordRoutes<CustomerRecord>(records, {
      kind: "customer",
      segment: "customers",
      listField: "customers",
      notFound: "CUSTOMER_NOT_FOUND",
      build(key, raw) {
        const body = validBody(validateCustomer(raw));
        return { key, name: body.name, rate_card_key: body.rate_card_key ?? null };
      },
    }),
    ...recordRoutes<RateCardRecord>(records, {
      kind: "rate-card",
      segment: "rate-cards",
      listField: "rate_cards",
      notFound: "RATE_CARD_NOT_FOUND",
      build(key, raw) {
        const body = validBody(validateRateCard(raw));
        const seen = new Set<string>();
        body.entries.forEach((entry, i) => {
          if (seen.has(entry.agent_key)) {
            throw new ApiError("VALIDATION_ERROR", "one entry per agent", [
              { path: `entries[${i}].agent_key`, message: `duplicate agent ${entry.agent_key}` },
            ]);
          }
          seen.add(entry.agent_key);
        });
        return {
          key,
          currency: body.currency,
          entries: body.entries.map((e) => ({ agent_key: e.agent_key, unit_amount: e.unit_amount })),
        };
      },
    }),
  ];
}
