// A settle's commits, one in flight while the shard stages its next page (due-pages.ts), so the worker
// stages while Redis runs the previous commit rather than each waiting for the other. A page's commit is
// sent only once the previous one has committed, so a failed commit stops the settle: the next page, staged
// but not sent, is forgotten by the caller, and the pages after it are not staged; the next tick settles them.
export class SettleFlight {
  private inFlight: Promise<boolean> | undefined;
  /** What the commit in flight threw, if it did: rethrown when it is waited for. */
  private failure: { error: unknown } | undefined;

  /**
   * Waits for the commit in flight, then sends the next with `send` (called at once, before any await of
   * its own, so the commit leaves now). False, with nothing sent, when the commit in flight did not commit.
   */
  async send(send: () => Promise<boolean>): Promise<boolean> {
    if (!(await this.landed())) return false;
    // Caught now: it is awaited only when the next page is staged, and a rejection must not be unhandled.
    this.inFlight = send().catch((error: unknown) => {
      this.failure = { error };
      return false;
    });
    return true;
  }

  /** Waits for the commit in flight, if any: whether it committed; what it threw is thrown here. */
  async landed(): Promise<boolean> {
    const flight = this.inFlight;
    this.inFlight = undefined;
    if (flight === undefined) return true;
    const committed = await flight;
    const failure = this.failure;
    this.failure = undefined;
    if (failure) throw failure.error;
    return committed;
  }
}
