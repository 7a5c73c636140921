// Routes that read and write Redis answer 503 SERVICE_UNAVAILABLE (Retry-After: 1) while it cannot
// answer, within about a second, instead of a 500 after the 5 s command timeout. A read gives up as soon
// as Redis is found down (it changes nothing, so abandoning it is safe); a write is refused up front when
// Redis is already down, but one already under way is waited for, so its answer says what happened.
import { ApiError } from "../errors/api-error.js";
import type { Route } from "../ingress/router.js";
import type { RedisLiveness } from "../redis/liveness.js";

function unavailable(cause?: unknown): ApiError {
  return new ApiError("SERVICE_UNAVAILABLE", "the data store is not answering; retry shortly", undefined, {
    retryAfterSeconds: 1,
    ...(cause !== undefined && { cause }),
  });
}

/** `routes` with their handlers guarded by `liveness`. */
export function guardedByLiveness(routes: readonly Route[], liveness: RedisLiveness): Route[] {
  return routes.map((route) => {
    const abandon = route.method === "GET";
    return {
      ...route,
      async handler(req) {
        if (liveness.down) throw unavailable();
        let cancel = (): void => {};
        try {
          const answer = route.handler(req);
          if (!abandon) return await answer;
          const gaveUp = new Promise<never>((_, reject) => {
            cancel = liveness.onDown(() => reject(unavailable()));
          });
          // The abandoned read's own failure, later, is of no interest.
          answer.catch(() => {});
          return await Promise.race([answer, gaveUp]);
        } catch (error) {
          // A failure while Redis is down (connection closed, command timed out) is that, not a bug.
          if (!(error instanceof ApiError) && liveness.down) throw unavailable(error);
          throw error;
        } finally {
          cancel();
        }
      },
    };
  });
}
