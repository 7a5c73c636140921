// The cursor of a record list (tasks, agents, customers, rate cards, webhook endpoints): the last key of a
// page, tagged with its kind and encoded, so a garbage, truncated or another list's cursor is refused with
// VALIDATION_ERROR rather than paging from wherever it happens to sort.
import type { RecordKind } from "../records/record-kind.js";
import { decodeCursor, encodeCursor } from "../stores/cursor.js";
import { invalidCursor, MAX_KEY_LENGTH } from "./request-checks.js";

export function encodeRecordCursor(kind: RecordKind, lastKey: string): string {
  return encodeCursor(`${kind}\n${lastKey}`);
}

/** The key a page starts after (null: the first page); throws VALIDATION_ERROR for anything else. */
export function decodeRecordCursor(kind: RecordKind, cursor: string | null): string | null {
  if (cursor === null) return null;
  const tag = `${kind}\n`;
  const position = decodeCursor(cursor);
  if (position === undefined || !position.startsWith(tag)) throw invalidCursor();
  const key = position.slice(tag.length);
  // No record has an empty or over-long key, so no page ends at one.
  if (key.length < 1 || key.length > MAX_KEY_LENGTH) throw invalidCursor();
  return key;
}
