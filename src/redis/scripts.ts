// Loads the Lua scripts of one area and calls them by name (EVALSHA, falling back to EVAL on NOSCRIPT).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RedisClient } from "./client.js";
import { runScript, type LoadedScript, type ScriptArg } from "./script-command.js";

const INCLUDE = /^--\s*@include\s+"([\w-]+)"\s*$/gm;

/**
 * Reads `<name>.lua` from a folder, replacing `-- @include "x"` lines with `includes/x.lua`, so shared
 * Lua (the fencing check) is written once.
 */
export function readLua(folder: URL, name: string): string {
  const source = readFileSync(new URL(`${name}.lua`, folder), "utf8");
  return source.replace(INCLUDE, (_line, include: string) => readLua(new URL("includes/", folder), include));
}

/** Told of each script call made on a client, by script name (the app counts them as Redis round trips). */
export type ScriptCallObserver = (script: string) => void;

// Per client, not per process: tests run several apps in one process, each with its own clients and metrics.
const observers = new WeakMap<RedisClient, ScriptCallObserver>();

/** Reports every script call made through `Scripts` on `client` (any set, created before or after). */
export function observeScriptCalls(client: RedisClient, observer: ScriptCallObserver): void {
  observers.set(client, observer);
}

/**
 * A set of scripts of one client; keys always passed explicitly, never built in Lua. `Replies` names each
 * script and the reply its header promises (ioredis gives integers as numbers, Lua false as null), so
 * callers read typed values; the one place that trusts a header is here.
 */
export class Scripts<Replies extends object> {
  private readonly scripts = new Map<string, LoadedScript>();

  constructor(
    private readonly client: RedisClient,
    folder: URL,
    names: readonly ScriptName<Replies>[],
  ) {
    for (const name of names) {
      const lua = readLua(folder, name);
      this.scripts.set(name, { lua, sha: createHash("sha1").update(lua).digest("hex") });
    }
  }

  /** Runs a script; bulk replies come back as strings. */
  async run<Name extends ScriptName<Replies>>(
    name: Name,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Replies[Name]> {
    observers.get(this.client)?.(name);
    return (await runScript(this.client, this.script(name), keys, args, "utf8")) as Replies[Name];
  }

  /** Runs a script; bulk replies come back as Buffers (for msgpack payloads). */
  async runBuffer<Name extends ScriptName<Replies>>(
    name: Name,
    keys: readonly string[],
    args: readonly ScriptArg[],
  ): Promise<Replies[Name]> {
    observers.get(this.client)?.(name);
    return (await runScript(this.client, this.script(name), keys, args, null)) as Replies[Name];
  }

  private script(name: string): LoadedScript {
    const script = this.scripts.get(name);
    if (!script) throw new Error(`unknown script ${name}`);
    return script;
  }
}

/** The script names of a replies map. */
export type ScriptName<Replies extends object> = keyof Replies & string;
