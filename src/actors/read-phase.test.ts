// The read phase: pending entries first, then new ones until a read comes back short.
import { describe, expect, it } from "vitest";
import { afterRead } from "./read-phase.js";

describe("afterRead", () => {
  it("reads pending entries until none is left, then new ones", () => {
    expect(afterRead("pending", 10, 10)).toBe("pending");
    expect(afterRead("pending", 3, 10)).toBe("pending");
    expect(afterRead("pending", 0, 10)).toBe("fresh");
  });

  it("calls the stream drained after a short read of new entries, and not after a full one", () => {
    expect(afterRead("fresh", 10, 10)).toBe("fresh");
    expect(afterRead("fresh", 3, 10)).toBe("drained");
    expect(afterRead("fresh", 0, 10)).toBe("drained");
    expect(afterRead("drained", 10, 10)).toBe("fresh");
    expect(afterRead("drained", 0, 10)).toBe("drained");
  });

  it("stays in takeover until the takeover is done", () => {
    expect(afterRead("takeover", 0, 10)).toBe("takeover");
  });
});
