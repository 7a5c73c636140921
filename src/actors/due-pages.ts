// A settle's walk through the shard's due-time index, a page of due outcomes (one commit) at a time. Each
// page is listed before the previous page's commit is sent, so that its reply does not wait behind that
// commit in Redis and the page can be staged while Redis runs it (settle-flight.ts). Redis then still holds
// the previous page's outcomes as due: the listing asks for that many more and leaves them out, so a page
// never lists an outcome whose commit is staged or in flight.
export class DuePages {
  /** `list(limit)` lists the first `limit` outcomes due; `size` is a page's length. */
  constructor(
    private readonly list: (limit: number) => Promise<string[]>,
    private readonly size: number,
  ) {}

  first(): Promise<string[]> {
    return this.list(this.size);
  }

  /**
   * The page after `current`, listed now (before `current`'s commit is sent); empty when `current` was
   * the last. The caller may stop without awaiting it (a commit failed), so its failure is never unhandled.
   */
  after(current: readonly string[]): Promise<string[]> {
    if (current.length < this.size) return Promise.resolve([]);
    const staged = new Set(current);
    const next = this.list(this.size + current.length).then((refs) =>
      refs.filter((ref) => !staged.has(ref)).slice(0, this.size),
    );
    next.catch(() => undefined);
    return next;
  }
}
