// Holds a client's sockets corked until the end of the event-loop turn, so the commands that many callers
// issue in one turn leave in one write per node instead of one write (and one syscall on each side) each.
import { corkMasters, type RedisClient } from "./client.js";

export class TurnCork {
  private held = false;

  constructor(private readonly client: RedisClient) {}

  /** Call before sending a command: the client's sockets stay corked until this turn's check phase. */
  hold(): void {
    if (this.held) return;
    this.held = true;
    const uncork = corkMasters(this.client);
    setImmediate(() => {
      this.held = false;
      uncork();
    });
  }
}
