// The docs stand alone and stay true to the code: every relative link of README.md and docs/*.md reaches a
// file of the repository (and a heading of it, for an anchor), nothing points outside the repository, and
// every VERDICT_* variable the code reads is documented.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

/** The text outside fenced code blocks. */
const prose = (markdown: string): string => markdown.replace(/^```[\s\S]*?^```/gm, "");

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(markdown: string): Set<string> {
  return new Set([...prose(markdown).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => slug(heading!)));
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe("docs", () => {
  it("link only to files and headings of the repository", () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const [, target] of prose(read(doc)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // http(s), mailto
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const file = path === "" ? join(ROOT, doc) : resolve(ROOT, dirname(doc), path);
        if (relative(ROOT, file).startsWith("..") || !existsSync(file)) {
          broken.push(`${doc}: ${target}`);
          continue;
        }
        if (anchor !== undefined && !anchors(readFileSync(file, "utf8")).has(anchor))
          broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("name no path outside the repository", () => {
    for (const doc of DOCS) {
      const text = read(doc);
      expect(text, doc).not.toMatch(/\.\.\/shared|\/work\/|interface-spec\.md|decisions\.md/);
    }
  });

  it("name every VERDICT_* variable the code reads", () => {
    const used = new Set(
      filesUnder("src")
        .filter((f) => f.endsWith(".ts"))
        .flatMap((f) => read(f).match(/\bVERDICT_[A-Z0-9_]*[A-Z0-9]\b/g) ?? []),
    );
    expect(used.size).toBeGreaterThan(15);
    const documented = DOCS.map(read).join("\n");
    expect([...used].filter((name) => !documented.includes(`\`${name}\``)).sort()).toEqual([]);
  });
});
