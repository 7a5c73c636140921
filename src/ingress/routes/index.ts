// Every API route of the service, assembled from the feature files; add a feature's routes here.
import type { Route } from "../router.js";
import { eventRoutes, type EventRouteDeps } from "./events.js";

export type ApiRouteDeps = EventRouteDeps;

export function apiRoutes(deps: ApiRouteDeps): Route[] {
  return [...eventRoutes(deps)];
}
