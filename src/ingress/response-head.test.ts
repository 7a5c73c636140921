import { describe, expect, it } from "vitest";
import { refusedHeader, writeHead } from "./response-head.js";
import type { HttpResponse } from "./uws.js";

/** Records what would go on the wire. */
function recorder(): { res: HttpResponse; written: string[] } {
  const written: string[] = [];
  const res = {
    writeStatus(status: string) {
      written.push(status);
      return res;
    },
    writeHeader(name: string, value: string) {
      written.push(`${name}: ${value}`);
      return res;
    },
  };
  return { res: res as unknown as HttpResponse, written };
}

describe("writeHead", () => {
  it("writes the status and every header, repeated names included, when all are clean", () => {
    const { res, written } = recorder();
    expect(
      writeHead(res, "303 See Other", { Location: "/dashboard" }, undefined, [
        ["Set-Cookie", "a=1"],
        ["Set-Cookie", "b=2"],
      ]),
    ).toBeUndefined();
    expect(written).toEqual(["303 See Other", "Location: /dashboard", "Set-Cookie: a=1", "Set-Cookie: b=2"]);
  });

  it.each(["\r", "\n", "\r\n", "\0"])("writes nothing at all when a value holds %j", (bad) => {
    const { res, written } = recorder();
    const refused = writeHead(
      res,
      "303 See Other",
      { "X-Fine": "ok" },
      { Location: `/dashboard${bad}Set-Cookie: session=attacker` },
    );
    expect(refused).toBe("Location");
    expect(written).toEqual([]);
    expect(refusedHeader([["Set-Cookie", `a=1${bad}`]])).toBe("Set-Cookie");
    expect(refusedHeader({ [`X-A${bad}B`]: "v" })).toBe(`X-A${bad}B`);
  });
});
