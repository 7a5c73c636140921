// A TCP proxy in front of a real server (PostgreSQL) that a test can cut, as a stopped server or a refused
// connection would (every open connection dropped, new ones refused until restored), or freeze, as a
// network partition that drops packets silently would: open connections stay open and nothing moves either
// way, new connections are accepted and hear nothing, and on thaw the held bytes are delivered as TCP's
// retransmissions would deliver them.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

/** A proxy in front of the server a URL names (postgres://...), and the same URL through the proxy. */
export async function proxyFor(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(url);
  const proxy = await startTcpProxy(Number(target.port || 5432), target.hostname);
  target.port = String(proxy.port);
  target.hostname = "127.0.0.1";
  return { proxy, url: target.toString() };
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  let open = true;
  let frozen = false;
  const sockets = new Set<Socket>();
  /** Writes held while frozen, in order, delivered on thaw. */
  let held: (() => void)[] = [];
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const forward = (from: Socket, to: Socket): void => {
    from.on("data", (chunk: Buffer) => {
      const write = (): void => {
        if (!to.destroyed) to.write(chunk);
      };
      if (frozen) held.push(write);
      else write();
    });
  };
  const server: Server = createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
    // A peer that gives up is seen at once, frozen or not: the partition is the test's, not the client's.
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    cut() {
      open = false;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      open = true;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      const writes = held;
      held = [];
      for (const write of writes) write();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
