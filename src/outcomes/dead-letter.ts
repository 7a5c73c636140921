// A dead letter: an accepted event that could not be applied, kept with its code so nothing disappears silently.
import { Packr } from "msgpackr";
import type { DeadLetterCode } from "../errors/codes.js";
import type { EventEnvelope } from "../streams/event-envelope.js";

export interface DeadLetterRecord {
  code: DeadLetterCode;
  message: string;
  event: EventEnvelope;
  /** Processing attempts made before it was set aside (1 for business rejections). */
  attempts: number;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

export function packDeadLetter(record: DeadLetterRecord): Buffer {
  return packr.pack(record);
}

export function unpackDeadLetter(bytes: Buffer): DeadLetterRecord {
  return packr.unpack(bytes) as DeadLetterRecord;
}
