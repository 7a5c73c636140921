// Tokens whose signature already checked out, so the hot path skips the HMAC. Bounded by the bytes of
// the tokens it holds, not just their count: a count alone let long token variants take 76 MiB.

export interface CachedClaims {
  accountId: string;
  generation: number;
}

/** Tokens of every account a node serves fit many times over: a canonical token is under 200 bytes. */
export const DEFAULT_VERIFIED_TOKEN_BYTES = 2 * 1024 * 1024;

export class VerifiedTokenCache {
  private readonly entries = new Map<string, CachedClaims>();
  private held = 0;

  constructor(private readonly maxBytes = DEFAULT_VERIFIED_TOKEN_BYTES) {}

  /** Bytes of token text held (UTF-16 code units stand in for bytes: tokens are ASCII). */
  get bytes(): number {
    return this.held;
  }

  get(token: string): CachedClaims | undefined {
    return this.entries.get(token);
  }

  /** Remembers a verified token; when the budget is full it starts over (the next misses re-verify). */
  set(token: string, claims: CachedClaims): void {
    if (token.length > this.maxBytes || this.entries.has(token)) return;
    if (this.held + token.length > this.maxBytes) {
      this.entries.clear();
      this.held = 0;
    }
    this.entries.set(token, claims);
    this.held += token.length;
  }
}
