// The ceiling for Verdict's design: a bare uWebSockets.js server with no auth, no validation and no
// idempotency. POST /v1/events: one XADD of the raw body per request. POST /v1/events/batch: JSON.parse,
// then one XADD per event (pipelined in one write), answered once all are in. Run as its own process by
// bench/run.ts (argument: {"redisPort": N}; prints {"port": N}); bench/ingress.ts starts it in-process.
import { pathToFileURL } from "node:url";
import { Redis } from "ioredis";
import { uWS, type HttpResponse } from "../src/ingress/uws.js";

export function startBare(redisPort: number): Promise<{ port: number; stop(): void }> {
  const redis = new Redis({ port: redisPort, host: "127.0.0.1" });
  const app = uWS.App();
  const accepted = (res: HttpResponse, aborted: () => boolean, body: string) => () =>
    !aborted() && res.cork(() => res.writeStatus("202 Accepted").end(body));
  const failed = (res: HttpResponse, aborted: () => boolean) => () =>
    !aborted() && res.cork(() => res.writeStatus("503 Service Unavailable").end());
  app.post("/*", (res, req) => {
    const batch = req.getUrl() === "/v1/events/batch";
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      const body = Buffer.concat(chunks);
      if (!batch) {
        redis.xadd("bare:stream", "*", "e", body).then(
          accepted(res, () => aborted, '{"accepted":true}'),
          failed(res, () => aborted),
        );
        return;
      }
      let events: unknown[];
      try {
        events = (JSON.parse(body.toString()) as { events: unknown[] }).events;
      } catch {
        res.cork(() => res.writeStatus("400 Bad Request").end());
        return;
      }
      const pipeline = redis.pipeline();
      for (const event of events) pipeline.xadd("bare:stream", "*", "e", JSON.stringify(event));
      pipeline.exec().then(
        accepted(res, () => aborted, `{"accepted":${events.length},"failed":[]}`),
        failed(res, () => aborted),
      );
    });
  });
  return new Promise((resolve) =>
    app.listen(0, (socket) => {
      if (!socket) throw new Error("bare server could not listen");
      resolve({
        port: uWS.us_socket_local_port(socket),
        stop: () => {
          uWS.us_listen_socket_close(socket);
          redis.disconnect();
        },
      });
    }),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { redisPort } = JSON.parse(process.argv[2] ?? "{}") as { redisPort: number };
  void startBare(redisPort).then(({ port }) => process.stdout.write(`${JSON.stringify({ port })}\n`));
}
