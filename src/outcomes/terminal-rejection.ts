// Which failures dead-letter at once. Processing an event can fail two ways, and the shard actor treats
// them differently:
// - a TerminalRejection is returned (never thrown): the event can never apply as it is (its outcome does
//   not exist, it is closed, its customer has no rate card...). It is dead-lettered with its code in the
//   same commit, and the shard goes on.
// - anything thrown is retryable: the batch is redone from Redis after a backoff, and only after
//   maxProcessingAttempts is the event set aside as PROCESSING_FAILED.
import type { DeadLetterCode } from "../errors/codes.js";

export interface TerminalRejection {
  readonly terminal: true;
  readonly code: DeadLetterCode;
  readonly message: string;
}

export function terminalRejection(code: DeadLetterCode, message: string): TerminalRejection {
  return { terminal: true, code, message };
}

export function isTerminalRejection(value: object): value is TerminalRejection {
  return "terminal" in value && value.terminal === true;
}
