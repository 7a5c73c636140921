// An OpenTelemetry context manager whose active context lasts only while `with`'s callback runs synchronously.
//
// The SDK's default (AsyncLocalStorage) carries the context across awaits, but the first `context.with`
// anywhere in the process, which the batch span processor makes on every export, switches on Node's
// promise hooks for good: every promise of the process then pays for them. The ingress passes its spans
// explicitly and never reads the active context after an await, so it has no use for that carrying.
import { ROOT_CONTEXT, type Context, type ContextManager } from "@opentelemetry/api";

export class SynchronousContextManager implements ContextManager {
  private current: Context = ROOT_CONTEXT;

  active(): Context {
    return this.current;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  /** A function runs in `context` whenever it is called; anything else (an event emitter) is left as it is. */
  bind<T>(context: Context, target: T): T {
    if (typeof target !== "function") return target;
    const fn = target as (...args: unknown[]) => unknown;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the bound function's `this` is its caller's
    const manager = this;
    return function (this: unknown, ...args: unknown[]) {
      return manager.with(context, fn, this, ...args);
    } as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.current = ROOT_CONTEXT;
    return this;
  }
}
