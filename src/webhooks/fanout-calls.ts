// A page of outbox entries fanned out in calls of bounded size: a fan-out call holds Redis, every account's
// enqueue included, for each message it creates, so a page of entries for many endpoints is split.
import { activeMember, type FanOut } from "./message-store.js";

/** Messages one fan-out call creates, about (it takes whole entries). */
export const MESSAGES_PER_CALL = 200;

/** What one fan-out call reports: the endpoints (active-set members) it found at their backlog, and the messages it skipped. */
export interface FanOutAnswer {
  full: readonly string[];
  skipped: number;
}

/**
 * Fans `page` out through `call`, in order, in calls of about MESSAGES_PER_CALL messages. An endpoint in
 * `full`, to which each call adds those it found at their backlog, is offered none of the later entries.
 * Returns the messages skipped for a full backlog.
 */
export async function fanOutInCalls(
  page: readonly FanOut[],
  full: Set<string>,
  call: (entries: FanOut[]) => Promise<FanOutAnswer>,
): Promise<number> {
  let skipped = 0;
  let batch: FanOut[] = [];
  let messages = 0;
  const send = async (): Promise<void> => {
    const answer = await call(batch);
    for (const member of answer.full) full.add(member);
    skipped += answer.skipped;
    batch = [];
    messages = 0;
  };
  for (const entry of page) {
    const open = entry.endpointIds.filter((id) => !full.has(activeMember(entry.accountId, id)));
    skipped += entry.endpointIds.length - open.length;
    batch.push(open.length === entry.endpointIds.length ? entry : { ...entry, endpointIds: open });
    messages += open.length;
    if (messages >= MESSAGES_PER_CALL) await send();
  }
  if (batch.length > 0) await send();
  return skipped;
}
