// API tokens: "vt1.<account>.<generation>.<signature>", HMAC-SHA256 over the first three parts; no lookup needed.
import { createHmac, timingSafeEqual } from "node:crypto";

const VERSION = "vt1";
const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const GENERATION = /^[1-9][0-9]{0,14}$/;
/** Unpadded base64url of 32 bytes, the only spelling accepted (see verifyTokenSignature). */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export interface TokenClaims {
  accountId: string;
  generation: number;
}

function signature(secret: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(payload).digest();
}

export function signToken(secret: string, claims: TokenClaims): string {
  if (!ACCOUNT_ID.test(claims.accountId)) throw new Error(`account id not allowed in a token: ${claims.accountId}`);
  if (!Number.isSafeInteger(claims.generation) || claims.generation < 1)
    throw new Error("generation must be a positive integer");
  const payload = `${VERSION}.${claims.accountId}.${claims.generation}`;
  return `${payload}.${signature(secret, payload).toString("base64url")}`;
}

/** The claims of a well-formed token whose signature checks out (constant-time); undefined otherwise. */
export function verifyTokenSignature(secret: string, token: string): TokenClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 4) return undefined;
  const [version, accountId, generation, sig] = parts as [string, string, string, string];
  if (version !== VERSION || !ACCOUNT_ID.test(accountId) || !GENERATION.test(generation) || !SIGNATURE.test(sig))
    return undefined;
  // The text is compared, not the decoded bytes: Buffer's base64url decoding skips foreign characters,
  // stops at `=` and ignores the last character's two spare bits, so many spellings decode alike, and
  // each would be a distinct entry of the verified-token cache. Only the canonical one is the token.
  const given = Buffer.from(sig, "latin1");
  const expected = Buffer.from(
    signature(secret, `${version}.${accountId}.${generation}`).toString("base64url"),
    "latin1",
  );
  // Equal lengths first: timingSafeEqual throws otherwise, and the length of a SHA-256 MAC is public.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { accountId, generation: Number(generation) };
}

/** The token of an `Authorization` header value, or undefined when missing or not the Bearer scheme. */
export function bearerToken(header: string): string | undefined {
  const space = header.indexOf(" ");
  if (space < 0 || header.slice(0, space).toLowerCase() !== "bearer") return undefined;
  const token = header.slice(space + 1).trim();
  return token === "" ? undefined : token;
}
