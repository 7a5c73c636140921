// Whether a token secret looks like generated key material: long enough, and not a short pattern repeated.
// A secret cannot be proven random; this refuses the obvious (`aaaaaaaaaaaaaaaa`, `abcd` repeated, a
// word), and docs/configuration.md says how to generate one that passes with a wide margin.

export const MIN_SECRET_BYTES = 32;
/** Estimated bits a secret must exceed: 32 random bytes as hex or base64 estimate at 190 or more. */
export const MIN_SECRET_BITS = 128;

/**
 * Length times the Shannon entropy of the secret's own byte frequencies: an estimate of the bits it
 * carries if each byte were drawn independently (0 for one repeated character, 64 for `abcd` x 8).
 */
export function estimatedSecretBits(secret: string): number {
  const bytes = Buffer.from(secret, "utf8");
  const counts = new Map<number, number>();
  for (const byte of bytes) counts.set(byte, (counts.get(byte) ?? 0) + 1);
  let perByte = 0;
  for (const count of counts.values()) {
    const p = count / bytes.length;
    perByte -= p * Math.log2(p);
  }
  return perByte * bytes.length;
}

/** Why `secret` is refused, or undefined when it will do. */
export function secretProblem(secret: string): string | undefined {
  const length = Buffer.byteLength(secret, "utf8");
  if (length < MIN_SECRET_BYTES)
    return `tokenSecret must be at least ${MIN_SECRET_BYTES} bytes (got ${length}); generate one with: openssl rand -base64 32`;
  if (estimatedSecretBits(secret) <= MIN_SECRET_BITS)
    return "tokenSecret is too regular to be a random secret; generate one with: openssl rand -base64 32";
  return undefined;
}
