import { describe, expect, it } from "vitest";
import { BytesMap } from "./bytes-map.js";

describe("BytesMap", () => {
  it("finds each key by its bytes wherever they lie, and no key it was not given", () => {
    const map = new BytesMap<number>();
    const keys = [
      "t\u001fa",
      "t\u001fab",
      "t\u001f",
      "",
      "t\u001fé",
      ...Array.from({ length: 500 }, (_, i) => `k${i}`),
    ];
    keys.forEach((key, i) => map.add(Buffer.from(key), i));
    // The same bytes inside a larger buffer, as a reply's field lies in its socket chunk.
    const chunk = Buffer.from(`xx${keys.join("|")}yy`);
    let at = 2;
    keys.forEach((key, i) => {
      const length = Buffer.byteLength(key);
      expect(map.get(chunk.subarray(at, at + length))).toBe(i);
      at += length + 1;
    });
    expect(map.get(Buffer.from("t\u001fb"))).toBeUndefined();
    expect(map.get(Buffer.from("k500"))).toBeUndefined();
  });

  it("keeps its own copy of a key", () => {
    const map = new BytesMap<string>();
    const key = Buffer.from("t\u001fa");
    map.add(key, "a");
    key[2] = 0x62;
    expect(map.get(Buffer.from("t\u001fa"))).toBe("a");
    expect(map.get(key)).toBeUndefined();
  });
});
