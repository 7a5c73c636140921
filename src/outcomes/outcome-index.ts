// The account's outcome index on a shard lists outcomes by creation time: the actor writes its members when
// an event creates an outcome, the outcome store writes them on POST /v1/outcomes and pages through them.

/**
 * Index member of an outcome: creation time (zero-padded, so lexical order is time order) and key. All
 * members score 0, so ZRANGEBYLEX pages exactly from a cursor, same-millisecond outcomes included.
 */
export function indexMember(createdAt: number, key: string): string {
  return `${String(createdAt).padStart(15, "0")}\n${key}`;
}

/** The scores an outcome listing can be sorted by. */
export type ScoreName = "trajectory" | "anomaly" | "novelty";
export const SCORE_NAMES: readonly ScoreName[] = ["trajectory", "anomaly", "novelty"];

/**
 * Member of a score index (per shard and account, one per score): the score in ten-thousandths, five
 * digits so lexical order is numeric order, then the key; an unscored (null) outcome has none.
 */
export function scoreMember(score: number, key: string): string {
  return `${String(Math.round(score * 1e4)).padStart(5, "0")}\n${key}`;
}

/** The outcome key of an index member (creation or score). */
export function keyOfIndexMember(member: string): string {
  return member.slice(member.indexOf("\n") + 1);
}
