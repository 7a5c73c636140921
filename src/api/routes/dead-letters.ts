// The dead-letter queue: list (filter by code) and replay, which sends the event through the shard again.
import { ApiError } from "../../errors/api-error.js";
import type { Route } from "../../ingress/router.js";
import type { DeadLetterStore } from "../../stores/dead-letter-store.js";
import type { EventEnvelope } from "../../streams/event-envelope.js";
import { filterParam, invalidCursor, paging } from "../request-checks.js";

/**
 * Enqueues a replayed event, claiming its dead letter's `source` delivery; resolves once it is in its shard
 * stream (or already was, from an earlier replay of the same delivery), rejects when it could not be.
 */
/** The 202 body of POST /v1/dlq/{id}/replay. */
export interface ReplayAccepted {
  replayed: true;
  id: string;
}

export type ReplayEnqueue = (event: EventEnvelope, source: string) => Promise<void>;

export function deadLetterRoutes(deadLetters: DeadLetterStore, enqueueReplay: ReplayEnqueue): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/dlq",
      async handler(req) {
        const { limit, cursor } = paging(req.query);
        const page = await deadLetters.list(req.accountId, filterParam(req.query, "code"), limit, cursor);
        if (!page) throw invalidCursor();
        return { status: 200, body: { dead_letters: page.items, next_cursor: page.nextCursor } };
      },
    },
    {
      method: "POST",
      path: "/v1/dlq/:id/replay",
      async handler(req) {
        const id = req.params.id ?? "";
        // In Redis or in the archive; claiming it makes a concurrent second replay a 404, never a second event.
        const letter = await deadLetters.claim(req.accountId, id);
        if (!letter) throw new ApiError("DEAD_LETTER_NOT_FOUND", `no dead letter ${id}`);
        try {
          await enqueueReplay({ ...letter.record.event, receivedAt: req.receivedAt }, letter.record.source);
        } catch (error) {
          await letter.release();
          throw error;
        }
        return { status: 202, body: { replayed: true, id } satisfies ReplayAccepted };
      },
    },
  ];
}
