// A dashboard visitor without a browser: form posts with an Origin, the session cookie, the CSRF token read
// from the page, for the security suites that need exact control of each header.
export interface FormReply {
  status: number;
  location: string | null;
  setCookie: string[];
  text: string;
  headers: Headers;
}

export class FormClient {
  cookie = "";

  constructor(
    readonly base: string,
    readonly origin = base,
  ) {}

  async get(path: string): Promise<FormReply> {
    return this.send("GET", path);
  }

  async post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = { origin: this.origin },
  ): Promise<FormReply> {
    return this.send("POST", path, new URLSearchParams(fields).toString(), {
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    });
  }

  /** The CSRF token of the session, as the page's forms carry it. */
  async csrf(): Promise<string> {
    const page = await this.get("/dashboard/token");
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no CSRF field on the page (status ${page.status})`);
    return match[1]!;
  }

  /** Signs up, then in, as a person does (sign-up itself starts no session); the sign-in's reply, or the sign-up's refusal. */
  async signUp(email: string, accountName: string, password = "a long enough password"): Promise<FormReply> {
    const reply = await this.signUpOnly(email, accountName, password);
    return reply.status === 303 ? this.signIn(email, password) : reply;
  }

  async signUpOnly(
    email: string,
    accountName: string,
    password = "a long enough password",
    headers?: Record<string, string>,
  ): Promise<FormReply> {
    return this.post("/dashboard/sign-up", { email, password, account_name: accountName }, headers);
  }

  async signIn(email: string, password: string): Promise<FormReply> {
    return this.post("/dashboard/sign-in", { email, password });
  }

  async token(): Promise<string> {
    const page = await this.get("/dashboard/token");
    const match = /data-testid="api-token"[^>]*>([^<]+)</.exec(page.text);
    if (!match) throw new Error("no token on the page");
    return match[1]!;
  }

  private async send(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<FormReply> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      redirect: "manual",
      headers: { ...headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
      body: body ?? null,
    });
    const setCookie = response.headers.getSetCookie();
    for (const cookie of setCookie) {
      const [pair] = cookie.split(";");
      this.cookie = pair!.endsWith("=") ? "" : pair!;
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      setCookie,
      text: await response.text(),
      headers: response.headers,
    };
  }
}
