// The laptop default archive: PostgreSQL compiled to WASM (PGlite), its files under <dataDir>/pglite, owned by
// one process and served to the others over the PostgreSQL wire protocol on a unix socket beside them.
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createConnection, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";

export interface EmbeddedArchive {
  /** PGlite's files. */
  directory: string;
  /** The unix socket clients connect to (postgres.js `path`). */
  socketPath: string;
  /** True when this process runs PGlite (and so stops it). */
  owned: boolean;
  stop(): Promise<void>;
}

/** Where the embedded archive of a data dir keeps its files and its socket. */
export function embeddedArchivePaths(dataDir: string): { directory: string; socketPath: string } {
  return { directory: join(dataDir, "pglite"), socketPath: join(dataDir, "pglite.sock") };
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** A Sync message: ends an extended-protocol batch left unfinished by a client that went away. */
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
const ROLLBACK = Buffer.concat([Buffer.from([0x51, 0, 0, 0, 13]), Buffer.from("ROLLBACK\0")]);

/**
 * Who may talk to the one PGlite session now. PGlite is a single backend: every client connection shares
 * its session state (unnamed statement and portal, open transaction), so a connection keeps the turn from
 * its first message until the backend is idle again (a Sync or simple query answered with ReadyForQuery
 * `I`): a whole extended-protocol batch, or a whole transaction. The others wait in arrival order.
 */
class Turn {
  private holder: object | undefined;
  private readonly waiting: { owner: object; grant: () => void }[] = [];

  take(owner: object): Promise<void> {
    if (this.holder === owner) return Promise.resolve();
    if (this.holder === undefined) {
      this.holder = owner;
      return Promise.resolve();
    }
    return new Promise((grant) => this.waiting.push({ owner, grant }));
  }

  holds(owner: object): boolean {
    return this.holder === owner;
  }

  give(owner: object): void {
    if (this.holder !== owner) return;
    const next = this.waiting.shift();
    this.holder = next?.owner;
    next?.grant();
  }

  /** A connection that closed while waiting gives up its place. */
  leave(owner: object): void {
    const at = this.waiting.findIndex((w) => w.owner === owner);
    if (at >= 0) this.waiting.splice(at, 1)[0]!.grant();
  }
}

/** The status byte of the last ReadyForQuery in a run of backend messages, if any. */
function lastReadyStatus(out: Uint8Array): number | undefined {
  const view = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  let status: number | undefined;
  for (let at = 0; at + 5 <= view.length; at += 1 + view.readInt32BE(at + 1)) {
    if (view[at] === 0x5a) status = view[at + 5];
  }
  return status;
}

/** One client connection: frames its messages and runs them, in order, when it has the turn. */
class Connection {
  private buffer = Buffer.alloc(0);
  private started = false;
  private closed = false;
  private work: Promise<void> = Promise.resolve();

  constructor(
    private readonly socket: Socket,
    private readonly db: PGlite,
    private readonly turn: Turn,
    private readonly track: (work: Promise<void>) => void,
  ) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.schedule(() => this.drain());
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.closed = true;
      this.turn.leave(this);
      this.schedule(() => this.cleanUp());
    });
  }

  private schedule(step: () => Promise<void>): void {
    // A failed step closes the connection; its close handler ends the batch and gives the turn on.
    this.work = this.work.then(step).catch(() => {
      this.socket.destroy();
    });
    this.track(this.work);
  }

  /** Runs every complete message in the buffer. */
  private async drain(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        if (length < 8) return this.refuse();
        if (this.buffer.length < length) return;
        const code = this.buffer.readInt32BE(4);
        const message = this.take(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          this.socket.write("N");
          continue;
        }
        if (code === CANCEL_REQUEST) {
          this.socket.end();
          return;
        }
        this.started = true;
        await this.run(message, true);
        continue;
      }
      if (this.buffer.length < 5) return;
      const length = 1 + this.buffer.readInt32BE(1);
      if (length < 5) return this.refuse();
      if (this.buffer.length < length) return;
      const type = this.buffer[0];
      const message = this.take(length);
      if (type === 0x58) {
        // Terminate: the close handler cleans up.
        this.socket.end();
        return;
      }
      // Sync and simple Query end a batch; only after them can the backend be idle for the next client.
      await this.run(message, type === 0x53 || type === 0x51);
    }
  }

  /** A length no client sends: drop the connection rather than guess where the next message starts. */
  private refuse(): void {
    this.buffer = Buffer.alloc(0);
    this.socket.destroy();
  }

  private take(length: number): Buffer {
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return message;
  }

  private async run(message: Buffer, mayEnd: boolean): Promise<void> {
    await this.turn.take(this);
    if (this.closed) return;
    const out = await this.db.execProtocolRaw(message);
    if (out.length > 0 && this.socket.writable) this.socket.write(out);
    if (mayEnd && lastReadyStatus(out) === 0x49) this.turn.give(this);
  }

  /** A client gone mid-batch or mid-transaction: end both so the next client finds the backend idle. */
  private async cleanUp(): Promise<void> {
    if (!this.turn.holds(this)) return;
    try {
      await this.db.execProtocolRaw(SYNC);
      if (this.db.isInTransaction()) await this.db.execProtocolRaw(ROLLBACK);
    } finally {
      this.turn.give(this);
    }
  }
}

/** True when something accepts connections on the socket (another process serves this data dir). */
function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

/**
 * Creates the database files of a new directory in a short-lived process: the process that runs PGlite's
 * initdb keeps about 550 MB more resident for its whole life (measured: 850 MB against 300 MB for one that
 * opens existing files).
 */
async function initialiseIfNew(directory: string): Promise<void> {
  if (existsSync(join(directory, "PG_VERSION"))) return;
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  const script = `require(${JSON.stringify(pglite)}).PGlite.create(${JSON.stringify(directory)}).then((db) => db.close())`;
  await promisify(execFile)(process.execPath, ["-e", script]);
}

/**
 * Starts PGlite on `<dataDir>/pglite` and serves it on `<dataDir>/pglite.sock`, or reuses the one another
 * process of this data dir already serves. A unix socket, not a loopback port: its file mode (0600) lets
 * only this user connect, and no other local user can take its place as a port could be taken.
 */
export async function startEmbeddedArchive(dataDir: string): Promise<EmbeddedArchive> {
  const { directory, socketPath } = embeddedArchivePaths(dataDir);
  if (await answers(socketPath)) return { directory, socketPath, owned: false, stop: () => Promise.resolve() };
  mkdirSync(directory, { recursive: true });
  await initialiseIfNew(directory);
  const db = await PGlite.create(directory);
  const turn = new Turn();
  const sockets = new Set<Socket>();
  const pending = new Set<Promise<void>>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    new Connection(socket, db, turn, (work) => {
      pending.add(work);
      void work.finally(() => pending.delete(work));
    });
  });
  rmSync(socketPath, { force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(socketPath, () => resolve());
    });
    chmodSync(socketPath, 0o600);
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    directory,
    socketPath,
    owned: true,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
      // Let the statement in flight (and a departed client's rollback) finish before PGlite shuts down.
      while (pending.size > 0) await Promise.allSettled([...pending]);
      await db.close();
    },
  };
}
