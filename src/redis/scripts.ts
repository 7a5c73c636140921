// Loads the Lua scripts of one area and calls them by name; ioredis falls back from EVALSHA to EVAL on NOSCRIPT.
import { readFileSync } from "node:fs";
import type { RedisClient } from "./client.js";

export type ScriptArg = string | Buffer | number;

type ScriptMethod = (...args: ScriptArg[]) => Promise<unknown>;

const INCLUDE = /^--\s*@include\s+"([\w-]+)"\s*$/gm;

/**
 * Reads `<name>.lua` from a folder, replacing `-- @include "x"` lines with `includes/x.lua`, so shared
 * Lua (the fencing check) is written once.
 */
export function readLua(folder: URL, name: string): string {
  const source = readFileSync(new URL(`${name}.lua`, folder), "utf8");
  return source.replace(INCLUDE, (_line, include: string) => readLua(new URL("includes/", folder), include));
}

/** A set of scripts registered on one client; keys always passed explicitly, never built in Lua. */
export class Scripts<Name extends string> {
  private readonly methods = new Map<Name, { plain: ScriptMethod; buffer: ScriptMethod }>();

  constructor(
    client: RedisClient,
    folder: URL,
    names: readonly Name[],
  ) {
    const methods = client as unknown as Record<string, ScriptMethod>;
    for (const name of names) {
      const command = `verdict_${name.replace(/\W/g, "_")}`;
      if (typeof methods[command] !== "function") client.defineCommand(command, { lua: readLua(folder, name) });
      const plain = methods[command];
      const buffer = methods[`${command}Buffer`];
      if (!plain || !buffer) throw new Error(`script ${name} did not register`);
      this.methods.set(name, { plain: plain.bind(client), buffer: buffer.bind(client) });
    }
  }

  /** Runs a script; replies come back as strings. */
  run(name: Name, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    return this.method(name).plain(keys.length, ...keys, ...args);
  }

  /** Runs a script; bulk replies come back as Buffers (for msgpack payloads). */
  runBuffer(name: Name, keys: readonly string[], args: readonly ScriptArg[]): Promise<unknown> {
    return this.method(name).buffer(keys.length, ...keys, ...args);
  }

  private method(name: Name): { plain: ScriptMethod; buffer: ScriptMethod } {
    const method = this.methods.get(name);
    if (!method) throw new Error(`unknown script ${name}`);
    return method;
  }
}
