// Sign up, sign in and sign out: the only dashboard routes open without a session (sign out needs one).
import { hashPassword } from "../../accounts/password.js";
import { checkNewUser, emailFits, normaliseEmail, UserInputError } from "../../accounts/users.js";
import type { DashboardRoute, PublicContext } from "../context.js";
import { html } from "../html.js";
import { BASE, field, notice, publicLayout } from "../layout.js";
import { clearedSessionCookie, sessionCookie } from "../session-cookie.js";
import { page, redirect, type WebResponse } from "../web.js";

const INVALID = "Invalid email or password";
/** Fixed words for the `notice` code of the sign-in page's URL. */
const NOTICES: Record<string, string> = {
  "signed-up": "Thank you for signing up. Sign in with the email and password you chose.",
};

function waitWords(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.ceil(ms / 1000);
    return `${seconds} second${seconds === 1 ? "" : "s"}`;
  }
  const minutes = Math.ceil(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/**
 * Where to go after signing in: only a path of the dashboard (`/dashboard`, `/dashboard/...`, `/dashboard?...`),
 * printable ASCII with no `//` and no backslash, so `next` can neither leave the site nor add a header.
 */
export function safeNext(next: string | null): string {
  if (next === null || !/^\/dashboard(?:[/?#]|$)/.test(next)) return BASE;
  return /^[\x21-\x7e]*$/.test(next) && !next.includes("//") && !next.includes("\\") ? next : BASE;
}

function signInPage(
  status: number,
  values: { email: string; next: string },
  message?: string,
  signupOpen = true,
  ok?: string,
): WebResponse {
  return page(
    status,
    publicLayout(
      "Sign in",
      html`${notice(message)}${notice(ok, "ok")}
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

function signUpPage(status: number, values: SignUpValues, errors: SignUpErrors = {}, message?: string): WebResponse {
  return page(
    status,
    publicLayout(
      "Sign up",
      html`${notice(message)}<form method="post" action="${BASE}/sign-up" novalidate>
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
  page(
    403,
    publicLayout(
      "Sign up",
      html`<p>Sign-up is closed on this server. Ask an operator to add you with <code>verdict user add</code>.</p>
<p><a href="${BASE}/sign-in">Sign in</a></p>`,
    ),
  );

/** Makes the account and its user, or, when the email is taken, does the same hashing work and nothing else. */
async function register(ctx: PublicContext, values: SignUpValues, password: string): Promise<void> {
  if (await ctx.services.users.isTaken(values.email)) {
    await hashPassword(password);
    return;
  }
  const account = await ctx.services.accounts.create(values.accountName);
  try {
    await ctx.services.users.add(account.account_id, values.email, password);
  } catch (error) {
    // Lost a race for the email to another sign-up: taken, like above.
    if (!(error instanceof UserInputError)) throw error;
  }
}

async function startSession(ctx: PublicContext, accountId: string, email: string, next: string): Promise<WebResponse> {
  const session = await ctx.services.sessions.create(accountId, email);
  return redirect(next, [sessionCookie(session.id, ctx.services.secureCookie)]);
}

export const signInRoutes: DashboardRoute[] = [
  {
    method: "GET",
    path: "/sign-in",
    public: true,
    handle: (ctx) =>
      signInPage(
        200,
        { email: "", next: safeNext(ctx.req.query.get("next")) },
        undefined,
        ctx.services.signup === "open",
        NOTICES[ctx.req.query.get("notice") ?? ""],
      ),
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
      // No user has such an email: refused before the limiter or anything else stores a byte of it.
      if (!emailFits(email)) return signInPage(400, { email: "", next }, INVALID, open);
      const waitMs = await ctx.services.signInLimit.attempt(email, ctx.req.address);
      if (waitMs > 0)
        return signInPage(429, { email, next }, `Too many sign-in attempts. Try again in ${waitWords(waitMs)}.`, open);
      const user = await ctx.services.users.authenticate(email, password);
      if (!user) return signInPage(400, { email, next }, INVALID, open);
      await ctx.services.signInLimit.succeeded(email);
      return startSession(ctx, user.account_id, user.email, next);
    },
  },
  {
    method: "GET",
    path: "/sign-up",
    public: true,
    handle: (ctx) =>
      ctx.services.signup === "open" ? signUpPage(200, { email: "", accountName: "" }) : signUpClosed(),
  },
  {
    method: "POST",
    path: "/sign-up",
    public: true,
    async handle(ctx) {
      if (ctx.services.signup !== "open") return signUpClosed();
      const values = {
        email: ctx.req.form.get("email") ?? "",
        accountName: (ctx.req.form.get("account_name") ?? "").trim(),
      };
      const password = ctx.req.form.get("password") ?? "";
      const errors: SignUpErrors = {};
      for (const problem of checkNewUser(values.email, password)) errors[problem.field] = problem.message;
      if (values.accountName === "") errors.account_name = "Enter a name for the account.";
      else if (values.accountName.length > 200) errors.account_name = "Use at most 200 characters.";
      if (Object.keys(errors).length > 0) return signUpPage(400, values, errors);
      const waitMs = await ctx.services.signInLimit.signUp(ctx.req.address);
      if (waitMs > 0)
        return signUpPage(429, values, {}, `Too many sign-ups from your network. Try again in ${waitWords(waitMs)}.`);
      await register(ctx, values, password);
      // The same answer, after the same work, whether or not the email already had an account: signing in
      // is what tells, and only the owner's password does.
      return redirect(`${BASE}/sign-in?notice=signed-up&next=${encodeURIComponent(`${BASE}/token`)}`);
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
