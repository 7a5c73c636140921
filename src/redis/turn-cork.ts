// Holds a client's sockets corked until the end of the event-loop turn, so the commands that many callers
// issue in one turn leave in one write per node instead of one write (and one syscall on each side) each.
import { corkMasters, type RedisClient } from "./client.js";

export class TurnCork {
  private uncork: (() => void) | undefined;

  constructor(private readonly client: RedisClient) {}

  /** Call before sending a command: the client's sockets stay corked until this turn's check phase. */
  hold(): void {
    if (this.uncork) return;
    this.uncork = corkMasters(this.client);
    setImmediate(() => this.release());
  }

  /**
   * Sends what is held now rather than at the turn's end: after a command large enough that Redis should
   * start on it while this turn goes on (a storm's commit, staged while other shards stage theirs).
   */
  release(): void {
    const uncork = this.uncork;
    this.uncork = undefined;
    uncork?.();
  }
}
