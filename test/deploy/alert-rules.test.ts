// The alert rules with the real promtool: they parse, the Prometheus config that loads them is valid, and
// each alert's unit test (deploy/prometheus/alerts.test.yml) fires it on its series and not otherwise.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIR = fileURLToPath(new URL("../../deploy/prometheus/", import.meta.url));

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync("promtool", args, { cwd: DIR, encoding: "utf8" });
  if (result.error) throw new Error(`promtool is needed (Debian: apt-get install prometheus): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe("alert rules", () => {
  it("parse, with every rule found", () => {
    const { status, output } = promtool("check", "rules", "alerts.yml");
    expect(output).toContain("SUCCESS: 8 rules found");
    expect(status).toBe(0);
  });

  it("are loaded by a valid Prometheus config", () => {
    const { status, output } = promtool("check", "config", "prometheus.yml");
    expect(output).toContain("SUCCESS");
    expect(status).toBe(0);
  });

  it("fire on the series each watches, and only then", () => {
    const { status, output } = promtool("test", "rules", "alerts.test.yml");
    expect(output).toContain("SUCCESS");
    expect(status).toBe(0);
  });
});
