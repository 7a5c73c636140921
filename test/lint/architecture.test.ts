// The rooms table of docs/architecture.md is the walls the lint builds, so it must match the tree: every
// room of src/ has a row, run-time arrows never climb to a higher floor, and the imports of the code and
// the table agree both ways (nothing imported that the row does not allow, nothing allowed that no file uses).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

interface Room {
  room: string;
  floor: number;
  mayImport: string[];
  typesOnly: string[];
}

// Loaded by URL: the config is plain JavaScript (ESLint reads it without a build), so it has no types.
const { rooms } = (await import(new URL("../../eslint.config.js", import.meta.url).href)) as { rooms: Room[] };

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") && !path.endsWith(".test.ts") ? [path] : [];
  });
}

/** The room a path of src/ belongs to: its first folder, or the file itself at the top. */
function roomOf(path: string): string {
  const [first, ...rest] = relative(SRC, path).split(sep);
  return rest.length === 0 ? first!.replace(/\.js$/, ".ts") : first!;
}

/** Every arrow between rooms, with whether any import along it is needed at run time. */
function arrows(): Map<string, Map<string, { runtime: boolean }>> {
  const found = new Map<string, Map<string, { runtime: boolean }>>();
  for (const file of sourceFiles(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
      const from = roomOf(file);
      const to = roomOf(resolve(dirname(file), specifier.text));
      if (from === to) continue;
      const typeOnly = ts.isImportDeclaration(statement)
        ? statement.importClause?.isTypeOnly === true ||
          (statement.importClause?.namedBindings !== undefined &&
            ts.isNamedImports(statement.importClause.namedBindings) &&
            statement.importClause.name === undefined &&
            statement.importClause.namedBindings.elements.every((element) => element.isTypeOnly))
        : statement.isTypeOnly;
      const targets = found.get(from) ?? new Map<string, { runtime: boolean }>();
      const arrow = targets.get(to) ?? { runtime: false };
      arrow.runtime ||= !typeOnly;
      found.set(from, targets.set(to, arrow));
    }
  }
  return found;
}

describe("the rooms table", () => {
  const byName = new Map(rooms.map((room) => [room.room, room]));

  it("has one row for every room of src/", () => {
    const inTree = [...new Set(sourceFiles(SRC).map(roomOf))].sort();
    expect(rooms.map((room) => room.room).sort()).toEqual(inTree);
  });

  it("lets run-time arrows go to the same floor or down, never up", () => {
    const climbing = rooms.flatMap(({ room, floor, mayImport }) =>
      mayImport
        .filter((target) => (byName.get(target)?.floor ?? Infinity) > floor)
        .map((target) => `${room} -> ${target}`),
    );
    expect(climbing).toEqual([]);
  });

  it("agrees with the imports of the tree, both ways", () => {
    const actual = arrows();
    const disagreements: string[] = [];
    for (const { room, mayImport, typesOnly } of rooms) {
      const targets = actual.get(room) ?? new Map<string, { runtime: boolean }>();
      for (const [target, { runtime }] of targets) {
        if (runtime && !mayImport.includes(target))
          disagreements.push(`${room} imports ${target} at run time; its row does not allow it`);
        if (!runtime && !mayImport.includes(target) && !typesOnly.includes(target))
          disagreements.push(`${room} imports types of ${target}; its row does not allow it`);
        if (!runtime && mayImport.includes(target))
          disagreements.push(`${room} imports only types of ${target}; its row should say types only`);
      }
      for (const target of [...mayImport, ...typesOnly]) {
        if (!targets.has(target)) disagreements.push(`${room}'s row allows ${target}, which it never imports`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
