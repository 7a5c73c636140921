// Lint: typescript-eslint's type-aware rules; promises must be awaited or handled; the house's rooms
// (docs/architecture.md) enforced as import rules, so a forbidden arrow fails `npm run lint`.
import { readFileSync } from "node:fs";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import tseslint from "typescript-eslint";

/**
 * The rooms of src/, read from the table of docs/architecture.md (the one place they are written down):
 * each room's floor, the rooms it may import, and those it may import types from only.
 */
export function readRooms(markdown) {
  const section = markdown.split(/^## Rooms, floors and walls$/m)[1]?.split(/^## /m)[0] ?? "";
  const names = (cell) => [...cell.matchAll(/`([^`]+)`/g)].map(([, name]) => name);
  return section
    .split("\n")
    .filter((line) => /^\| `/.test(line))
    .map((line) => {
      const [room, floor, , mayImport, typesOnly] = line.split("|").slice(1, -1);
      return { room: names(room)[0], floor: Number(floor), mayImport: names(mayImport), typesOnly: names(typesOnly) };
    });
}

export const rooms = readRooms(readFileSync(new URL("docs/architecture.md", import.meta.url), "utf8"));

/** Walls as allow-lists: a room imports itself and what its row names, nothing else of src/. */
const houseZones = rooms.map(({ room, mayImport, typesOnly }) => ({
  target: `./src/${room}`,
  from: "./src",
  except: [room, ...mayImport, ...typesOnly].map((allowed) => `./${allowed}`),
  message: `${room} may import only ${[...mayImport, ...typesOnly.map((name) => `types of ${name}`)].join(", ") || "itself"} (docs/architecture.md)`,
}));

/** The rooms a row allows types from only: a run-time import of one is an error, a type import is not. */
export const typeOnlyRules = rooms
  .filter(({ typesOnly }) => typesOnly.length > 0)
  .map(({ room, typesOnly }) => ({
    files: [room.endsWith(".ts") ? `src/${room}` : `src/${room}/**/*.ts`],
    // A room's own tests may build the values its code only names (an envelope for the fold's tests).
    ignores: ["**/*.test.ts"],
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: typesOnly.map((name) => ({
            regex: `^(\\.\\./)+${name.replace(".", "\\.")}/`,
            allowTypeImports: true,
            message: `${room} may import only types from ${name} (docs/architecture.md)`,
          })),
        },
      ],
    },
  }));

/** The house rules on their own (named, so the lint test can run exactly these against fixtures). */
export const houseRules = {
  name: "verdict/house",
  files: ["src/**/*.ts"],
  plugins: { "import-x": importX },
  settings: {
    "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    // Dependencies are parsed as TypeScript too, or no-cycle cannot follow their imports.
    "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
    "import-x/extensions": [".ts", ".js"],
  },
  rules: {
    "import-x/no-cycle": "error",
    "import-x/no-restricted-paths": ["error", { zones: houseZones }],
  },
};

/** The bar of a source file (docs/architecture.md): 400 lines a file, 80 a function, blank lines and comments counted. */
export const sizeRules = {
  name: "verdict/size",
  files: ["src/**/*.ts"],
  ignores: ["**/*.test.ts"],
  rules: {
    "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }],
    "max-lines-per-function": ["error", { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
  },
};

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", ".verdict/**", "bench/k6/**", "eslint.config.js"] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "no-console": "error",
    },
  },
  houseRules,
  ...typeOnlyRules,
  sizeRules,
  {
    // The dashboard's browser script: plain JavaScript served as is, not part of the TypeScript program.
    files: ["src/dashboard/static/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: {
        document: "readonly",
        window: "readonly",
        navigator: "readonly",
        fetch: "readonly",
        EventSource: "readonly",
        Element: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
  },
  {
    files: ["src/cli/**", "bench/**", "test/**"],
    rules: { "no-console": "off" },
  },
);
