// Tasks: templates Variant A outcomes are opened from; outcomes copy the goal and condition at opening.
import typia, { type tags } from "typia";
import type { Route } from "../../ingress/router.js";
import type { RecordStore } from "../../records/record-store.js";
import type { TaskRecord } from "../../records/task.js";
import { canonicalCondition, canonicalPeriod } from "../contract-fields.js";
import { recordRoutes } from "../record-routes.js";
import { validBody } from "../request-checks.js";

interface PutTaskBody {
  name: string & tags.MinLength<1> & tags.MaxLength<512>;
  goal?: (string & tags.MaxLength<4096>) | null;
  /** Text or JSON tree; the condition parser checks the tree's shape and points at what is wrong. */
  condition: (string & tags.MinLength<1>) | Record<string, unknown>;
  settlement_period?: (string & tags.MinLength<1>) | null;
}

const validatePutTask = typia.createValidate<PutTaskBody>();

export function taskRoutes(records: RecordStore): Route[] {
  return recordRoutes<TaskRecord>(records, {
    kind: "task",
    segment: "tasks",
    listField: "tasks",
    notFound: "TASK_NOT_FOUND",
    listAll: true,
    build(key, raw) {
      const body = validBody(validatePutTask(raw));
      return {
        key,
        name: body.name,
        goal: body.goal ?? null,
        condition: canonicalCondition(body.condition, { valueOnly: false }),
        settlement_period: canonicalPeriod(body.settlement_period),
      };
    },
  });
}
