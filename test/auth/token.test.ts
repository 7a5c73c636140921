// Token parsing without Redis: only the canonical form of a signature verifies, so one token has exactly
// one spelling (the verified-token cache is keyed by it), and the cache stays within its byte budget.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signToken, verifyTokenSignature } from "../../src/auth/token.js";
import { VerifiedTokenCache } from "../../src/auth/verified-token-cache.js";

const secret = randomBytes(32).toString("base64url");
const token = signToken(secret, { accountId: "acct_1", generation: 3 });
const [payload, signature] = [token.slice(0, token.lastIndexOf(".")), token.slice(token.lastIndexOf(".") + 1)];

describe("token signatures", () => {
  it("verifies the canonical token", () => {
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verifyTokenSignature(secret, token)).toEqual({ accountId: "acct_1", generation: 3 });
  });

  it("refuses every other spelling of the same signature bytes", () => {
    const standard = Buffer.from(signature, "base64url").toString("base64");
    // The last of 43 characters carries 2 unused bits: three other letters decode to the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(signature.at(-1)!);
    const sameBytes = [1, 2, 3].map(
      (bits) => `${payload}.${signature.slice(0, -1)}${alphabet[(last & ~3) | ((last + bits) & 3)]}`,
    );
    const variants = [
      `${token}=`,
      `${token}=anything`,
      `${token}!!`,
      `${token}${"x".repeat(60_000)}`.slice(0, token.length + 1),
      `${payload}.${standard}`,
      `${payload}.${signature.slice(0, 20)} ${signature.slice(20)}`,
      `${payload}.${signature.slice(0, 20)}\n${signature.slice(20)}`,
      ...sameBytes,
    ];
    for (const variant of variants) {
      expect(
        Buffer.from(variant.slice(payload.length + 1), "base64url").equals(Buffer.from(signature, "base64url")) ||
          variant.length !== token.length,
        variant,
      ).toBe(true);
      expect(verifyTokenSignature(secret, variant), JSON.stringify(variant)).toBeUndefined();
    }
  });
});

describe("verified-token cache", () => {
  it("stays within its byte budget however many distinct tokens arrive", () => {
    const cache = new VerifiedTokenCache(10_000);
    for (let i = 0; i < 1000; i++) {
      cache.set(`${"t".repeat(500)}${i}`, { accountId: "a", generation: 1 });
      expect(cache.bytes).toBeLessThanOrEqual(10_000);
    }
    cache.set("short", { accountId: "a", generation: 1 });
    expect(cache.get("short")).toEqual({ accountId: "a", generation: 1 });
  });

  it("does not keep an entry larger than the whole budget", () => {
    const cache = new VerifiedTokenCache(100);
    cache.set("x".repeat(200), { accountId: "a", generation: 1 });
    expect(cache.get("x".repeat(200))).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
