// Structured JSON logs (pino); one root logger, children per component.
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string, base: Record<string, unknown> = {}): Logger {
  return pino({ level, base: { service: "verdict", ...base } });
}

/** A logger that writes nothing, for tests and library use where the caller did not pass one. */
export const silentLogger: Logger = pino({ level: "silent" });
