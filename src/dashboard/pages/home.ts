// The home page: the numbers a person checks first.
import type { DashboardRoute } from "../context.js";
import { html } from "../html.js";
import { layout } from "../layout.js";
import { page } from "../web.js";

export const homeRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/",
    handle: (ctx) => page(200, layout(ctx.viewer, "", "Home", html`<p>Welcome to Verdict.</p>`)),
  },
];
