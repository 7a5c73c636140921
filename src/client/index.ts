// verdict/client: the typed client for agent fleets (package.json "exports" "./client").
export { VerdictClient } from "./client.js";
export { DEFAULT_CLIENT_OPTIONS, type ErrorContext, type RetryOptions, type VerdictClientOptions } from "./options.js";
export type { ListPage, PagedList, PageQuery } from "./paging.js";
export type {
  ChargeListQuery,
  DeadLetterListQuery,
  InsightsQuery,
  OutcomeListQuery,
  RecordRoutes,
  Routes,
  UsageQuery,
} from "./routes.js";
export type { ClientStats } from "./stats.js";
export type { WebhookRoutes } from "./webhook-routes.js";
export { VerdictError, type ClientErrorCode, type VerdictErrorCode } from "./verdict-error.js";
export type * from "./wire-types.js";
