// The ingress's context manager: a context is active inside `with` and restored after it, thrown or not,
// and nothing of it survives an await.
import { createContextKey, ROOT_CONTEXT } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { SynchronousContextManager } from "./synchronous-context-manager.js";

const KEY = createContextKey("test key");
const outer = ROOT_CONTEXT.setValue(KEY, "outer");
const inner = ROOT_CONTEXT.setValue(KEY, "inner");

describe("SynchronousContextManager", () => {
  it("makes the context active inside with, nested ones too, and restores the previous one after", () => {
    const manager = new SynchronousContextManager();
    const seen = manager.with(outer, () => {
      const nested = manager.with(inner, () => manager.active().getValue(KEY));
      return [nested, manager.active().getValue(KEY)];
    });
    expect(seen).toEqual(["inner", "outer"]);
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("restores the previous context when the callback throws", () => {
    const manager = new SynchronousContextManager();
    expect(() =>
      manager.with(outer, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });

  it("passes this and the arguments through, and returns the callback's value", () => {
    const manager = new SynchronousContextManager();
    const self = { base: 40 };
    const add = function (this: typeof self, n: number): number {
      return this.base + n;
    };
    expect(manager.with(outer, add, self, 2)).toBe(42);
  });

  it("does not carry the context past an await", async () => {
    const manager = new SynchronousContextManager();
    const after = await manager.with(outer, async () => {
      await Promise.resolve();
      return manager.active().getValue(KEY);
    });
    expect(after).toBeUndefined();
  });

  it("binds a function to a context for whenever it is called", () => {
    const manager = new SynchronousContextManager();
    const read = manager.bind(inner, () => manager.active().getValue(KEY));
    expect(manager.with(outer, read)).toBe("inner");
    expect(manager.active()).toBe(ROOT_CONTEXT);
  });
});
