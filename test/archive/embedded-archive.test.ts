// The embedded archive's wire server: PGlite is one session, so clients of several pools (several processes
// in `verdict serve`) take turns by whole batches and transactions; one that leaves mid-transaction is rolled
// back; a second start on the same data dir reuses the server; the data survives a stop.
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, openArchive, type ArchiveSql } from "../../src/archive-db/archive-db.js";
import { startEmbeddedArchive, type EmbeddedArchive } from "../../src/archive-db/embedded-archive.js";

/** A frontend message: type, length, body. */
function message(type: string, ...parts: (string | Buffer)[]): Buffer {
  const body = Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(`${part}\0`) : part)));
  const head = Buffer.alloc(5);
  head.write(type, 0);
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

function int16s(...values: number[]): Buffer {
  const out = Buffer.alloc(2 * values.length);
  values.forEach((value, i) => out.writeInt16BE(value, 2 * i));
  return out;
}

/** A bare protocol client, to split one extended-protocol batch over two writes as a pipelining client may. */
class RawClient {
  private received = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.waiter?.();
    });
  }

  static async connect(socketPath: string): Promise<RawClient> {
    const socket = createConnection(socketPath);
    await new Promise((resolve) => socket.once("connect", resolve));
    const client = new RawClient(socket);
    const params = Buffer.from("user\0postgres\0database\0postgres\0\0");
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196608, 4);
    client.write(Buffer.concat([startup, params]));
    await client.untilReady();
    return client;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The backend messages up to and including the next ReadyForQuery, as [type, body]. */
  async untilReady(): Promise<[string, Buffer][]> {
    for (;;) {
      const messages: [string, Buffer][] = [];
      for (let at = 0; at + 5 <= this.received.length;) {
        const end = at + 1 + this.received.readInt32BE(at + 1);
        if (end > this.received.length) break;
        messages.push([String.fromCharCode(this.received[at]!), this.received.subarray(at + 5, end)]);
        at = end;
        if (messages.at(-1)![0] === "Z") {
          this.received = this.received.subarray(end);
          return messages;
        }
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  /** Resolves when the server closes the connection. */
  closed(): Promise<void> {
    return new Promise((resolve) => (this.socket.closed ? resolve() : this.socket.once("close", () => resolve())));
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The text of the first column of each DataRow. */
function firstColumns(messages: [string, Buffer][]): string[] {
  return messages
    .filter(([type]) => type === "D")
    .map(([, body]) => body.subarray(6, 6 + body.readInt32BE(2)).toString());
}

describe("the embedded archive's wire server", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "verdict-pglite-"));
  let archive: EmbeddedArchive;
  let pools: ArchiveSql[] = [];

  beforeAll(async () => {
    archive = await startEmbeddedArchive(dataDir);
    pools = [0, 1, 2].map(() => openArchive({ socketPath: archive.socketPath }));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(pools.map((sql) => sql.end({ timeout: 5 })));
    await archive?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it("migrates once when every pool migrates at the same time", async () => {
    expect(archive.owned).toBe(true);
    const applied = await Promise.all(pools.map((sql) => migrate(sql)));
    expect(applied.filter((versions) => versions.length > 0)).toHaveLength(1);
    expect(applied.flat().length).toBeGreaterThan(0);
  });

  it("gives every concurrent statement of every pool its own answer, transactions among them", async () => {
    await pools[0]!`CREATE TABLE probe (id int PRIMARY KEY, note text)`;
    const wrong: number[] = [];
    await Promise.all(
      pools.flatMap((sql, p) =>
        Array.from({ length: 40 }, async (_, i) => {
          const id = p * 1000 + i;
          if (i % 4 === 0) {
            await sql.begin(async (tx) => {
              await tx`INSERT INTO probe VALUES (${id}, ${`note ${id}`})`;
              await tx`SELECT pg_sleep(0.001)`;
            });
            return;
          }
          // Different shapes and parameters per statement: an interleaved Parse/Bind would mix them up.
          const [row] = await sql<
            { id: number; text: string; even: boolean }[]
          >`SELECT ${id}::int AS id, ${`text ${id}`}::text AS text, ${i % 2 === 0} AS even`;
          if (row?.id !== id || row.text !== `text ${id}` || row.even !== (i % 2 === 0)) wrong.push(id);
        }),
      ),
    );
    expect(wrong).toEqual([]);
    expect((await pools[1]!<{ n: number }[]>`SELECT count(*)::int AS n FROM probe`)[0]!.n).toBe(30);
  });

  it("keeps another client out between the messages of one batch, even when they arrive apart", async () => {
    const [a, b] = await Promise.all([RawClient.connect(archive.socketPath), RawClient.connect(archive.socketPath)]);
    try {
      // Parse and Bind the unnamed statement and portal; Execute and Sync come later.
      a.write(
        Buffer.concat([message("P", "", "SELECT 1::int AS n", int16s(0)), message("B", "", "", int16s(0, 0, 0))]),
      );
      await new Promise((r) => setTimeout(r, 100));
      // A simple query would drop the unnamed portal if it ran now.
      b.write(message("Q", "SELECT 2::int AS n"));
      let bAnswered = false;
      const bReply = b.untilReady().then((messages) => {
        bAnswered = true;
        return messages;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(bAnswered).toBe(false);
      a.write(Buffer.concat([message("E", "", Buffer.alloc(4)), message("S")]));
      const aReply = await a.untilReady();
      expect(aReply.map(([type]) => type).join(" ")).toBe("1 2 D C Z");
      expect(firstColumns(aReply)).toEqual(["1"]);
      expect(firstColumns(await bReply)).toEqual(["2"]);
    } finally {
      a.close();
      b.close();
    }
  });

  it("runs another client's statement only after an open transaction ends", async () => {
    const reserved = await pools[2]!.reserve();
    await reserved`BEGIN`;
    await reserved`INSERT INTO probe VALUES (-1, 'in a transaction')`;
    let answered = false;
    const waiting = pools[0]!<{ n: number }[]>`SELECT count(*)::int AS n FROM probe`.then((rows) => {
      answered = true;
      return rows;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(answered).toBe(false);
    await reserved`COMMIT`;
    reserved.release();
    expect((await waiting)[0]!.n).toBe(31);
  });

  it("rolls back the transaction of a client that goes away in it, and serves the others on", async () => {
    const leaving = openArchive({ socketPath: archive.socketPath });
    const reserved = await leaving.reserve();
    await reserved`BEGIN`;
    await reserved`INSERT INTO probe VALUES (-2, 'never committed')`;
    const waiting = pools[0]!<{ n: number }[]>`SELECT count(*)::int AS n FROM probe WHERE id = -2`;
    await leaving.end({ timeout: 0 });
    expect((await waiting)[0]!.n).toBe(0);
  });

  it("drops a connection that sends an impossible message length, and serves the others on", async () => {
    const client = await RawClient.connect(archive.socketPath);
    client.write(Buffer.from([0x51, 0, 0, 0, 0]));
    await client.closed();
    expect((await pools[0]!<{ n: number }[]>`SELECT 1::int AS n`)[0]!.n).toBe(1);
  });

  it("is reused by a second start on the same data dir, and keeps its rows across a stop", async () => {
    const second = await startEmbeddedArchive(dataDir);
    expect(second.owned).toBe(false);
    expect(second.socketPath).toBe(archive.socketPath);
    await Promise.all(pools.map((sql) => sql.end({ timeout: 5 })));
    await archive.stop();
    archive = await startEmbeddedArchive(dataDir);
    expect(archive.owned).toBe(true);
    pools = [openArchive({ socketPath: archive.socketPath })];
    expect(await migrate(pools[0]!)).toEqual([]);
    expect((await pools[0]!<{ n: number }[]>`SELECT count(*)::int AS n FROM probe`)[0]!.n).toBe(31);
  }, 30_000);
});
