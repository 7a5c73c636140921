// A webhook message as stored in its hash (one per endpoint, its body shared) and as the API shows it.

export type MessageStatus = "pending" | "delivered" | "failed";

/** A message as stored. */
export interface StoredMessage {
  id: string;
  type: string;
  /** Messages with the same order key (one outcome) go out in commit order. */
  order: string;
  body: string;
  status: MessageStatus;
  attempts: number;
  /** Attempts since it was created or last resent: where it is in the retry schedule. */
  tries: number;
  nextAt: number;
  createdAt: number;
}

/** One attempt, as `GET .../attempts` lists it. */
export interface AttemptView {
  timestamp: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response: string;
}

/** A message, as `GET .../messages` lists it. */
export interface MessageView {
  id: string;
  event_type: string;
  status: MessageStatus;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  payload: unknown;
}

/** The message of a stored hash, or undefined when the hash is gone. */
export function parseMessage(hash: Record<string, string>): StoredMessage | undefined {
  if (hash.id === undefined) return undefined;
  return {
    id: hash.id,
    type: hash.type ?? "",
    order: hash.order ?? "",
    body: hash.body ?? "",
    status: (hash.status ?? "pending") as MessageStatus,
    attempts: Number(hash.attempts ?? 0),
    tries: Number(hash.tries ?? 0),
    nextAt: Number(hash.next_at ?? 0),
    createdAt: Number(hash.created_at ?? 0),
  };
}

/** A message as `GET .../messages` lists it: its body parsed back to JSON where it is JSON. */
export function messageView(message: StoredMessage): MessageView {
  let payload: unknown;
  try {
    payload = JSON.parse(message.body);
  } catch {
    payload = message.body;
  }
  return {
    id: message.id,
    event_type: message.type,
    status: message.status,
    attempts: message.attempts,
    next_attempt_at: message.status === "pending" ? new Date(message.nextAt).toISOString() : null,
    created_at: new Date(message.createdAt).toISOString(),
    payload,
  };
}
