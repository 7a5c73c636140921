// Sign up, sign in and sign out: the only dashboard routes open without a session (sign out needs one).
import { checkNewUser, normaliseEmail, UserInputError } from "../../accounts/users.js";
import type { DashboardRoute, PublicContext } from "../context.js";
import { html } from "../html.js";
import { BASE, field, notice, publicLayout } from "../layout.js";
import { clearedSessionCookie, sessionCookie } from "../session-cookie.js";
import { page, redirect, type WebResponse } from "../web.js";

const INVALID = "Invalid email or password";

/**
 * Where to go after signing in: only a path of the dashboard (`/dashboard`, `/dashboard/...`, `/dashboard?...`),
 * printable ASCII with no `//` and no backslash, so `next` can neither leave the site nor add a header.
 */
export function safeNext(next: string | null): string {
  if (next === null || !/^\/dashboard(?:[/?#]|$)/.test(next)) return BASE;
  return /^[\x21-\x7e]*$/.test(next) && !next.includes("//") && !next.includes("\\") ? next : BASE;
}

function signInPage(status: number, values: { email: string; next: string }, message?: string, signupOpen = true): WebResponse {
  return page(
    status,
    publicLayout(
      "Sign in",
      html`${notice(message)}
<form method="post" action="${BASE}/sign-in" novalidate>
  <input type="hidden" name="next" value="${values.next}">
  ${field("Email", "email", values.email, { type: "email", autocomplete: "username", required: true })}
  ${field("Password", "password", "", { type: "password", autocomplete: "current-password", required: true })}
  <button type="submit">Sign in</button>
</form>
${signupOpen ? html`<p>No account yet? <a href="${BASE}/sign-up">Sign up</a></p>` : ""}`,
    ),
  );
}

interface SignUpValues {
  email: string;
  accountName: string;
}

type SignUpErrors = Partial<Record<"email" | "password" | "account_name", string>>;

function signUpPage(status: number, values: SignUpValues, errors: SignUpErrors = {}): WebResponse {
  return page(
    status,
    publicLayout(
      "Sign up",
      html`<form method="post" action="${BASE}/sign-up" novalidate>
  ${field("Email", "email", values.email, { type: "email", autocomplete: "username", required: true, error: errors.email })}
  ${field("Password", "password", "", { type: "password", autocomplete: "new-password", required: true, error: errors.password, hint: "At least 12 characters." })}
  ${field("Account name", "account_name", values.accountName, { required: true, error: errors.account_name, hint: "Your team or company; you can have one account per email." })}
  <button type="submit">Sign up</button>
</form>
<p>Already have an account? <a href="${BASE}/sign-in">Sign in</a></p>`,
    ),
  );
}

const signUpClosed = (): WebResponse =>
  page(403, publicLayout("Sign up", html`<p>Sign-up is closed on this server. Ask an operator to add you with <code>verdict user add</code>.</p>
<p><a href="${BASE}/sign-in">Sign in</a></p>`));

async function startSession(ctx: PublicContext, accountId: string, email: string, next: string): Promise<WebResponse> {
  const session = await ctx.services.sessions.create(accountId, email);
  return redirect(next, [sessionCookie(session.id, ctx.services.secureCookie)]);
}

export const signInRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/sign-in",
    public: true,
    handle: (ctx) => signInPage(200, { email: "", next: safeNext(ctx.req.query.get("next")) }, undefined, ctx.services.signup === "open"),
  },
  {
    method: "POST",
    path: "/sign-in",
    public: true,
    async handle(ctx) {
      const email = normaliseEmail(ctx.req.form.get("email") ?? "");
      const password = ctx.req.form.get("password") ?? "";
      const next = safeNext(ctx.req.form.get("next"));
      const open = ctx.services.signup === "open";
      const waitMs = await ctx.services.signInLimit.attempt(email, ctx.req.address);
      if (waitMs > 0) {
        const minutes = Math.ceil(waitMs / 60_000);
        return signInPage(429, { email, next }, `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, open);
      }
      const user = await ctx.services.users.authenticate(email, password);
      if (!user) return signInPage(400, { email, next }, INVALID, open);
      return startSession(ctx, user.account_id, user.email, next);
    },
  },
  {
    method: "GET",
    path: "/sign-up",
    public: true,
    handle: (ctx) => (ctx.services.signup === "open" ? signUpPage(200, { email: "", accountName: "" }) : signUpClosed()),
  },
  {
    method: "POST",
    path: "/sign-up",
    public: true,
    async handle(ctx) {
      if (ctx.services.signup !== "open") return signUpClosed();
      const values = { email: ctx.req.form.get("email") ?? "", accountName: (ctx.req.form.get("account_name") ?? "").trim() };
      const password = ctx.req.form.get("password") ?? "";
      const errors: SignUpErrors = {};
      for (const problem of checkNewUser(values.email, password)) errors[problem.field] = problem.message;
      if (values.accountName === "") errors.account_name = "Enter a name for the account.";
      else if (values.accountName.length > 200) errors.account_name = "Use at most 200 characters.";
      if (!errors.email && (await ctx.services.users.isTaken(values.email))) errors.email = "An account already uses this email. Sign in instead.";
      if (Object.keys(errors).length > 0) return signUpPage(400, values, errors);
      const account = await ctx.services.accounts.create(values.accountName);
      try {
        const user = await ctx.services.users.add(account.account_id, values.email, password);
        return await startSession(ctx, account.account_id, user.email, `${BASE}/token`);
      } catch (error) {
        // Lost a race for the email to another sign-up: same answer as when it was taken before.
        if (error instanceof UserInputError) return signUpPage(400, values, { [error.field]: error.message });
        throw error;
      }
    },
  },
  {
    method: "POST",
    path: "/sign-out",
    async handle(ctx) {
      await ctx.services.sessions.delete(ctx.session.id);
      return redirect(`${BASE}/sign-in`, [clearedSessionCookie(ctx.services.secureCookie)]);
    },
  },
];
