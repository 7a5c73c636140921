// Lint: typescript-eslint's type-aware rules; promises must be awaited or handled; the house's rooms
// (docs/architecture.md) enforced as import rules, so a forbidden arrow fails `npm run lint`.
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import tseslint from "typescript-eslint";

/** Which folder of src/ may not import which: every rule docs/architecture.md states, one zone each. */
const houseZones = [
  { target: "./src/condition", from: "./src", except: ["./condition"], message: "the condition language is pure: it imports nothing outside src/condition" },
  { target: "./src/scores", from: "./src", except: ["./scores"], message: "the score models are pure: they import nothing outside src/scores" },
  { target: "./src/ingress", from: ["./src/actors", "./src/outcomes", "./src/stores", "./src/api"], message: "the ingress only validates and enqueues: no actors, outcomes, stores or api" },
  { target: "./src/actors", from: ["./src/ingress", "./src/api", "./src/stores", "./src/webhooks"], message: "actors consume the streams: no ingress, api, read stores or webhook dispatch (they only write the outbox)" },
  { target: "./src/webhooks", from: ["./src/actors", "./src/ingress", "./src/dashboard"], message: "webhook dispatch reads the outbox and records: never the actors, ingress or dashboard" },
  { target: "./src/dashboard", from: ["./src/actors"], message: "the dashboard reads through the api, stores and records: never the actors" },
  { target: "./src/outcomes", from: ["./src/stores", "./src/redis", "./src/actors", "./src/api", "./src/ingress"], message: "the outcome domain is pure: no Redis, stores or callers" },
];

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
  {
    // The dashboard's browser script: plain JavaScript served as is, not part of the TypeScript program.
    files: ["src/dashboard/static/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { document: "readonly", window: "readonly", navigator: "readonly", fetch: "readonly", EventSource: "readonly", Element: "readonly", setTimeout: "readonly", clearTimeout: "readonly" } },
  },
  {
    files: ["src/cli/**", "bench/**", "test/**"],
    rules: { "no-console": "off" },
  },
);
