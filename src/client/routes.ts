// Typed calls for every route of the service: each resolves to the answer's body or rejects with a
// VerdictError. One attempt each: retries with ordering and idempotency are what `track` is for.
import { PagedList, type ListPage, type PageQuery } from "./paging.js";
import { path, type Query, type Transport } from "./transport.js";
import { webhookRoutes, type WebhookRoutes } from "./webhook-routes.js";
import type {
  Agent,
  BatchAccepted,
  Charge,
  Customer,
  DeadLetter,
  EventAccepted,
  Insights,
  LoggedEvent,
  OtlpMapping,
  OtlpMappingInput,
  OpenOutcomeBody,
  Outcome,
  OutcomeStatus,
  PutAgentBody,
  PutCustomerBody,
  PutRateCardBody,
  PutTaskBody,
  RateCard,
  ReplayAccepted,
  Task,
  Usage,
  VerdictEvent,
} from "./wire-types.js";

export interface OutcomeListQuery extends PageQuery {
  status?: OutcomeStatus | undefined;
  task_key?: string | undefined;
  agent_key?: string | undefined;
  customer_key?: string | undefined;
  /** A clause id from `insights.get` (`failing_clauses[].clause`): FAILED outcomes with that clause false at the verdict. */
  failed_clause?: string | undefined;
}

export interface ChargeListQuery extends PageQuery {
  customer_key?: string | undefined;
  /** ISO 8601; charges confirmed at or after it. */
  from?: string | undefined;
  /** ISO 8601; charges confirmed before it. */
  to?: string | undefined;
}

export interface DeadLetterListQuery extends PageQuery {
  /** A dead-letter code, e.g. `OUTCOME_NOT_OPEN`. */
  code?: string | undefined;
}

export interface InsightsQuery {
  group_by: "task" | "agent" | "customer";
  /** One task, agent or customer only. */
  key?: string | undefined;
  /** ISO 8601; the first bucket is the one holding it. */
  from?: string | undefined;
  /** ISO 8601, exclusive; default now. */
  to?: string | undefined;
  bucket?: "hour" | "day" | "week" | undefined;
  /** IANA time zone where days and weeks start (default UTC). */
  tz?: string | undefined;
  /** Most groups, busiest first (1 to 1000, default 100). */
  limit?: number | undefined;
  /** `series`: every point also carries its time to verdict (p50, p90). */
  percentiles?: "series" | undefined;
}

export interface UsageQuery {
  customer_key?: string | undefined;
}

/** PUT (create or replace; the stored record comes back), GET one, GET a list, DELETE. */
export interface RecordRoutes<Item, PutBody, ListBody> {
  put(key: string, body: PutBody): Promise<Item>;
  get(key: string): Promise<Item>;
  list(query?: PageQuery): PagedList<Item, ListBody>;
  delete(key: string): Promise<void>;
}

export interface Routes {
  /** Variant A templates. */
  tasks: RecordRoutes<Task, PutTaskBody, ListPage<"tasks", Task>>;
  outcomes: {
    /** Opens a Variant A outcome from a task (the same key and task again answers the existing one). */
    open(body: OpenOutcomeBody): Promise<Outcome>;
    get(key: string): Promise<Outcome>;
    list(query?: OutcomeListQuery): PagedList<Outcome, ListPage<"outcomes", Outcome>>;
    /** The outcome's event log, oldest first. */
    events(key: string, query?: PageQuery): PagedList<LoggedEvent, ListPage<"events", LoggedEvent>>;
  };
  events: {
    /** One event, one attempt (`POST /v1/events`); a 503 rejects. */
    send(event: VerdictEvent): Promise<EventAccepted>;
    /** Up to 500 events, one attempt; read `failed` yourself, or use `track`, which does. */
    batch(events: VerdictEvent[]): Promise<BatchAccepted>;
  };
  agents: RecordRoutes<Agent, PutAgentBody, ListPage<"agents", Agent>>;
  customers: RecordRoutes<Customer, PutCustomerBody, ListPage<"customers", Customer>>;
  rateCards: RecordRoutes<RateCard, PutRateCardBody, ListPage<"rate_cards", RateCard>>;
  charges: { list(query?: ChargeListQuery): PagedList<Charge, ListPage<"charges", Charge>> };
  usage: { get(query?: UsageQuery): Promise<Usage> };
  /** Time series per task, agent or customer from the hourly rollups (docs/insights.md). */
  insights: { get(query: InsightsQuery): Promise<Insights> };
  dlq: {
    list(query?: DeadLetterListQuery): PagedList<DeadLetter, ListPage<"dead_letters", DeadLetter>>;
    /** Sends the dead letter's event through its shard again. */
    replay(id: string): Promise<ReplayAccepted>;
  };
  webhooks: WebhookRoutes;
  /** How the account's OTLP spans become events (docs/otlp.md); `put` sets the fields given, the rest keep their defaults. */
  otlp: { mapping: { get(): Promise<OtlpMapping>; put(mapping: OtlpMappingInput): Promise<OtlpMapping> } };
}

