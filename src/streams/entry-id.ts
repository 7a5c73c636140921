// Stream entry ids ("<ms>-<seq>") in order: the actor's redelivery check runs it per event, so it avoids
// allocating (no split, no arrays).

function parts(id: string): [number, number] {
  const dash = id.indexOf("-");
  return dash < 0 ? [Number(id), 0] : [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

/** Negative, zero or positive as `a` comes before, equals or comes after `b`. */
export function compareEntryIds(a: string, b: string): number {
  const [aMs, aSeq] = parts(a);
  const [bMs, bSeq] = parts(b);
  return aMs - bMs || aSeq - bSeq;
}
