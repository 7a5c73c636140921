// Tasks: templates Variant A outcomes are opened from; outcomes copy the goal and condition at opening.
import typia from "typia";
import type { Route } from "../../ingress/router.js";
import type { RecordStore } from "../../records/record-store.js";
import type { TaskRecord } from "../../records/task.js";
import { contractFields, type ContractBody } from "../contract-fields.js";
import { recordRoutes } from "../record-routes.js";
import { validBody } from "../request-checks.js";

const validatePutTask = typia.createValidateEquals<ContractBody>();

export function taskRoutes(records: RecordStore): Route[] {
  return recordRoutes<TaskRecord>(records, {
    kind: "task",
    segment: "tasks",
    listField: "tasks",
    notFound: "TASK_NOT_FOUND",
    build(key, raw) {
      const body = validBody(validatePutTask(raw));
      return { key, ...contractFields(body, { valueOnly: false }) };
    },
  });
}
