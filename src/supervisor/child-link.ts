// A supervised child's end of the IPC channel: it answers the supervisor's readiness and metrics requests
// for its app, and stops when the supervisor is gone (the channel closes when it exits, even by kill -9),
// so no child outlives its supervisor.
import type { Registry } from "prom-client";
import type { Logger } from "../telemetry/logger.js";
import { isSupervisorRequest, type ChildReply } from "./messages.js";

export interface SupervisedApp {
  registry: Registry;
  /** Names of the readiness checks that fail now; empty when ready. */
  failingChecks(): Promise<string[]>;
}

/** Starts answering before the app exists (answers "starting" until `attach`), so a slow start never times a request out. */
export class ChildLink {
  private app: SupervisedApp | undefined;

  constructor(logger: Logger, onSupervisorGone: () => void) {
    process.on("message", (message: unknown) => {
      if (!isSupervisorRequest(message)) return;
      void this.answer(message.verdict, message.id).then(
        (reply) => process.send?.(reply),
        (error: unknown) => logger.warn({ err: error }, "could not answer the supervisor"),
      );
    });
    process.once("disconnect", () => {
      logger.warn("supervisor gone; stopping");
      onSupervisorGone();
    });
  }

  attach(app: SupervisedApp): void {
    this.app = app;
  }

  private async answer(kind: "readiness" | "metrics", id: number): Promise<ChildReply> {
    const app = this.app;
    if (kind === "readiness")
      return { verdict: "readiness", id, failing: app ? await app.failingChecks() : ["starting"] };
    return { verdict: "metrics", id, metrics: app ? await app.registry.getMetricsAsJSON() : [] };
  }
}
