// Globals the k6 runtime provides that @types/k6 does not declare.
declare global {
  /** k6's console: log, info, warn, error and debug, printed through k6's logger. */
  var console: {
    log(...args: unknown[]): void;
    info(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
    debug(...args: unknown[]): void;
  };
}

export {};
