// The stack a user would otherwise reach for: Fastify + BullMQ, written the ordinary way. A bearer token
// compared to the configured one, JSON bodies checked by Fastify's own JSON schema validation, then
// POST /v1/events -> one `queue.add` per request and POST /v1/events/batch -> one `queue.addBulk` per
// request (1..500 events), both with `removeOnComplete: true`, answered 202 once BullMQ confirmed.
// Run as its own process by bench/run.ts; argument {"redisPort", "token"}; prints {"port"} when listening.
import Fastify from "fastify";
import { Queue } from "bullmq";

export const QUEUE_NAME = "events";

interface EventBody {
  outcome_key?: string;
  key?: string;
  customer_key?: string;
  agent_key?: string;
  action: string;
  properties?: Record<string, unknown>;
  idempotency_key?: string;
}

const eventSchema = {
  type: "object",
  required: ["action"],
  additionalProperties: false,
  properties: {
    outcome_key: { type: "string", minLength: 1, maxLength: 512 },
    key: { type: "string", minLength: 1, maxLength: 512 },
    customer_key: { type: "string", minLength: 1, maxLength: 512 },
    agent_key: { type: "string", minLength: 1, maxLength: 512 },
    action: { type: "string", minLength: 1, maxLength: 128 },
    properties: { type: "object" },
    idempotency_key: { type: "string", minLength: 1, maxLength: 512 },
  },
} as const;

async function main(): Promise<void> {
  const { redisPort, token } = JSON.parse(process.argv[2] ?? "{}") as { redisPort: number; token: string };
  const queue = new Queue<EventBody>(QUEUE_NAME, { connection: { host: "127.0.0.1", port: redisPort } });
  const expected = `Bearer ${token}`;
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
  app.addHook("onRequest", async (request, reply) => {
    if (request.headers.authorization !== expected) await reply.code(401).send({ error: { code: "TOKEN_INVALID" } });
  });
  app.post<{ Body: EventBody }>("/v1/events", { schema: { body: eventSchema } }, async (request, reply) => {
    await queue.add("event", request.body, { removeOnComplete: true });
    return reply.code(202).send({ accepted: true, duplicate: false });
  });
  app.post<{ Body: { events: EventBody[] } }>(
    "/v1/events/batch",
    {
      schema: {
        body: {
          type: "object",
          required: ["events"],
          additionalProperties: false,
          properties: { events: { type: "array", minItems: 1, maxItems: 500, items: eventSchema } },
        },
      },
    },
    async (request, reply) => {
      const { events } = request.body;
      await queue.addBulk(events.map((data) => ({ name: "event", data, opts: { removeOnComplete: true } })));
      return reply.code(202).send({ accepted: events.length, failed: [], duplicates: [] });
    },
  );
  await queue.waitUntilReady();
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
