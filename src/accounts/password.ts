// Password hashing for dashboard users: scrypt from node:crypto, a salt per user, and the cost parameters
// kept in the record so they can be raised later without invalidating stored hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

export interface PasswordHash {
  algorithm: "scrypt";
  /** CPU/memory cost (a power of two). */
  N: number;
  r: number;
  p: number;
  /** Salt and derived key, base64url. */
  salt: string;
  hash: string;
}

/** Fewer characters than this is refused at sign-up and by `verdict user add`. */
export const MIN_PASSWORD_LENGTH = 12;

/** 2^15 x r=8 uses 32 MiB and about 0.1 s per hash here: costly to guess offline, cheap enough to sign in. */
const CURRENT = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, CURRENT);
  return { algorithm: "scrypt", ...CURRENT, salt: salt.toString("base64url"), hash: key.toString("base64url") };
}

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = Buffer.from(stored.hash, "base64url");
  const key = await derive(password, Buffer.from(stored.salt, "base64url"), stored);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash to verify against when the email is unknown, so a wrong email costs the same time as a wrong
 * password and the answer's timing does not tell which emails have users.
 */
let decoy: Promise<PasswordHash> | undefined;
export function decoyHash(): Promise<PasswordHash> {
  return (decoy ??= hashPassword(randomBytes(16).toString("base64url")));
}
