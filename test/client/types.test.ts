// Type tests for verdict/client, through the package's own export: both event shapes and every route's body
// check, wrong shapes do not (each @ts-expect-error fails `npm run typecheck` if its line ever compiles).
import { describe, expectTypeOf, it } from "vitest";
import type {
  Agent,
  BatchAccepted,
  Charge,
  ClientStats,
  Customer,
  DeadLetter,
  EventAccepted,
  LoggedEvent,
  Outcome,
  RateCard,
  ReplayAccepted,
  Task,
  Usage,
  VerdictClient,
  VerdictError,
  VerdictErrorCode,
  VerdictEvent,
} from "verdict/client";

type Client = VerdictClient;
const someString: string = "from a variable, not a literal";

describe("verdict/client types", () => {
  it("takes a Variant A and a Variant B event, and refuses shapes the service refuses", () => {
    expectTypeOf<Client["track"]>().toBeCallableWith({ outcome_key: "ticket:1", action: "agent_response" });
    expectTypeOf<Client["track"]>().toBeCallableWith({
      outcome_key: someString,
      action: someString,
      properties: { value: 3, settles_at: "2026-12-01T00:00:00Z" },
      idempotency_key: someString,
    });
    expectTypeOf<Client["track"]>().toBeCallableWith({ key: "conv:1", customer_key: "acme", action: "reply" });
    expectTypeOf<Client["track"]>().toBeCallableWith({
      key: "conv:1",
      customer_key: "acme",
      agent_key: "resolver",
      action: "reply",
      properties: { attribution: 2 },
    });
    expectTypeOf<Client["events"]["batch"]>().toBeCallableWith([
      { outcome_key: "a", action: "x" },
      { key: "b", customer_key: "c", action: "y" },
    ]);

    // @ts-expect-error action is required
    expectTypeOf<Client["track"]>().toBeCallableWith({ outcome_key: "ticket:1" });
    // @ts-expect-error Variant B needs customer_key
    expectTypeOf<Client["track"]>().toBeCallableWith({ key: "conv:1", action: "reply" });
    // @ts-expect-error an event names its outcome
    expectTypeOf<Client["track"]>().toBeCallableWith({ action: "reply" });
    // @ts-expect-error properties is an object
    expectTypeOf<Client["events"]["send"]>().toBeCallableWith({ outcome_key: "o", action: "a", properties: "value" });
    // An object literal gets TypeScript's excess-property check only where it is assigned, not through
    // expectTypeOf's generic parameters.
    const asEvent = (event: VerdictEvent): VerdictEvent => event;
    // @ts-expect-error idempotencyKey is not a field (the service refuses unknown fields)
    expectTypeOf(asEvent({ outcome_key: "o", action: "a", idempotencyKey: "k" })).toEqualTypeOf<VerdictEvent>();
  });

  it("checks each route's request body", () => {
    expectTypeOf<Client["tasks"]["put"]>().toBeCallableWith("support", {
      name: "Support",
      condition: "done",
      settlement_period: "1d",
    });
    expectTypeOf<Client["tasks"]["put"]>().toBeCallableWith("support", {
      name: "Support",
      condition: { all: [{ action: "done" }] },
      goal: null,
    });
    expectTypeOf<Client["outcomes"]["open"]>().toBeCallableWith({
      key: "ticket:1",
      task_key: "support",
      settles_at: "2026-12-01T00:00:00Z",
    });
    expectTypeOf<Client["agents"]["put"]>().toBeCallableWith("resolver", {
      name: "Resolver",
      condition: "resolved",
      attribution_method: "max",
    });
    expectTypeOf<Client["customers"]["put"]>().toBeCallableWith("acme", { name: "Acme", rate_card_key: "standard" });
    expectTypeOf<Client["rateCards"]["put"]>().toBeCallableWith("standard", {
      currency: "EUR",
      entries: [{ agent_key: "resolver", unit_amount: 250 }],
    });
    expectTypeOf<Client["outcomes"]["list"]>().toBeCallableWith({ status: "OPEN", customer_key: "acme", limit: 50 });
    expectTypeOf<Client["charges"]["list"]>().toBeCallableWith({ customer_key: "acme", from: "2026-11-01T00:00:00Z" });
    expectTypeOf<Client["dlq"]["list"]>().toBeCallableWith({ code: "OUTCOME_NOT_OPEN" });

    // @ts-expect-error a task needs a condition
    expectTypeOf<Client["tasks"]["put"]>().toBeCallableWith("support", { name: "Support" });
    // @ts-expect-error opening needs task_key
    expectTypeOf<Client["outcomes"]["open"]>().toBeCallableWith({ key: "ticket:1" });
    // Laid out as the formatter lays them out, so each directive sits on the line of the wrong field.
    expectTypeOf<Client["agents"]["put"]>().toBeCallableWith("resolver", {
      name: "R",
      condition: "done",
      // @ts-expect-error attribution_method is one of first, last, min, max, sum
      attribution_method: "median",
    });
    expectTypeOf<Client["rateCards"]["put"]>().toBeCallableWith("standard", {
      currency: "EUR",
      // @ts-expect-error unit_amount is a number of minor units
      entries: [{ agent_key: "r", unit_amount: "2.50" }],
    });
    // @ts-expect-error a customer has a name
    expectTypeOf<Client["customers"]["put"]>().toBeCallableWith("acme", { rate_card_key: "standard" });
    // @ts-expect-error status is OPEN, CONFIRMED or FAILED
    expectTypeOf<Client["outcomes"]["list"]>().toBeCallableWith({ status: "DONE" });
  });

  it("resolves each call to the body the service answers", () => {
    expectTypeOf<Client["track"]>().returns.resolves.toEqualTypeOf<void>();
    expectTypeOf<Client["events"]["send"]>().returns.resolves.toEqualTypeOf<EventAccepted>();
    expectTypeOf<Client["events"]["batch"]>().returns.resolves.toEqualTypeOf<BatchAccepted>();
    expectTypeOf<BatchAccepted["failed"][number]["reason"]>().toEqualTypeOf<
      "rejected" | "unconfirmed" | "rate_limited"
    >();
    expectTypeOf<Client["outcomes"]["get"]>().returns.resolves.toEqualTypeOf<Outcome>();
    expectTypeOf<Outcome["status"]>().toEqualTypeOf<"OPEN" | "CONFIRMED" | "FAILED">();
    expectTypeOf<Client["tasks"]["put"]>().returns.resolves.toEqualTypeOf<Task>();
    expectTypeOf<Client["agents"]["get"]>().returns.resolves.toEqualTypeOf<Agent>();
    expectTypeOf<Client["customers"]["get"]>().returns.resolves.toEqualTypeOf<Customer>();
    expectTypeOf<Client["rateCards"]["get"]>().returns.resolves.toEqualTypeOf<RateCard>();
    expectTypeOf<Client["tasks"]["delete"]>().returns.resolves.toEqualTypeOf<void>();
    expectTypeOf<Client["usage"]["get"]>().returns.resolves.toEqualTypeOf<Usage>();
    expectTypeOf<Client["dlq"]["replay"]>().returns.resolves.toEqualTypeOf<ReplayAccepted>();
    expectTypeOf<Client["stats"]>().returns.toEqualTypeOf<ClientStats>();
    expectTypeOf<VerdictError["code"]>().toEqualTypeOf<VerdictErrorCode>();
    expectTypeOf<"TOKEN_INVALID">().toMatchTypeOf<VerdictErrorCode>();
  });

  it("awaits a list as its page and iterates it as its items", () => {
    type OutcomeList = ReturnType<Client["outcomes"]["list"]>;
    expectTypeOf<Awaited<OutcomeList>>().toEqualTypeOf<{ outcomes: Outcome[] } & { next_cursor: string | null }>();
    expectTypeOf<OutcomeList>().toMatchTypeOf<AsyncIterable<Outcome>>();
    expectTypeOf<ReturnType<Client["outcomes"]["events"]>>().toMatchTypeOf<AsyncIterable<LoggedEvent>>();
    expectTypeOf<ReturnType<Client["charges"]["list"]>>().toMatchTypeOf<AsyncIterable<Charge>>();
    expectTypeOf<ReturnType<Client["dlq"]["list"]>>().toMatchTypeOf<AsyncIterable<DeadLetter>>();
    expectTypeOf<ReturnType<Client["tasks"]["list"]>>().toMatchTypeOf<AsyncIterable<Task>>();
    expectTypeOf<Awaited<ReturnType<Client["tasks"]["list"]>>>().toEqualTypeOf<
      { tasks: Task[] } & { next_cursor: string | null }
    >();
    // @ts-expect-error a list of outcomes does not iterate tasks
    expectTypeOf<ReturnType<Client["outcomes"]["list"]>>().toMatchTypeOf<AsyncIterable<Task>>();
  });
});
