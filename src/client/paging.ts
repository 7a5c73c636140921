// A list call's answer: await it for one page (the response body), or iterate it with `for await` for every
// item of every page, following `next_cursor` until the service says there is no more.

/** Paging parameters every paginated list takes: `limit` 1..1000 (default 100) and an opaque `cursor`. */
export interface PageQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page body: the items under their list field, and the cursor of the next page (null on the last). */
export type ListPage<Field extends string, Item> = { [K in Field]: Item[] } & { next_cursor: string | null };

export class PagedList<Item, Body> implements PromiseLike<Body>, AsyncIterable<Item> {
  private first: Promise<Body> | undefined;

  constructor(
    /** Fetches the page at `cursor` (undefined: the query's own cursor, or the first page). */
    private readonly fetchPage: (cursor: string | undefined) => Promise<Body>,
    private readonly itemsOf: (body: Body) => Item[],
    private readonly nextOf: (body: Body) => string | null,
  ) {}

  /** The first page, fetched once however often it is awaited. */
  then<R1 = Body, R2 = never>(
    onfulfilled?: ((body: Body) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    this.first ??= this.fetchPage(undefined);
    return this.first.then(onfulfilled, onrejected);
  }

  /** Every page in turn, each fetched when the previous one is used up. */
  async *pages(): AsyncGenerator<Body, void, undefined> {
    let cursor: string | undefined;
    do {
      const body = await this.fetchPage(cursor);
      yield body;
      cursor = this.nextOf(body) ?? undefined;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const body of this.pages()) yield* this.itemsOf(body);
  }
}
