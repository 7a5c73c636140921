// The lifecycle: newest first, every stopper run even after one fails, once, and a failed start undone.
import { describe, expect, it } from "vitest";
import { createLogger } from "../telemetry/logger.js";
import { Lifecycle } from "./lifecycle.js";

const logger = createLogger("silent", {});

describe("Lifecycle", () => {
  it("stops newest first, goes on past a stopper that throws, and stops only once", async () => {
    const stopped: string[] = [];
    const lifecycle = new Lifecycle(logger);
    lifecycle.onStop(() => stopped.push("redis"));
    lifecycle.onStop(() => {
      throw new Error("already closed");
    });
    lifecycle.onStop(async () => {
      await Promise.resolve();
      stopped.push("http");
    });
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    await lifecycle.stop();
    expect(stopped).toEqual(["http", "redis"]);
  });

  it("undoes what a failed start had started, then throws its error", async () => {
    const stopped: string[] = [];
    const lifecycle = new Lifecycle(logger);
    const failed = lifecycle.starting(async () => {
      lifecycle.onStop(() => stopped.push("core"));
      await Promise.resolve();
      throw new Error("port in use");
    });
    await expect(failed).rejects.toThrow("port in use");
    expect(stopped).toEqual(["core"]);
  });
});
