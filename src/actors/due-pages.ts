// A settle's walk through the shard's due-time index, a page of due outcomes (one commit) at a time. Each
// page is listed before the previous page's commit is sent, so that its reply does not wait behind that
// commit in Redis and the page can be staged while Redis runs it (settle-flight.ts). Redis then still holds
// the page in hand as due, at the head of the index: the listing starts past it, and still leaves out any
// of it (an outcome opened meanwhile with an earlier due time moves the head), so a page never lists an
// outcome whose commit is staged or in flight. What such a shift leaves unlisted, the next tick settles.
export class DuePages {
  /** `list(offset, limit)` lists `limit` outcomes due from the `offset`th; `size` is a page's length. */
  constructor(
    private readonly list: (offset: number, limit: number) => Promise<string[]>,
    private readonly size: number,
  ) {}

  first(): Promise<string[]> {
    return this.list(0, this.size);
  }

  /**
   * The page after `current`, listed now (before `current`'s commit is sent); empty when `current` was
   * the last. The caller may stop without awaiting it (a commit failed), so its failure is never unhandled.
   */
  after(current: readonly string[]): Promise<string[]> {
    if (current.length < this.size) return Promise.resolve([]);
    const next = this.list(current.length, this.size).then((refs) => {
      const staged = new Set(current);
      return refs.filter((ref) => !staged.has(ref));
    });
    next.catch(() => undefined);
    return next;
  }
}
