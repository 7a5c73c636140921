// Webhook endpoints (Standard Webhooks): create, list, read, change, delete, the signing secret and its
// rotation, and each endpoint's messages, their attempts and resend. An unknown endpoint or message is
// WEBHOOK_ENDPOINT_NOT_FOUND or WEBHOOK_MESSAGE_NOT_FOUND (404); a bad or refused URL is VALIDATION_ERROR.
import typia, { type tags } from "typia";
import { ApiError } from "../../errors/api-error.js";
import type { Route } from "../../ingress/router.js";
import type { RecordStore } from "../../records/record-store.js";
import type { WebhookEndpointRecord, WebhookEventType } from "../../records/webhook-endpoint.js";
import type { RedisClient } from "../../redis/client.js";
import type { Keys } from "../../redis/keys.js";
import { decodeCursor, encodeCursor } from "../../stores/cursor.js";
import { checkTarget, UnsafeUrlError } from "../../webhooks/address-guard.js";
import {
  endpointView,
  WebhookEndpointStore,
  type EndpointChanges,
  type WebhookEndpointView,
} from "../../webhooks/endpoint-store.js";
import { WebhookMessageStore, type MessageLogLimits } from "../../webhooks/message-store.js";
import { WebhookAccounts } from "../../webhooks/webhook-accounts.js";
import { decodeRecordCursor, encodeRecordCursor } from "../record-cursor.js";
import { invalidCursor, paging, validBody } from "../request-checks.js";

type Url = string & tags.MinLength<1> & tags.MaxLength<2048>;
type Description = string & tags.MaxLength<1024>;
type EventTypes = WebhookEventType[] & tags.MinItems<1> & tags.MaxItems<4> & tags.UniqueItems;

export interface CreateWebhookEndpointBody {
  url: Url;
  event_types?: EventTypes | null;
  description?: Description | null;
}

export interface PatchWebhookEndpointBody {
  url?: Url;
  event_types?: EventTypes | null;
  description?: Description | null;
  enabled?: boolean;
}

/** The answer to a create: the endpoint, with the one sight of its signing secret. */
export type WebhookEndpointCreated = WebhookEndpointView & { secret: string };

export interface WebhookSecretRotated {
  secret: string;
  /** ISO 8601: until then the previous secret signs alongside the new one. */
  previous_secret_expires_at: string;
}

export interface WebhookMessageResent {
  resent: true;
  id: string;
}

const validateCreate = typia.createValidateEquals<CreateWebhookEndpointBody>();
const validatePatch = typia.createValidateEquals<PatchWebhookEndpointBody>();

export interface WebhookRouteDeps {
  redis: RedisClient;
  keys: Keys;
  shards: number;
  records: RecordStore;
  allowPrivateUrls: boolean;
  limits: MessageLogLimits;
  clock: () => number;
}

function endpointNotFound(id: string): ApiError {
  return new ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", `no webhook endpoint ${id}`);
}

function messageNotFound(id: string): ApiError {
  return new ApiError("WEBHOOK_MESSAGE_NOT_FOUND", `no webhook message ${id}`);
}

/** What every group of webhook routes shares: the stores and the checks built once in webhookRoutes. */
interface WebhookRouteParts {
  endpoints: WebhookEndpointStore;
  messages: WebhookMessageStore;
  clock: () => number;
  checkUrl: (url: string) => Promise<void>;
  existing: (accountId: string, id: string | undefined) => Promise<WebhookEndpointRecord>;
  forgetFailing: (accountId: string, id: string) => Promise<void>;
}

const one = "/v1/webhook-endpoints/:id";

export function webhookRoutes({
  redis,
  keys,
  shards,
  records,
  allowPrivateUrls,
  limits,
  clock,
}: WebhookRouteDeps): Route[] {
  const endpoints = new WebhookEndpointStore(records, new WebhookAccounts(redis, keys, shards));
  const messages = new WebhookMessageStore(redis, keys, shards, limits);
  /** Refuses a URL that is not http(s) or whose host resolves to a private address (unless allowed). */
  const checkUrl = async (url: string): Promise<void> => {
    try {
      await checkTarget(url, allowPrivateUrls);
    } catch (error) {
      const message =
        error instanceof UnsafeUrlError
          ? error.message
          : `url host does not resolve (${error instanceof Error ? error.message : String(error)})`;
      throw new ApiError("VALIDATION_ERROR", message, [{ path: "url", message }]);
    }
  };
  const existing = async (accountId: string, id: string | undefined): Promise<WebhookEndpointRecord> => {
    const endpoint = await endpoints.get(accountId, id ?? "");
    if (!endpoint) throw endpointNotFound(id ?? "");
    return endpoint;
  };
  /**
   * Forgets since when an endpoint has been failing: an endpoint enabled again gets a fresh period before
   * it is disabled for failing (not disabled again at its next failure), and a deleted one leaves nothing.
   */
  const forgetFailing = async (accountId: string, id: string): Promise<void> => {
    await redis.hdel(keys.webhookFailingSince(accountId), id);
  };
  const parts: WebhookRouteParts = { endpoints, messages, clock, checkUrl, existing, forgetFailing };
  return [...endpointRoutes(parts), ...secretRoutes(parts), ...messageRoutes(parts)];
}

