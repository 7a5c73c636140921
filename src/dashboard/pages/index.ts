// Every dashboard page, in one table.
import type { DashboardRoute } from "../context.js";
import { chargeRoutes } from "./charges.js";
import { conditionCheckRoutes } from "./condition-check.js";
import { configurationPages } from "./configuration.js";
import { deadLetterRoutes } from "./dead-letters.js";
import { homeRoutes } from "./home.js";
import { insightRoutes } from "./insights.js";
import { otlpMappingRoutes } from "./otlp-mapping.js";
import { outcomeRoutes } from "./outcomes.js";
import { signInRoutes } from "./sign-in.js";
import { tokenRoutes } from "./token.js";
import { webhookRoutes } from "./webhooks.js";

export const dashboardPages: readonly DashboardRoute[] = [
  ...signInRoutes,
  ...homeRoutes,
  ...tokenRoutes,
  ...conditionCheckRoutes,
  ...configurationPages,
  ...insightRoutes,
  ...outcomeRoutes,
  ...deadLetterRoutes,
  ...chargeRoutes,
  ...webhookRoutes,
  ...otlpMappingRoutes,
];
