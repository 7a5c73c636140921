// A new account signed up and signed in on the dashboard, as a person does it: the session cookie (for the
// pages) and the API token its token page shows.
import { randomBytes } from "node:crypto";

export interface DashboardAccount {
  cookie: string;
  token: string;
}

export async function signUpOnDashboard(base: string, accountName: string): Promise<DashboardAccount> {
  let cookie = "";
  const post = async (path: string, fields: Record<string, string>): Promise<void> => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });
    for (const set of response.headers.getSetCookie()) cookie = set.split(";")[0]!;
    await response.arrayBuffer();
    if (response.status !== 303) throw new Error(`${path} answered ${response.status}`);
  };
  const email = `${accountName.toLowerCase().replace(/\W+/g, "-")}-${randomBytes(4).toString("hex")}@example.com`;
  await post("/dashboard/sign-up", { email, password: "a long enough password", account_name: accountName });
  await post("/dashboard/sign-in", { email, password: "a long enough password" });
  const page = await (await fetch(`${base}/dashboard/token`, { headers: { cookie } })).text();
  const token = /data-testid="api-token"[^>]*>([^<]+)</.exec(page)?.[1];
  if (!token) throw new Error(`${accountName}: signed up, but the token page shows no token`);
  return { cookie, token };
}
