// A commit's sorted-set writes per KEYS index, member to score (null removes; the last write of a member
// wins, as when run in order): sent as one variadic ZADD and one ZREM per key after the other operations,
// so a storm's verdicts cost the script one call per commit rather than one per outcome. `nx` sets are the
// lexical indexes (ZADD NX 0).

/** Unpack slices in the script hold at most this many values; a variadic call longer than that is split. */
const SORTED_SET_SLICE = 1000;

/** commit.lua's zadd ({"zadd", k, nx, {score, m, ...}}) and zrem ({"zrem", k, {m, ...}}) operations. */
export type SortedSetOp =
  { kind: "zadd"; key: number; nx: boolean; values: string[] } | { kind: "zrem"; key: number; values: string[] };

export class SortedSetWrites {
  private readonly byKey = new Map<number, { nx: boolean; members: Map<string, number | null> }>();

  get size(): number {
    return this.byKey.size;
  }

  /** Members staged over every key. */
  get members(): number {
    let members = 0;
    for (const { members: staged } of this.byKey.values()) members += staged.size;
    return members;
  }

  write(key: number, nx: boolean, member: string, score: number | null): void {
    let set = this.byKey.get(key);
    if (!set) {
      set = { nx, members: new Map() };
      this.byKey.set(key, set);
    }
    set.members.set(member, score);
  }

  /** The operations, each key's additions then its removals, in slices. */
  *ops(): Generator<SortedSetOp> {
    for (const [key, { nx, members }] of this.byKey) {
      const added: string[] = [];
      const removed: string[] = [];
      for (const [member, score] of members) {
        // A score as text: Lua would format a number for Redis with snprintf, costly per member.
        if (score === null) removed.push(member);
        else added.push(String(score), member);
      }
      for (let i = 0; i < added.length; i += SORTED_SET_SLICE)
        yield { kind: "zadd", key, nx, values: added.slice(i, i + SORTED_SET_SLICE) };
      for (let i = 0; i < removed.length; i += SORTED_SET_SLICE)
        yield { kind: "zrem", key, values: removed.slice(i, i + SORTED_SET_SLICE) };
    }
  }
}
