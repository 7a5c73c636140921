// The operations port every role serves: /metrics (Prometheus), /healthz (alive) and /readyz (can do its work).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One condition of readiness, e.g. "ingress listening", "redis reachable", "joined shard membership". */
export interface ReadinessCheck {
  name: string;
  check(): boolean | Promise<boolean>;
}

/** Where /metrics comes from: a prom-client Registry, or the supervisor's sum over its children. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** Names of the checks that fail (or throw) now. */
export async function failingChecks(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        return (await c.check()) ? undefined : c.name;
      } catch {
        return c.name;
      }
    }),
  );
  return results.filter((name): name is string => name !== undefined);
}

/** `failing` is asked on every /readyz, so checks added after start count. `host` undefined listens on every interface. */
export function startHealthServer(
  port: number,
  registry: MetricsSource,
  failing: () => Promise<string[]>,
  host?: string,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const reply = (status: number, type: string, body: string): void => {
      res.writeHead(status, { "Content-Type": type });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return reply(405, "text/plain", "method not allowed\n");
    if (path === "/healthz") return reply(200, "application/json", '{"status":"ok"}\n');
    if (path === "/readyz") {
      failing().then(
        (down) =>
          reply(
            down.length === 0 ? 200 : 503,
            "application/json",
            `${JSON.stringify({ ready: down.length === 0, failing: down })}\n`,
          ),
        () => reply(503, "application/json", '{"ready":false}\n'),
      );
      return;
    }
    if (path === "/metrics") {
      registry.metrics().then(
        (text) => reply(200, registry.contentType, text),
        (error: unknown) => reply(500, "text/plain", `${String(error)}\n`),
      );
      return;
    }
    reply(404, "text/plain", "not found\n");
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((resolveClose) => {
            server.close(() => resolveClose());
            server.closeAllConnections();
          }),
      });
    });
  });
}
