// Large pieces of work of a worker's shard actors (a settle's page of due verdicts: 10-40 ms to stage) each
// take an event-loop turn of their own. A storm's listings of every shard answer in one read; staged in that
// one turn, their commits could not finish leaving (a large write completes in later turns) nor their replies
// be read, so Redis idled until the turn ended. One page per turn lets each commit leave as soon as it is
// staged and Redis run it while the next shard's page is staged (figures: docs/performance.md, Fifth pass).
export class StagingTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a later turn than any earlier caller's, after the event loop has polled for I/O. */
  next(): Promise<void> {
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.schedule();
    return turn;
  }

  /**
   * One waiter per check phase: an immediate set while the check phase runs waits for the next loop
   * iteration, whose poll phase comes first (writes complete, replies are read).
   */
  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}
