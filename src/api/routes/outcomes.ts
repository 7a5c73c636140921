// Outcomes: open one from a task, read one (evaluated at read time), list with filters, read its event log.
import typia, { type tags } from "typia";
import { parseDuration } from "../../condition/index.js";
import { ApiError } from "../../errors/api-error.js";
import { INSTANT_RULE, parseInstant } from "../../ingress/instant.js";
import type { Route } from "../../ingress/router.js";
import { SCORE_NAMES, type ScoreName } from "../../outcomes/outcome-index.js";
import type { OutcomeStore, ScoreSort } from "../../stores/outcome-store.js";
import { presentOutcome } from "../../outcomes/present-outcome.js";
import type { RecordStore } from "../../records/record-store.js";
import type { TaskRecord } from "../../records/task.js";
import { LAST_ENTRY_ID, isEntryId } from "../../streams/entry-id.js";
import { filterParam, invalidCursor, pathKey, paging, validBody } from "../request-checks.js";

export interface OpenOutcomeBody {
  key: string & tags.MinLength<1> & tags.MaxLength<512>;
  task_key: string & tags.MinLength<1> & tags.MaxLength<512>;
  settles_at?: (string & tags.Format<"date-time">) | null;
}

const validateOpen = typia.createValidateEquals<OpenOutcomeBody>();
const STATUSES = new Set(["OPEN", "CONFIRMED", "FAILED"]);

const SORTS = new Set<string>(SCORE_NAMES);

/** A clause id as GET /v1/insights names it (conditionClauses): `<8 hex digits>.<position from 1>`. */
type ClauseId = string & tags.Pattern<"^[0-9a-f]{8}\\.[1-9][0-9]{0,5}$">;

const isClauseId = typia.createIs<ClauseId>();

/** `failed_clause`: undefined without it. */
function failedClause(query: URLSearchParams): string | undefined {
  const id = filterParam(query, "failed_clause");
  if (id !== undefined && !isClauseId(id)) {
    throw new ApiError("VALIDATION_ERROR", "failed_clause must be a clause id from GET /v1/insights", [
      { path: "failed_clause", message: "expected a clause id such as 0a1b2c3d.2" },
    ]);
  }
  return id;
}

/** `sort=trajectory|anomaly|novelty` and `order=asc|desc` (desc by default: highest first); undefined without sort. */
function scoreSort(query: URLSearchParams): ScoreSort | undefined {
  const sort = filterParam(query, "sort");
  const order = filterParam(query, "order") ?? "desc";
  if (order !== "asc" && order !== "desc") {
    throw new ApiError("VALIDATION_ERROR", "order must be asc or desc", [
      { path: "order", message: "expected asc or desc" },
    ]);
  }
  if (sort === undefined) {
    if (filterParam(query, "order") !== undefined)
      throw new ApiError("VALIDATION_ERROR", "order needs sort", [
        { path: "order", message: "order applies to sort only" },
      ]);
    return undefined;
  }
  if (!SORTS.has(sort)) {
    throw new ApiError("VALIDATION_ERROR", "sort must be trajectory, anomaly or novelty", [
      { path: "sort", message: "expected trajectory, anomaly or novelty" },
    ]);
  }
  return { score: sort as ScoreName, order };
}

function notFound(key: string): ApiError {
  return new ApiError("OUTCOME_NOT_FOUND", `no outcome ${key}`);
}

/** `clock` is the business clock that reads evaluate against (IDLE brackets, progress). */
export function outcomeRoutes(outcomes: OutcomeStore, records: RecordStore, clock: () => number): Route[] {
  return [
    openRoute(outcomes, records, clock),
    listRoute(outcomes, clock),
    {
      method: "GET",
      path: "/v1/outcomes/:key",
      async handler(req) {
        const key = pathKey(req.params);
        const record = await outcomes.get(req.accountId, key);
        if (!record) throw notFound(key);
        return { status: 200, body: presentOutcome(record, clock()) };
      },
    },
    {
      method: "GET",
      path: "/v1/outcomes/:key/events",
      async handler(req) {
        const key = pathKey(req.params);
        const { limit, cursor } = paging(req.query);
        // The cursor is the last entry id returned; there is always room after one this list handed out.
        if (cursor !== null && (!isEntryId(cursor) || cursor === LAST_ENTRY_ID)) throw invalidCursor();
        if (!(await outcomes.exists(req.accountId, key))) throw notFound(key);
        const page = await outcomes.events(req.accountId, key, limit, cursor);
        return { status: 200, body: { events: page.events, next_cursor: page.nextCursor } };
      },
    },
  ];
}

/** POST /v1/outcomes: opens an outcome from a task (201), or answers the one already opened from it (200). */
function openRoute(outcomes: OutcomeStore, records: RecordStore, clock: () => number): Route {
  return {
    method: "POST",
    path: "/v1/outcomes",
    async handler(req) {
      const body = validBody(validateOpen(req.body));
      const settlesAt = body.settles_at ? parseInstant(body.settles_at) : null;
      if (settlesAt === undefined)
        throw new ApiError("VALIDATION_ERROR", `settles_at must be ${INSTANT_RULE}`, [
          { path: "settles_at", message: `must be ${INSTANT_RULE}` },
        ]);
      const task = await records.get<TaskRecord>(req.accountId, "task", body.task_key);
      if (!task) throw new ApiError("TASK_NOT_FOUND", `no task ${body.task_key}`);
      const result = await outcomes.open({
        accountId: req.accountId,
        key: body.key,
        taskKey: task.key,
        goal: task.goal,
        condition: task.condition,
        settlementPeriodMs: task.settlement_period === null ? null : parseDuration(task.settlement_period),
        settlesAt,
        now: req.receivedAt,
      });
      if (result.kind === "conflict") {
        throw new ApiError(
          "OUTCOME_EXISTS",
          `outcome ${body.key} already exists and was not opened from task ${body.task_key}`,
        );
      }
      return { status: result.kind === "created" ? 201 : 200, body: presentOutcome(result.record, clock()) };
    },
  };
}

/** GET /v1/outcomes: a page of outcomes, filtered and sorted as the query asks. */
function listRoute(outcomes: OutcomeStore, clock: () => number): Route {
  return {
    method: "GET",
    path: "/v1/outcomes",
    async handler(req) {
      const { limit, cursor } = paging(req.query);
      const status = filterParam(req.query, "status");
      if (status !== undefined && !STATUSES.has(status)) {
        throw new ApiError("VALIDATION_ERROR", "status must be OPEN, CONFIRMED or FAILED", [
          { path: "status", message: "expected OPEN, CONFIRMED or FAILED" },
        ]);
      }
      const filter = {
        status,
        taskKey: filterParam(req.query, "task_key"),
        agentKey: filterParam(req.query, "agent_key"),
        customerKey: filterParam(req.query, "customer_key"),
        failedClause: failedClause(req.query),
      };
      const page = await outcomes.list(req.accountId, filter, limit, cursor, scoreSort(req.query));
      if (!page) throw invalidCursor();
      const now = clock();
      return {
        status: 200,
        body: { outcomes: page.records.map((record) => presentOutcome(record, now)), next_cursor: page.nextCursor },
      };
    },
  };
}
