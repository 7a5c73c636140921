// The API token page: the current token (recomputed from the account's generation, as the CLI does), a
// copy button, and "New token" behind a confirmation, which revokes the old one on every node.
import type { DashboardRoute } from "../context.js";
import { html } from "../html.js";
import { BASE, csrfField, layout, notice } from "../layout.js";
import { page, redirect } from "../web.js";

export const tokenRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/token",
    async handle(ctx) {
      const { token } = await ctx.services.accounts.show(ctx.session.accountId);
      const rotated = ctx.req.query.get("rotated") === "1";
      return page(
        200,
        layout(
          ctx.viewer,
          "/token",
          "API token",
          html`${notice(rotated ? "A new token was made. The previous token no longer works." : undefined, "ok")}
<p>Send it as <code>Authorization: Bearer &lt;token&gt;</code> with every API request. It can be shown here again at any time.</p>
<div class="token">
  <code data-testid="api-token" id="api-token">${token}</code>
  <button type="button" data-copy="api-token">Copy</button>
</div>
<p><a class="button danger" href="${BASE}/token/new">New token</a></p>`,
        ),
      );
    },
  },
  {
    method: "GET",
    path: "/token/new",
    handle: (ctx) =>
      page(
        200,
        layout(
          ctx.viewer,
          "/token",
          "New token",
          html`<p>A new token replaces the current one. <strong>The current token stops working at once</strong>, on every server: update every agent that uses it.</p>
<form method="post" action="${BASE}/token/new">
  ${csrfField(ctx.viewer)}
  <button type="submit" class="danger">Yes, make a new token</button>
  <a href="${BASE}/token">Cancel</a>
</form>`,
        ),
      ),
  },
  {
    method: "POST",
    path: "/token/new",
    async handle(ctx) {
      await ctx.services.accounts.rotate(ctx.session.accountId);
      return redirect(`${BASE}/token?rotated=1`);
    },
  },
];
