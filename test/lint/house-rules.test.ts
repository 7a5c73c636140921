// The house rules of eslint.config.js, shown failing: an arrow the rooms table of docs/architecture.md does
// not allow, a run-time import from a room a row allows types from only, an import cycle, a file over 400
// lines and a function over 80 are errors; an allowed import is not. Fixtures are linted as text at the path they
// would have, against the real tree (a cycle is found through the files on disk).
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";

// Loaded by URL: the config is plain JavaScript (ESLint reads it without a build), so it has no types.
const { houseRules, typeOnlyRules, sizeRules } = (await import(
  new URL("../../eslint.config.js", import.meta.url).href
)) as {
  houseRules: Linter.Config;
  typeOnlyRules: Linter.Config[];
  sizeRules: Linter.Config;
};

const eslint = new ESLint({
  cwd: new URL("../..", import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, houseRules, ...typeOnlyRules],
});

const sizeLint = new ESLint({
  cwd: new URL("../..", import.meta.url).pathname,
  overrideConfigFile: true,
  overrideConfig: [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, sizeRules],
});

async function problems(filePath: string, code: string, linter: ESLint = eslint): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? "parse"}: ${m.message}`);
}

describe("house rules", () => {
  it.each([
    [
      "src/condition/fixture.ts",
      `import { ApiError } from "../errors/api-error.js";\nexport const x = ApiError;\n`,
      "condition may import only itself",
    ],
    [
      "src/scores/fixture.ts",
      `import { Keys } from "../redis/keys.js";\nexport const x = Keys;\n`,
      "scores may import only itself",
    ],
    [
      "src/ingress/fixture.ts",
      `import { passTime } from "../outcomes/outcome-step.js";\nexport const x = passTime;\n`,
      "ingress may import only",
    ],
    [
      "src/ingress/fixture.ts",
      `import { OutcomeStore } from "../stores/outcome-store.js";\nexport const x = OutcomeStore;\n`,
      "ingress may import only",
    ],
    [
      "src/actors/fixture.ts",
      `import { chargeRoutes } from "../api/routes/charges.js";\nexport const x = chargeRoutes;\n`,
      "actors may import only",
    ],
    [
      "src/actors/fixture.ts",
      `import { startHttpServer } from "../ingress/http-server.js";\nexport const x = startHttpServer;\n`,
      "actors may import only",
    ],
    [
      "src/dashboard/fixture.ts",
      `import { Worker } from "../actors/worker.js";\nexport const x = Worker;\n`,
      "dashboard may import only",
    ],
    [
      "src/outcomes/fixture.ts",
      `import { Keys } from "../redis/keys.js";\nexport const x = Keys;\n`,
      "outcomes may import only",
    ],
    [
      "src/outcomes/fixture.ts",
      `import { ChargeStore } from "../stores/charge-store.js";\nexport const x = ChargeStore;\n`,
      "outcomes may import only",
    ],
  ])("refuses %s importing across a wall", async (filePath, code, message) => {
    const found = await problems(filePath, code);
    expect(found).toHaveLength(1);
    expect(found[0]).toContain("import-x/no-restricted-paths");
    expect(found[0]).toContain(message);
  });

  it("refuses an import cycle", async () => {
    // shard.ts imports fnv1a.ts; fnv1a.ts importing shard.ts back closes a cycle.
    const code = `import { shardOf } from "../streams/shard.js";\nexport const x = shardOf;\nexport const FNV_OFFSET = 1;\nexport function fnv1a(h: number): number { return h; }\nexport function fnv1aSeparator(h: number): number { return h; }\n`;
    expect(await problems("src/hashing/fnv1a.ts", code)).toContain("import-x/no-cycle: Dependency cycle detected");
  });

  it("refuses a run-time import from a room its row allows types from only, and takes the type import", async () => {
    const runtime = await problems(
      "src/client/fixture.ts",
      `import { ApiError } from "../errors/api-error.js";\nexport const x = ApiError;\n`,
    );
    expect(runtime).toEqual([expect.stringContaining("client may import only types from errors")]);
    expect(
      await problems(
        "src/client/fixture.ts",
        `import type { ApiError } from "../errors/api-error.js";\nexport type X = ApiError;\n`,
      ),
    ).toEqual([]);
  });

  it("allows the arrows the house keeps", async () => {
    expect(
      await problems(
        "src/condition/fixture.ts",
        `import { parseDuration } from "./duration.js";\nexport const x = parseDuration;\n`,
      ),
    ).toEqual([]);
    expect(
      await problems(
        "src/actors/fixture.ts",
        `import { passTime } from "../outcomes/outcome-step.js";\nexport const x = passTime;\n`,
      ),
    ).toEqual([]);
    expect(
      await problems(
        "src/api/fixture.ts",
        `import { OutcomeStore } from "../stores/outcome-store.js";\nexport const x = OutcomeStore;\n`,
      ),
    ).toEqual([]);
  });

  it("holds a source file to 400 lines and a function to 80, comments and blank lines counted; tests are exempt", async () => {
    const lines = (count: number): string =>
      Array.from({ length: count }, (_, i) => (i % 2 ? "" : `// line ${i}`)).join("\n");
    const fn = (bodyLines: number): string => `export function f(): number {\n${lines(bodyLines)}\n  return 1;\n}\n`;
    expect(await problems("src/condition/fixture.ts", `${lines(400)}\nexport const x = 1;\n`, sizeLint)).toEqual([
      expect.stringContaining("max-lines:"),
    ]);
    expect(await problems("src/condition/fixture.ts", `${lines(399)}\nexport const x = 1;\n`, sizeLint)).toEqual([]);
    expect(await problems("src/condition/fixture.ts", fn(78), sizeLint)).toEqual([
      expect.stringContaining("max-lines-per-function:"),
    ]);
    expect(await problems("src/condition/fixture.ts", fn(77), sizeLint)).toEqual([]);
    expect(await problems("src/condition/fixture.test.ts", `${lines(500)}\n${fn(100)}`, sizeLint)).toEqual([]);
  });
});
