// Back-off per endpoint for the receivers that cannot be reached (a refused connection, a timeout, a refused
// address): their rounds wait as a whole, so a dead receiver costs one round's attempts per step of the
// schedule instead of one attempt per queued message; messages about other outcomes wait without spending
// their own attempts. An answer of any status (a reached receiver) ends it.
export class EndpointBackoff {
  /** By endpoint ("<account>\n<endpoint>"): unreachable rounds in a row, and until when the next waits. */
  private readonly down = new Map<string, { rounds: number; until: number }>();

  /** `delayMs(n)`: the wait after the n-th unreachable round in a row (undefined: none). */
  constructor(private readonly delayMs: (rounds: number) => number | undefined) {}

  /** Whether the endpoint's next round must wait still. */
  waiting(endpoint: string, now: number): boolean {
    const state = this.down.get(endpoint);
    return state !== undefined && now < state.until;
  }

  /** A round that found the endpoint unreachable: the next one waits the schedule's next delay. */
  unreachable(endpoint: string, now: number): void {
    const rounds = (this.down.get(endpoint)?.rounds ?? 0) + 1;
    this.down.set(endpoint, { rounds, until: now + (this.delayMs(rounds) ?? 0) });
  }

  /** A round that reached the endpoint. */
  reached(endpoint: string): void {
    this.down.delete(endpoint);
  }
}
