import { describe, expect, it } from "vitest";
import { msgpack } from "../codec/msgpack.js";
import { notificationHeader, unpackNotification } from "./notification.js";

describe("notificationHeader", () => {
  // Each bin length class msgpack has (8, 16 and 32 bit), at its edges.
  it.each([0, 1, 255, 256, 65_535, 65_536, 200_000])("followed by %i bytes is what msgpack packs for the notification", (length) => {
    const bytes = Buffer.alloc(length, 7);
    const joined = Buffer.concat([notificationHeader("outcome", "acct-é", length), bytes]);
    expect(joined.equals(msgpack.pack(["outcome", "acct-é", bytes]))).toBe(true);
    expect(unpackNotification(joined)).toEqual({ kind: "outcome", accountId: "acct-é", bytes });
  });
});
