// The soak's careless part of a fleet: events for outcomes that were never opened (the commonest client
// mistake) and late events for outcomes already settled. Each is dead-lettered, and each must leave Redis like
// the settled outcomes do, so the soak checks both that every stray is in the dead-letter queue once and that
// Redis stays flat while they keep coming.

/** Shares of the fleet's events that go astray, as the issue's soak asks: 5% never opened, 2% already settled. */
const NEVER_OPENED_SHARE = 0.05;
const SETTLED_SHARE = 0.02;
/** Settled keys a late event may pick from: the most recent ones, as a late retry would. */
const SETTLED_KEYS_KEPT = 10_000;

export interface StrayEvent {
  outcome_key: string;
  action: string;
  idempotency_key: string;
}

export type StrayCode = "OUTCOME_NOT_FOUND" | "OUTCOME_NOT_OPEN";

export class StrayTraffic {
  readonly sent: Record<StrayCode, number> = { OUTCOME_NOT_FOUND: 0, OUTCOME_NOT_OPEN: 0 };
  private readonly settledKeys: string[] = [];
  private owedNeverOpened = 0;
  private owedSettled = 0;
  private serial = 0;
  private settledSeen = 0;
  private started = false;

  /** From now on, strays go along with the fleet's events (the capacity phase before runs without them). */
  start(): void {
    this.started = true;
  }

  /** Remembers a Variant A outcome that reached its verdict, for late events to pick from. */
  settled(key: string): void {
    if (this.settledKeys.length === SETTLED_KEYS_KEPT) this.settledKeys[this.settledSeen % SETTLED_KEYS_KEPT] = key;
    else this.settledKeys.push(key);
    this.settledSeen++;
  }

  /** The strays that go along with `fleetEvents` events of the fleet; fractions carry over to the next call. */
  alongside(fleetEvents: number): StrayEvent[] {
    if (!this.started) return [];
    this.owedNeverOpened += fleetEvents * NEVER_OPENED_SHARE;
    this.owedSettled += this.settledKeys.length > 0 ? fleetEvents * SETTLED_SHARE : 0;
    const strays: StrayEvent[] = [];
    for (; this.owedNeverOpened >= 1; this.owedNeverOpened--) {
      const n = this.serial++;
      strays.push({ outcome_key: `never-opened-${n}`, action: "step", idempotency_key: `stray/${n}` });
      this.sent.OUTCOME_NOT_FOUND++;
    }
    for (; this.owedSettled >= 1; this.owedSettled--) {
      const n = this.serial++;
      const key = this.settledKeys[n % this.settledKeys.length]!;
      strays.push({ outcome_key: key, action: "late", idempotency_key: `stray/${n}` });
      this.sent.OUTCOME_NOT_OPEN++;
    }
    return strays;
  }
}

/** Redis's growth per minute over the second half of the samples (bytes), from the first to the last of them. */
export function secondHalfGrowthPerMinute(
  samples: readonly { minute: number; redisBytes: number }[],
): number | undefined {
  const half = samples.slice(Math.floor(samples.length / 2));
  const first = half[0];
  const last = half[half.length - 1];
  if (!first || !last || last.minute === first.minute) return undefined;
  return (last.redisBytes - first.redisBytes) / (last.minute - first.minute);
}

/** Every dead letter of the account, hot and archived, counted by code (pages of 1,000). */
export async function deadLettersByCode(get: (path: string) => Promise<unknown>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const page = (await get(`/v1/dlq?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)) as {
      dead_letters: { code: string }[];
      next_cursor: string | null;
    };
    for (const letter of page.dead_letters) counts[letter.code] = (counts[letter.code] ?? 0) + 1;
    cursor = page.next_cursor;
  } while (cursor !== null);
  return counts;
}

/** How the dead letters differ from the strays sent: each stray must be there once, and nothing else. */
export function strayMismatches(letters: Record<string, number>, sent: Record<StrayCode, number>): string[] {
  const expected: Record<string, number> = { ...sent };
  const codes = new Set([...Object.keys(letters), ...Object.keys(expected)]);
  return [...codes]
    .filter((code) => (letters[code] ?? 0) !== (expected[code] ?? 0))
    .map((code) => `${letters[code] ?? 0} dead letters ${code}, ${expected[code] ?? 0} strays sent that should be`);
}
