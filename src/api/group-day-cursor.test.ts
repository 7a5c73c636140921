import { describe, expect, it } from "vitest";
import { Packr } from "msgpackr";
import { GroupDayCursor } from "./group-day-cursor.js";

// Standard msgpack, as Redis's cmsgpack writes it (no records).
const msgpack = new Packr({ useRecords: false, moreTypes: false });

describe("GroupDayCursor", () => {
  it("reads every msgpack number and string form a group's day may hold", () => {
    const long = "x".repeat(300);
    const numbers = [
      0,
      127,
      128,
      255,
      256,
      65_535,
      65_536,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 53 - 1,
      -1,
      -32,
      -33,
      -128,
      -129,
      -32_768,
      -32_769,
      -(2 ** 31),
      -(2 ** 31) - 1,
      1.5,
      -0.25,
    ];
    const strings = ["o", "T" + "y".repeat(31), "z".repeat(40), long];
    const values = [...numbers, ...strings];
    const cursor = new GroupDayCursor(msgpack.pack(values));
    expect(cursor.arrayLength()).toBe(values.length);
    for (const n of numbers) expect(cursor.number()).toBe(n);
    for (const s of strings) {
      cursor.str();
      expect(cursor.text()).toBe(s);
    }
    const many = new GroupDayCursor(msgpack.pack(Array.from({ length: 70_000 }, () => 1)));
    expect(many.arrayLength()).toBe(70_000);
  });

  it("refuses a value that is not a number where one belongs", () => {
    const cursor = new GroupDayCursor(msgpack.pack(["o"]));
    cursor.arrayLength();
    expect(() => cursor.number()).toThrow(/non-number/);
  });
});
