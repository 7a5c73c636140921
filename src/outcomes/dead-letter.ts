// A dead letter: an accepted event that could not be applied, kept with its code so nothing disappears silently.
import { msgpack } from "../codec/msgpack.js";
import type { DeadLetterCode } from "../errors/codes.js";
import type { EventEnvelope } from "../streams/event-envelope.js";

export interface DeadLetterRecord {
  code: DeadLetterCode;
  message: string;
  event: EventEnvelope;
  /** Processing attempts made before it was set aside (1 for business rejections). */
  attempts: number;
  /**
   * The delivery set aside, "<shard stream entry id>/<index in the entry>": unique within its shard, and
   * kept when a failed replay puts the letter back, so a replay can claim it (replay-claim.ts).
   */
  source: string;
}

export function packDeadLetter(record: DeadLetterRecord): Buffer {
  return msgpack.pack(record);
}

export function unpackDeadLetter(bytes: Buffer): DeadLetterRecord {
  return msgpack.unpack(bytes) as DeadLetterRecord;
}