/** Create, list, read, change and delete an endpoint. */
function endpointRoutes({ endpoints, clock, checkUrl, existing, forgetFailing }: WebhookRouteParts): Route[] {
  return [
    {
      method: "POST",
      path: "/v1/webhook-endpoints",
      async handler(req) {
        const body = validBody(validateCreate(req.body));
        await checkUrl(body.url);
        const record = await endpoints.create(
          req.accountId,
          { url: body.url, event_types: body.event_types ?? null, description: body.description ?? null },
          clock(),
        );
        return {
          status: 201,
          body: { ...endpointView(record), secret: record.secret } satisfies WebhookEndpointCreated,
        };
      },
    },
    {
      method: "GET",
      path: "/v1/webhook-endpoints",
      async handler(req) {
        const { limit, cursor } = paging(req.query);
        const page = await endpoints.list(req.accountId, limit, decodeRecordCursor("webhook-endpoint", cursor));
        const next = page.nextCursor === null ? null : encodeRecordCursor("webhook-endpoint", page.nextCursor);
        return { status: 200, body: { webhook_endpoints: page.items.map(endpointView), next_cursor: next } };
      },
    },
    {
      method: "GET",
      path: one,
      async handler(req) {
        return { status: 200, body: endpointView(await existing(req.accountId, req.params.id)) };
      },
    },
    {
      method: "PATCH",
      path: one,
      async handler(req) {
        const body = validBody(validatePatch(req.body));
        if (body.url !== undefined) await checkUrl(body.url);
        const changes: EndpointChanges = {};
        if (body.url !== undefined) changes.url = body.url;
        if (body.event_types !== undefined) changes.event_types = body.event_types;
        if (body.description !== undefined) changes.description = body.description;
        if (body.enabled !== undefined) changes.enabled = body.enabled;
        const updated = await endpoints.patch(req.accountId, req.params.id ?? "", changes);
        if (!updated) throw endpointNotFound(req.params.id ?? "");
        if (body.enabled === true) await forgetFailing(req.accountId, updated.id);
        return { status: 200, body: endpointView(updated) };
      },
    },
    {
      method: "DELETE",
      path: one,
      async handler(req) {
        if (!(await endpoints.delete(req.accountId, req.params.id ?? ""))) throw endpointNotFound(req.params.id ?? "");
        await forgetFailing(req.accountId, req.params.id ?? "");
        return { status: 204 };
      },
    },
  ];
}

/** An endpoint's signing secret and its rotation. */
function secretRoutes({ endpoints, clock, existing }: WebhookRouteParts): Route[] {
  return [
    {
      method: "GET",
      path: `${one}/secret`,
      async handler(req) {
        return { status: 200, body: { secret: (await existing(req.accountId, req.params.id)).secret } };
      },
    },
    {
      method: "POST",
      path: `${one}/rotate-secret`,
      async handler(req) {
        const rotated = await endpoints.rotateSecret(req.accountId, req.params.id ?? "", clock());
        if (!rotated) throw endpointNotFound(req.params.id ?? "");
        const body: WebhookSecretRotated = {
          secret: rotated.secret,
          previous_secret_expires_at: new Date(rotated.previous_secret_until ?? 0).toISOString(),
        };
        return { status: 200, body };
      },
    },
  ];
}

/** An endpoint's messages, their attempts and resend. */
function messageRoutes({ messages, existing }: WebhookRouteParts): Route[] {
  return [
    {
      method: "GET",
      path: `${one}/messages`,
      async handler(req) {
        const endpoint = await existing(req.accountId, req.params.id);
        const { limit, cursor } = paging(req.query);
        const position = cursor === null ? null : decodeCursor(cursor);
        if (position === undefined) throw invalidCursor();
        const page = await messages.list(req.accountId, endpoint.id, limit, position);
        if (!page) throw invalidCursor();
        return {
          status: 200,
          body: { messages: page.items, next_cursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor) },
        };
      },
    },
    {
      method: "GET",
      path: `${one}/messages/:message_id/attempts`,
      async handler(req) {
        const endpoint = await existing(req.accountId, req.params.id);
        const messageId = req.params.message_id ?? "";
        const shard = await messages.locate(req.accountId, endpoint.id, messageId);
        if (shard === undefined) throw messageNotFound(messageId);
        return {
          status: 200,
          body: { attempts: await messages.attempts(shard, req.accountId, endpoint.id, messageId) },
        };
      },
    },
    {
      method: "POST",
      path: `${one}/messages/:message_id/resend`,
      async handler(req) {
        const endpoint = await existing(req.accountId, req.params.id);
        const messageId = req.params.message_id ?? "";
        const shard = await messages.locate(req.accountId, endpoint.id, messageId);
        if (shard === undefined || !(await messages.resend(shard, req.accountId, endpoint.id, messageId, Date.now())))
          throw messageNotFound(messageId);
        return { status: 202, body: { resent: true, id: messageId } satisfies WebhookMessageResent };
      },
    },
  ];
}
