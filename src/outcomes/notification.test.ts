import { describe, expect, it } from "vitest";
import { msgpack } from "../codec/msgpack.js";
import { MsgpackWriter } from "../codec/msgpack-writer.js";
import { unpackNotification, writeNotificationHeader } from "./notification.js";

/** The body of the one msgpack str a writer holds: the bytes a Lua string of it has. */
function strBody(bytes: Buffer): Buffer {
  const first = bytes[0]!;
  if (first >= 0xa0 && first <= 0xbf) return bytes.subarray(1, 1 + (first & 0x1f));
  if (first === 0xd9) return bytes.subarray(2, 2 + bytes[1]!);
  throw new Error(`not a short str: 0x${first.toString(16)}`);
}

describe("writeNotificationHeader", () => {
  // Each bin length class msgpack has (8, 16 and 32 bit), at its edges.
  it.each([0, 1, 255, 256, 65_535, 65_536, 200_000])(
    "followed by %i bytes is what msgpack packs for the notification",
    (length) => {
      const out = new MsgpackWriter();
      writeNotificationHeader(out, "outcome", "acct-é", length);
      const bytes = Buffer.alloc(length, 7);
      // The str's body, then the bytes: what commit.lua joins.
      const joined = Buffer.concat([strBody(out.bytes()), bytes]);
      expect(joined.equals(msgpack.pack(["outcome", "acct-é", bytes]))).toBe(true);
      expect(unpackNotification(joined)).toEqual({ kind: "outcome", accountId: "acct-é", bytes });
    },
  );
});
