// A real webhook receiver for suites: a node:http server on 127.0.0.1 that records every request and
// answers what the test's responder says (200 by default).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  id: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export class Receiver {
  readonly received: Received[] = [];
  private server: Server | undefined;
  /** Decides the answer per request; default 200. */
  respond: (request: Received) => Answer = () => ({ status: 200, body: "ok" });

  constructor(private port = 0) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request: Received = {
          path: req.url ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          id: String(req.headers["webhook-id"] ?? ""),
        };
        this.received.push(request);
        const answer = this.respond(request);
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? "");
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  get listeningPort(): number {
    return this.port;
  }

  on(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
