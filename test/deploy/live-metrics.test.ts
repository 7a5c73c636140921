// A rename cannot silently empty a panel or mute an alert: a live service (role all, in process, with an
// archive), after traffic that makes every kind of event happen (accepted events, verdicts, dead letters,
// scores, webhook deliveries to a receiver in the test), serves on /metrics every metric name that any
// dashboard query under deploy/grafana/dashboards/ or any rule of deploy/prometheus/alerts.yml reads.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { metricNames } from "../support/promql.js";
import { eventually, startTestApp, type TestApp } from "../support/app.js";
import { createTestDatabase, type TestDatabase } from "../support/postgres.js";
import { Receiver } from "../webhooks/receiver.js";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

interface Panel {
  type: string;
  title: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}
const allPanels = (panels: readonly Panel[]): Panel[] => panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);

/** Every query of every dashboard, with where it comes from. */
function dashboardQueries(): { where: string; expr: string }[] {
  const files = readdirSync(new URL("deploy/grafana/dashboards/", ROOT)).filter((name) => name.endsWith(".json"));
  expect(files.length).toBeGreaterThan(0);
  return files.flatMap((file) => {
    const dashboard = JSON.parse(read(`deploy/grafana/dashboards/${file}`)) as { panels: Panel[] };
    return allPanels(dashboard.panels).flatMap((panel) =>
      (panel.targets ?? []).map((t) => ({ where: `${file}: ${panel.title}`, expr: t.expr ?? "" })),
    );
  });
}

/** Every alert rule's expression. */
function alertQueries(): { where: string; expr: string }[] {
  const rules = parse(read("deploy/prometheus/alerts.yml")) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `alerts.yml: ${rule.alert}`, expr: rule.expr })),
  );
}

/** Series Prometheus itself makes for each target (not served by Verdict). */
const PROMETHEUS_SERIES = new Set(["up", "scrape_duration_seconds", "scrape_samples_scraped"]);

async function servedNames(metricsPort: number): Promise<Set<string>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return new Set(text.split("\n").flatMap((line) => /^([A-Za-z_:][\w:]*)[{ ]/.exec(line)?.[1] ?? []));
}

describe("metrics read by the dashboards and alert rules", () => {
  let t: TestApp;
  let receiver: Receiver;
  // With an archive, so the archive's metrics are served too.
  let db: TestDatabase;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    db = await createTestDatabase();
    t = await startTestApp("standalone", {
      shards: 4,
      scoreRefreshMs: 100,
      webhookAllowPrivateUrls: true,
      archiveUrl: db.url,
    });
    expect((await t.request("PUT", "/v1/tasks/t", { name: "t", condition: "done" })).status).toBe(201);
    expect((await t.request("POST", "/v1/webhook-endpoints", { url: receiver.url() })).status).toBe(201);
  }, 30_000);
  afterAll(async () => {
    await t.stop();
    await receiver.stop();
    await db.drop();
  });

  it("are all served by a live service after traffic", async () => {
    const queries = [...dashboardQueries(), ...alertQueries()];
    expect(queries.length).toBeGreaterThan(30);
    const wanted = new Map<string, string>();
    for (const { where, expr } of queries) {
      expect(expr.trim(), where).not.toBe("");
      for (const name of metricNames(expr)) if (!PROMETHEUS_SERIES.has(name)) wanted.set(name, where);
    }

    // Enough outcomes in one cohort to pass the scores' warm-up, each confirmed; then dead letters.
    const outcomes = Array.from({ length: 25 }, (_, i) => `o${i}`);
    for (const key of outcomes)
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
    const events = outcomes.flatMap((key) => [
      { outcome_key: key, action: "work" },
      { outcome_key: key, action: "done" },
    ]);
    expect((await t.request("POST", "/v1/events/batch", { events })).status).toBe(202);
    expect((await t.request("POST", "/v1/events", { outcome_key: "nobody-opened-this", action: "done" })).status).toBe(
      202,
    );
    await eventually(
      async () => {
        const body = (await t.request("GET", "/v1/outcomes/o24")).body as { status?: string };
        return body.status === "CONFIRMED" ? true : undefined;
      },
      20_000,
      "the last outcome confirmed",
    );
    // A second round in the trained cohort is scored.
    for (const key of ["late-1", "late-2"]) {
      expect((await t.request("POST", "/v1/outcomes", { key, task_key: "t" })).status).toBe(201);
      expect((await t.request("POST", "/v1/events", { outcome_key: key, action: "work" })).status).toBe(202);
    }

    // Sampled gauges and the scores appear within their intervals; wait for every name, then say which lack.
    let missing: string[] = [];
    await eventually(
      async () => {
        const served = await servedNames(t.app.metricsPort);
        missing = [...wanted.keys()].filter((name) => !served.has(name));
        return missing.length === 0 ? true : undefined;
      },
      30_000,
      "every queried metric",
    ).catch(() => undefined);
    expect(missing.map((name) => `${name} (${wanted.get(name)})`)).toEqual([]);
  }, 90_000);
});
