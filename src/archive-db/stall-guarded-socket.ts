// Connections to the archive's PostgreSQL that fail, rather than wait, when PostgreSQL cannot answer. A
// partition that drops packets, or a host that died without closing anything, leaves a statement waiting
// for an answer TCP keeps retransmitting for: about 15 minutes on Linux (tcp_retries2), during which a read
// that needs the archive hangs, the archiver's transaction holds its shard's settled outcomes in Redis, and
// a stopping process waits. postgres.js has no client-side statement timeout (PostgreSQL's
// statement_timeout needs a server that answers), so the socket itself is given an inactivity bound; and a
// connection closed before the server's first byte is made an error (see below).
import { connect, type Socket } from "node:net";

/** What postgres.js passes its `socket` option: the URL's hosts and ports, tried in turn. */
export interface SocketTarget {
  host: readonly string[];
  port: readonly number[];
}

/**
 * postgres.js's `socket` option (in its README, not in its types): connects to the configured hosts in
 * turn, as postgres.js does itself, within `connectTimeoutMs`; a connection that then hears nothing for
 * `stallMs` is closed, which fails a statement in flight (CONNECTION_CLOSED) as a refused connection
 * would, and a pool connection idle that long is simply replaced when next needed. That close carries no
 * error on purpose: postgres.js counts error closes towards its reconnect backoff (up to 20 s), which
 * would delay the catch-up once PostgreSQL answers again.
 */
export function stallGuardedSocket(
  stallMs: number,
  connectTimeoutMs: number,
): (target: SocketTarget) => Promise<Socket> {
  let attempt = 0;
  return (target) =>
    new Promise((resolve, reject) => {
      const index = attempt++ % target.host.length;
      const host = target.host[index] ?? "localhost";
      const port = target.port[index] ?? target.port[0] ?? 5432;
      const socket = connect(port, host);
      const timer = setTimeout(
        () =>
          socket.destroy(new Error(`connecting to the archive at ${host}:${port} took over ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        socket.setTimeout(stallMs, () => socket.destroy());
        // A peer that accepts and closes before a byte of the server's (a TCP proxy or load balancer in front
        // of a PostgreSQL that is down) must fail the connection: postgres.js retries a connection that
        // closes cleanly during its start for as long as it keeps doing so, and the statement that asked for
        // it waits as long, so a pass of the archiver, and a process stopping after it, never finished.
        socket.once("end", () => {
          if (socket.bytesRead === 0) socket.destroy(new Error("the archive closed the connection before answering"));
        });
        resolve(socket);
      });
    });
}
