// A port the OS had free a moment ago, for throwaway servers on loopback; never Redis's default 6379, which a
// developer's own Redis may hold.
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => (port === 6379 ? resolve(freePort()) : resolve(port)));
    });
  });
}
