// verdict/client ships as a subpath export with its declarations, and loads nothing of the server at run time.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const clientDir = new URL("src/client/", root);

describe("verdict/client package surface", () => {
  it("is exported as ./client with import and types from the build output", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as {
      exports: Record<string, { import: string; types: string }>;
    };
    expect(pkg.exports["./client"]).toEqual({
      types: "./dist/src/client/index.d.ts",
      import: "./dist/src/client/index.js",
    });
    const build = JSON.parse(readFileSync(new URL("tsconfig.build.json", root), "utf8")) as {
      compilerOptions: { declaration?: boolean };
    };
    expect(build.compilerOptions.declaration).toBe(true);
  });

  it("imports only its own files, Node's and the header leaf at run time (server types are import type; OpenTelemetry is a dynamic import)", () => {
    const files = readdirSync(clientDir).filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
    for (const name of files) {
      const source = readFileSync(new URL(name, clientDir), "utf8");
      for (const match of source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gms)) {
        const [, , typeOnly, from] = match;
        if (typeOnly === undefined)
          expect(from, `${name} imports ${from} at run time`).toMatch(
            /^(\.\/[a-z0-9-]+\.js|\.\.\/http-headers\/[a-z0-9-]+\.js|node:[a-z]+)$/,
          );
      }
      for (const match of source.matchAll(/import\("([^"]+)"\)/g)) expect(match[1], name).toBe("@opentelemetry/api");
    }
    // The leaf the client shares with the server imports nothing, so it brings nothing of the server along.
    const leaf = new URL("src/http-headers/", root);
    for (const name of readdirSync(leaf).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))) {
      expect(readFileSync(new URL(name, leaf), "utf8"), name).not.toMatch(/^(import|export)\s[^;]*?from\s/m);
    }
  });
});