export function routes(transport: Transport): Routes {
  const get = <T>(at: string, query?: Query): Promise<T> => transport.request("GET", at, { query }) as Promise<T>;
  const send = <T>(method: "POST" | "PUT", at: string, body: unknown): Promise<T> =>
    transport.request(method, at, { body: JSON.stringify(body) }) as Promise<T>;

  function paged<Field extends string, Item, Q extends PageQuery>(
    at: string,
    field: Field,
    query: Q | undefined,
  ): PagedList<Item, ListPage<Field, Item>> {
    return new PagedList<Item, ListPage<Field, Item>>(
      (cursor) => get<ListPage<Field, Item>>(at, { ...query, ...(cursor === undefined ? {} : { cursor }) }),
      (body) => body[field],
      (body) => body.next_cursor,
    );
  }

  function records<Item, PutBody, Field extends string>(
    segment: string,
    field: Field,
  ): RecordRoutes<Item, PutBody, ListPage<Field, Item>> {
    return {
      put: (key, body) => send<Item>("PUT", `/v1/${segment}/${encodeURIComponent(key)}`, body),
      get: (key) => get<Item>(`/v1/${segment}/${encodeURIComponent(key)}`),
      list: (query) => paged<Field, Item, PageQuery>(`/v1/${segment}`, field, query),
      delete: async (key) => {
        await transport.request("DELETE", `/v1/${segment}/${encodeURIComponent(key)}`);
      },
    };
  }

  return {
    tasks: records<Task, PutTaskBody, "tasks">("tasks", "tasks"),
    outcomes: {
      open: (body) => send<Outcome>("POST", "/v1/outcomes", body),
      get: (key) => get<Outcome>(path`/v1/outcomes/${key}`),
      list: (query) => paged<"outcomes", Outcome, OutcomeListQuery>("/v1/outcomes", "outcomes", query),
      events: (key, query) =>
        paged<"events", LoggedEvent, PageQuery>(path`/v1/outcomes/${key}/events`, "events", query),
    },
    events: {
      send: (event) => send<EventAccepted>("POST", "/v1/events", event),
      batch: (events) => send<BatchAccepted>("POST", "/v1/events/batch", { events }),
    },
    agents: records<Agent, PutAgentBody, "agents">("agents", "agents"),
    customers: records<Customer, PutCustomerBody, "customers">("customers", "customers"),
    rateCards: records<RateCard, PutRateCardBody, "rate_cards">("rate-cards", "rate_cards"),
    charges: { list: (query) => paged<"charges", Charge, ChargeListQuery>("/v1/charges", "charges", query) },
    usage: { get: (query) => get<Usage>("/v1/usage", { ...query }) },
    insights: { get: (query) => get<Insights>("/v1/insights", { ...query }) },
    dlq: {
      list: (query) => paged<"dead_letters", DeadLetter, DeadLetterListQuery>("/v1/dlq", "dead_letters", query),
      replay: (id) => send<ReplayAccepted>("POST", path`/v1/dlq/${id}/replay`, undefined),
    },
    webhooks: webhookRoutes(transport),
    otlp: {
      mapping: {
        get: () => get<OtlpMapping>("/v1/otlp/mapping"),
        put: (mapping) => send<OtlpMapping>("PUT", "/v1/otlp/mapping", mapping),
      },
    },
  };
}
