// The four routes every account configuration record has: PUT (upsert: 201 created, 200 replaced), GET
// one, GET list (paged by key), DELETE (204); a missing record is its kind's NOT_FOUND.
import { ApiError } from "../errors/api-error.js";
import type { HttpErrorCode } from "../errors/codes.js";
import type { Route } from "../ingress/router.js";
import type { RecordStore } from "../records/record-store.js";
import type { RecordKind } from "../records/record-kind.js";
import { decodeRecordCursor, encodeRecordCursor } from "./record-cursor.js";
import { pathKey, paging } from "./request-checks.js";

interface Resource<T> {
  kind: RecordKind;
  /** Path segment and list field, e.g. "rate-cards" and "rate_cards". */
  segment: string;
  listField: string;
  notFound: HttpErrorCode;
  build(key: string, body: unknown): T;
}

export function recordRoutes<T extends object>(records: RecordStore, resource: Resource<T>): Route[] {
  const one = `/v1/${resource.segment}/:key`;
  const missing = (key: string): ApiError => new ApiError(resource.notFound, `no ${resource.kind} ${key}`);
  return [
    {
      method: "PUT",
      path: one,
      async handler(req) {
        const key = pathKey(req.params);
        const record = resource.build(key, req.body);
        const created = await records.put(req.accountId, resource.kind, key, record);
        return { status: created ? 201 : 200, body: record };
      },
    },
    {
      method: "GET",
      path: one,
      async handler(req) {
        const key = pathKey(req.params);
        const record = await records.get<T>(req.accountId, resource.kind, key);
        if (!record) throw missing(key);
        return { status: 200, body: record };
      },
    },
    {
      method: "DELETE",
      path: one,
      async handler(req) {
        const key = pathKey(req.params);
        if (!(await records.delete(req.accountId, resource.kind, key))) throw missing(key);
        return { status: 204 };
      },
    },
    {
      method: "GET",
      path: `/v1/${resource.segment}`,
      async handler(req) {
        const { limit, cursor } = paging(req.query);
        const page = await records.list<T>(
          req.accountId,
          resource.kind,
          limit,
          decodeRecordCursor(resource.kind, cursor),
        );
        const next = page.nextCursor === null ? null : encodeRecordCursor(resource.kind, page.nextCursor);
        return { status: 200, body: { [resource.listField]: page.items, next_cursor: next } };
      },
    },
  ];
}
