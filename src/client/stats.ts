// What `client.stats()` reports: the caller's view of its own backlog and delivery, for metrics and logs.

export interface ClientStats {
  /** Events tracked and not yet settled (queued, held back for a retry, or in flight); at most `maxBufferedEvents`. */
  buffered: number;
  /** Events whose `track` is waiting for room in the buffer. */
  waiting: number;
  /** Batch requests in flight; at most `maxInFlight`. */
  inFlight: number;
  /** Events the service accepted (duplicates of an earlier send included). */
  accepted: number;
  /** Events whose `track` rejected. */
  rejected: number;
  /** Event sends that were retries (one event retried three times counts three). */
  retried: number;
}
