// Typed calls for the webhook endpoints (Standard Webhooks): create, list, read, change, delete, rotate the
// secret, and each endpoint's messages, their attempts and resend.
import { PagedList, type ListPage, type PageQuery } from "./paging.js";
import { path, type Query, type Transport } from "./transport.js";
import type {
  CreateWebhookEndpointBody,
  PatchWebhookEndpointBody,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookMessage,
  WebhookMessageResent,
  WebhookSecretRotated,
} from "./wire-types.js";

export interface WebhookRoutes {
  /** Creates an endpoint; the answer is the only one that carries its signing secret unasked. */
  create(body: CreateWebhookEndpointBody): Promise<WebhookEndpointCreated>;
  list(query?: PageQuery): PagedList<WebhookEndpoint, ListPage<"webhook_endpoints", WebhookEndpoint>>;
  get(id: string): Promise<WebhookEndpoint>;
  patch(id: string, body: PatchWebhookEndpointBody): Promise<WebhookEndpoint>;
  delete(id: string): Promise<void>;
  /** The endpoint's current signing secret. */
  secret(id: string): Promise<{ secret: string }>;
  /** A new signing secret; the previous one keeps signing alongside it for a while. */
  rotateSecret(id: string): Promise<WebhookSecretRotated>;
  /** The endpoint's messages, newest first. */
  messages(id: string, query?: PageQuery): PagedList<WebhookMessage, ListPage<"messages", WebhookMessage>>;
  attempts(id: string, messageId: string): Promise<{ attempts: WebhookAttempt[] }>;
  /** Queues the message again with the same webhook-id and a fresh retry schedule. */
  resend(id: string, messageId: string): Promise<WebhookMessageResent>;
}

export function webhookRoutes(transport: Transport): WebhookRoutes {
  const get = <T>(at: string, query?: Query): Promise<T> => transport.request("GET", at, { query }) as Promise<T>;
  const send = <T>(method: "POST" | "PATCH", at: string, body?: unknown): Promise<T> =>
    transport.request(method, at, body === undefined ? {} : { body: JSON.stringify(body) }) as Promise<T>;
  const paged = <Field extends string, Item>(
    at: string,
    field: Field,
    query: PageQuery | undefined,
  ): PagedList<Item, ListPage<Field, Item>> =>
    new PagedList<Item, ListPage<Field, Item>>(
      (cursor) => get<ListPage<Field, Item>>(at, { ...query, ...(cursor === undefined ? {} : { cursor }) }),
      (body) => body[field],
      (body) => body.next_cursor,
    );
  return {
    create: (body) => send<WebhookEndpointCreated>("POST", "/v1/webhook-endpoints", body),
    list: (query) => paged<"webhook_endpoints", WebhookEndpoint>("/v1/webhook-endpoints", "webhook_endpoints", query),
    get: (id) => get<WebhookEndpoint>(path`/v1/webhook-endpoints/${id}`),
    patch: (id, body) => send<WebhookEndpoint>("PATCH", path`/v1/webhook-endpoints/${id}`, body),
    delete: async (id) => {
      await transport.request("DELETE", path`/v1/webhook-endpoints/${id}`);
    },
    secret: (id) => get<{ secret: string }>(path`/v1/webhook-endpoints/${id}/secret`),
    rotateSecret: (id) => send<WebhookSecretRotated>("POST", path`/v1/webhook-endpoints/${id}/rotate-secret`),
    messages: (id, query) =>
      paged<"messages", WebhookMessage>(path`/v1/webhook-endpoints/${id}/messages`, "messages", query),
    attempts: (id, messageId) =>
      get<{ attempts: WebhookAttempt[] }>(path`/v1/webhook-endpoints/${id}/messages/${messageId}/attempts`),
    resend: (id, messageId) =>
      send<WebhookMessageResent>("POST", path`/v1/webhook-endpoints/${id}/messages/${messageId}/resend`),
  };
}
