// A raw HTTP/1.x client over one TCP socket, for tests that need control a real client library hides:
// pipelined requests in one write, malformed framing, duplicate headers, reading responses one at a time
// from the same keep-alive connection, and seeing whether the server closed it.
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  /** Status line and header lines, without the blank line. */
  head: string;
  /** Header values by lower-cased name, in arrival order (a repeated header keeps every value). */
  headers: Map<string, string[]>;
  body: Buffer;
}

/** Statuses that never carry a body, whatever the headers say (RFC 9110, section 6.4.1). */
const BODYLESS = new Set([204, 304]);

export class RawConnection {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      this.wake?.();
    });
    const end = (): void => {
      this.ended = true;
      this.wake?.();
    };
    socket.on("close", end);
    socket.on("end", end);
    // A reset after the server answered is a close like any other here; tests look at what arrived.
    socket.on("error", end);
  }

  static open(port: number, host = "127.0.0.1"): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, host);
      socket.once("connect", () => resolve(new RawConnection(socket)));
      socket.once("error", reject);
    });
  }

  /** True once the server closed (or reset) the connection. */
  get closed(): boolean {
    return this.ended;
  }

  write(data: string | Buffer): void {
    this.socket.write(typeof data === "string" ? Buffer.from(data, "latin1") : data);
  }

  /**
   * The next complete response (framed by Content-Length; none for 204/304 or a missing header), or an
   * error saying the connection closed or nothing complete came within `timeoutMs`.
   */
  async read(timeoutMs = 3000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = this.take();
      if (response) return response;
      if (this.ended)
        throw new Error(`connection closed; unparsed: ${JSON.stringify(this.buffer.toString("latin1").slice(0, 200))}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no complete response within ${timeoutMs} ms; got: ${JSON.stringify(this.buffer.toString("latin1").slice(0, 200))}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Resolves true when the server closes within `timeoutMs`, false when the connection is still open. */
  async waitClosed(timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return this.ended;
  }

  /** Bytes received and not yet taken as a response. */
  get pending(): Buffer {
    return this.buffer;
  }

  destroy(): void {
    this.socket.destroy();
  }

  private take(): RawResponse | undefined {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return undefined;
    const head = this.buffer.subarray(0, end).toString("latin1");
    const [statusLine, ...lines] = head.split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1] ?? NaN);
    const headers = new Map<string, string[]>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
    }
    const declared = headers.get("content-length")?.[0];
    const length = BODYLESS.has(status) || declared === undefined ? 0 : Number(declared);
    if (this.buffer.length < end + 4 + length) return undefined;
    const body = Buffer.from(this.buffer.subarray(end + 4, end + 4 + length));
    this.buffer = this.buffer.subarray(end + 4 + length);
    return { status, head, headers, body };
  }
}

/** A request's bytes: request line, `Host`, the given header lines, a blank line and the body. */
export function rawRequestBytes(
  method: string,
  path: string,
  headers: readonly string[] = [],
  body = "",
  version = "HTTP/1.1",
): string {
  return [`${method} ${path} ${version}`, "Host: verdict.test", ...headers, "", body].join("\r\n");
}
