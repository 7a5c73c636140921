// The in-process transport runs a route handler as the edge would for a signed-in request: decoded path
// parameters, the query, the JSON body, the route's admission, and its refusals as the client's VerdictError.
import { describe, expect, it } from "vitest";
import { VerdictError } from "../client/verdict-error.js";
import { ApiError } from "../errors/api-error.js";
import type { ApiRequest, Route } from "../ingress/router.js";
import { InProcessApi } from "./in-process-api.js";

function recordingRoutes(seen: ApiRequest[]): Route[] {
  return [
    {
      method: "GET",
      path: "/v1/tasks/:key",
      handler(req) {
        seen.push(req);
        if (req.params.key === "missing") return Promise.reject(new ApiError("TASK_NOT_FOUND", "no task missing"));
        return Promise.resolve({
          status: 200,
          body: { key: req.params.key, name: "n", goal: null, condition: "done", settlement_period: null },
        });
      },
    },
    {
      method: "GET",
      path: "/v1/tasks",
      handler(req) {
        seen.push(req);
        return Promise.resolve({ status: 200, body: { tasks: [], next_cursor: null } });
      },
    },
    {
      method: "PUT",
      path: "/v1/tasks/:key",
      maxBodyBytes: 64,
      admit: (accountId) =>
        accountId === "refused"
          ? new ApiError("QUOTA_EXCEEDED", "full", undefined, { retryAfterSeconds: 2 })
          : undefined,
      handler(req) {
        seen.push(req);
        return Promise.resolve({ status: 200, body: req.body });
      },
    },
  ];
}

describe("InProcessApi", () => {
  it("calls the handler as the account, with decoded parameters, the query and the parsed body", async () => {
    const seen: ApiRequest[] = [];
    const api = new InProcessApi(recordingRoutes(seen), () => 1234);
    const client = api.as("acct-1");
    expect(await client.tasks.get("a/b c")).toMatchObject({ key: "a/b c" });
    expect(seen[0]).toMatchObject({ accountId: "acct-1", params: { key: "a/b c" }, receivedAt: 1234 });
    await client.tasks.list({ limit: 5, cursor: undefined });
    expect(seen[1]!.query.toString()).toBe("limit=5");
    expect(await client.tasks.put("k", { name: "n", condition: "done" })).toEqual({ name: "n", condition: "done" });
    expect(seen[2]!.body).toEqual({ name: "n", condition: "done" });
  });

  it("rejects with the VerdictError a fleet would get: status, code, message, Retry-After", async () => {
    const api = new InProcessApi(recordingRoutes([]), Date.now);
    const missing = await api
      .as("acct-1")
      .tasks.get("missing")
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(VerdictError);
    expect(missing).toMatchObject({ status: 404, code: "TASK_NOT_FOUND", message: "no task missing" });
    const refused = await api
      .as("refused")
      .tasks.put("k", { name: "n", condition: "done" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, code: "QUOTA_EXCEEDED", retryAfterMs: 2000 });
    const tooLarge = await api
      .as("acct-1")
      .tasks.put("k", { name: "n".repeat(100), condition: "done" })
      .catch((error: unknown) => error);
    expect(tooLarge).toMatchObject({ status: 413, code: "PAYLOAD_TOO_LARGE" });
  });

  it("fails loudly on a route the API does not have", async () => {
    const api = new InProcessApi(recordingRoutes([]), Date.now);
    await expect(api.as("acct-1").outcomes.get("x")).rejects.toThrow(
      "the dashboard called a missing API route: GET /v1/outcomes/x",
    );
  });
});
