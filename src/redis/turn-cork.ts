// Holds a client's sockets corked until the end of the event-loop turn, so the commands that many callers
// issue in one turn leave in one write per node instead of one write (and one syscall on each side) each.
import type { Socket } from "node:net";
import { masters, type RedisClient } from "./client.js";

export class TurnCork {
  private corked: Socket[] | undefined;

  constructor(private readonly client: RedisClient) {}

  /** Call before sending a command: the client's sockets stay corked until this turn's check phase. */
  hold(): void {
    if (this.corked) return;
    const sockets: Socket[] = [];
    for (const node of masters(this.client)) {
      const socket = node.stream;
      if (socket && !socket.destroyed) {
        socket.cork();
        sockets.push(socket);
      }
    }
    this.corked = sockets;
    setImmediate(() => {
      this.corked = undefined;
      for (const socket of sockets) socket.uncork();
    });
  }
}
