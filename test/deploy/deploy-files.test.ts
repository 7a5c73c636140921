// Keeps deploy/ honest without Docker: the dashboard queries only metrics the service registers and
// docs/metrics.md lists, the image
// runs the package's `bin`, and the ports agree with the defaults in code (compose files: compose.test.ts).
import { readFileSync } from "node:fs";
import { Counter, Gauge, Histogram, Registry, Summary, collectDefaultMetrics } from "prom-client";
import { describe, expect, it } from "vitest";
import { createActorMetrics } from "../../src/actors/actor-metrics.js";
import { createArchiveMetrics } from "../../src/archive-move/archive-metrics.js";
import { DEFAULT_OPTIONS } from "../../src/config/options.js";
import { createMetrics } from "../../src/telemetry/metrics.js";
import { createWebhookMetrics } from "../../src/webhooks/webhook-metrics.js";
import { metricNames } from "../support/promql.js";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, ROOT), "utf8");

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: { type: string; name: string; query?: string }[] };
}

/** Every metric name the running service exposes, with its type, built the way src/app.ts builds it. */
function serviceMetricTypes(): Map<string, string> {
  const metrics = createMetrics();
  // The worker role adds its metrics to the app's registry (src/actors/worker.ts), its webhook
  // dispatcher's and, with an archive, the archivers' (src/app.ts).
  createActorMetrics(metrics.registry);
  createWebhookMetrics(metrics.registry);
  createArchiveMetrics(metrics.registry);
  const types = new Map<string, string>();
  for (const { name } of metrics.registry.getMetricsAsArray()) {
    // By class: prom-client's typings declare `type` a numeric enum, but it is a string at run time.
    const metric = metrics.registry.getSingleMetric(name);
    const type =
      metric instanceof Counter
        ? "counter"
        : metric instanceof Gauge
          ? "gauge"
          : metric instanceof Histogram
            ? "histogram"
            : metric instanceof Summary
              ? "summary"
              : "unknown";
    types.set(name, type);
  }
  return types;
}

/** Names of prom-client's default metrics under the service's prefix (to tell them from its own). */
function defaultMetricNames(): Set<string> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "verdict_" });
  return new Set(registry.getMetricsAsArray().map((m) => m.name));
}

/** A series name the registry produces: a counter or gauge itself, or a histogram's _bucket/_sum/_count. */
function isRegisteredSeries(name: string, types: Map<string, string>): boolean {
  const type = types.get(name);
  if (type === "counter" || type === "gauge") return true;
  const suffixed = /^(.+)_(bucket|sum|count)$/.exec(name);
  if (!suffixed) return false;
  const baseType = types.get(suffixed[1]!);
  return baseType === "histogram" || (baseType === "summary" && suffixed[2] !== "bucket");
}

function allPanels(panels: readonly Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

const dashboard = JSON.parse(read("deploy/grafana/dashboards/verdict.json")) as Dashboard;
const queryPanels = allPanels(dashboard.panels).filter((p) => p.type !== "row");
const expressions = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));

describe("Grafana dashboard", () => {
  it("reads metric names out of PromQL", () => {
    expect(
      metricNames('histogram_quantile(0.99, sum by (le) (rate(a_seconds_bucket{x="y"}[1m]))) / b_total offset 5m'),
    ).toEqual(["a_seconds_bucket", "b_total"]);
    expect(metricNames("sum(rate(c_p99_seconds[$__rate_interval])) by (instance) and on(job) 1e3 * d")).toEqual([
      "c_p99_seconds",
      "d",
    ]);
  });

  it("queries only metrics the service registers", () => {
    const types = serviceMetricTypes();
    const used = new Set(expressions.flatMap(metricNames));
    expect(expressions.length).toBeGreaterThan(20);
    expect(expressions.every((expr) => expr.trim() !== "")).toBe(true);
    expect([...used].filter((name) => !isRegisteredSeries(name, types))).toEqual([]);
  });

  it("shows every metric the service defines itself (beyond prom-client's defaults)", () => {
    const defaults = defaultMetricNames();
    const own = [...serviceMetricTypes().keys()].filter((name) => !defaults.has(name));
    const used = new Set(expressions.flatMap(metricNames).map((name) => name.replace(/_(bucket|sum|count)$/, "")));
    expect(own.length).toBeGreaterThan(10);
    expect(own.filter((name) => !used.has(name))).toEqual([]);
  });

  it("queries only metrics the catalogue in docs/metrics.md describes", () => {
    const catalogue = read("docs/metrics.md");
    const listed = new Set([...catalogue.matchAll(/^\| `(verdict_\w+)` \|/gm)].map(([, name]) => name));
    // prom-client's defaults are catalogued as one row of wildcards.
    const wildcards = [...catalogue.matchAll(/`(verdict_\w+)_\*`/g)].map(([, stem]) => `${stem}_`);
    expect(listed.size).toBeGreaterThan(20);
    expect(wildcards).toEqual(["verdict_process_", "verdict_nodejs_"]);
    const used = new Set(
      expressions
        .flatMap(metricNames)
        .map((name) => (listed.has(name) ? name : name.replace(/_(bucket|sum|count)$/, ""))),
    );
    expect([...used].filter((name) => !listed.has(name) && !wildcards.some((stem) => name.startsWith(stem)))).toEqual(
      [],
    );
  });

  it("takes quantiles of histograms per `le` from their buckets", () => {
    const types = serviceMetricTypes();
    const quantiles = expressions.filter((expr) => expr.includes("histogram_quantile"));
    expect(quantiles.length).toBeGreaterThan(0);
    for (const expr of quantiles) {
      const match = /^histogram_quantile\(0\.\d+, sum by \(le(?:, \w+)*\) \(rate\((\w+)_bucket\[1m\]\)\)\)$/.exec(expr);
      expect(match, expr).not.toBeNull();
      expect(types.get(match![1]!), expr).toBe("histogram");
    }
  });

  it("imports anywhere: every query uses the dashboard's data-source variable, never a fixed uid", () => {
    const variables = dashboard.templating.list;
    const datasource = variables.find((v) => v.type === "datasource");
    expect(datasource).toMatchObject({ name: "datasource", query: "prometheus" });
    const reference = `\${${datasource!.name}}`;
    for (const panel of queryPanels) {
      expect(panel.datasource, panel.title).toEqual({ type: "prometheus", uid: reference });
      for (const target of panel.targets ?? [])
        expect(target.datasource, panel.title).toEqual({ type: "prometheus", uid: reference });
    }
    // Any other uid in the file would be a data source that exists only on one Grafana.
    const uids = [...JSON.stringify(dashboard.panels).matchAll(/"uid":"([^"]*)"/g)].map(([, uid]) => uid);
    expect(new Set(uids)).toEqual(new Set([reference]));
    // Grafana of docker-compose provisions a Prometheus data source for the variable to pick.
    const datasources = read("deploy/grafana/provisioning/datasources/prometheus.yml");
    expect(datasources).toMatch(/^\s+type:\s*prometheus\s*$/m);
    expect(datasources).toMatch(/^\s+url:\s*http:\/\/prometheus:9090\s*$/m);
  });
});

describe("deploy/Dockerfile", () => {
  const dockerfile = read("deploy/Dockerfile");
  const pkg = JSON.parse(read("package.json")) as { bin: Record<string, string>; scripts: Record<string, string> };

  it("runs the package's bin with npm start's Node flags, from files the runtime stage copies out of the build", () => {
    const entrypoint = JSON.parse(/^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1] ?? "null") as string[] | null;
    const bin = pkg.bin.verdict!;
    const startFlags = /\bnode ((?:--\S+ )*)\S+ serve$/.exec(pkg.scripts.start!)?.[1]?.trim().split(" ") ?? [];
    expect(startFlags).toContain("--max-semi-space-size=64");
    expect(entrypoint).toEqual(["node", ...startFlags, bin]);
    expect(/^CMD\s+(\[.*\])\s*$/m.exec(dockerfile)?.[1]).toBe('["serve"]');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    const copied = [...runtime.matchAll(/^COPY --from=build \/app\/(\S+) \.\/(\S+)$/gm)].map(([, from, to]) => ({
      from: from!,
      to: to!,
    }));
    expect(copied.some(({ from, to }) => from === to && bin.startsWith(`${to}/`))).toBe(true);
    // dist/ is ESM: the runtime needs package.json's "type": "module".
    expect(runtime).toMatch(/^COPY package\.json \.\/$/m);
    expect(runtime).toMatch(/^USER node$/m);
  });

  it("builds on Debian with the Node major of .nvmrc, and installs with npm install", () => {
    const major = read(".nvmrc").trim();
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(base).toMatch(new RegExp(`^node:${major}-(bookworm|bullseye)(-slim)?$`));
    expect(dockerfile).not.toMatch(/^RUN .*\bnpm ci\b/m);
    expect(dockerfile).toMatch(/^RUN npm run build$/m);
    expect(dockerfile).toMatch(/^RUN npm install --omit=dev\b/m);
  });

  it("exposes the default ports and checks /healthz on the metrics port", () => {
    const exposed = /^EXPOSE\s+(.+)$/m.exec(dockerfile)?.[1]?.split(/\s+/).map(Number);
    expect(exposed).toEqual([DEFAULT_OPTIONS.port, DEFAULT_OPTIONS.metricsPort]);
    const healthcheck = dockerfile.slice(dockerfile.indexOf("HEALTHCHECK"));
    expect(healthcheck).toContain(`process.env.VERDICT_METRICS_PORT || ${DEFAULT_OPTIONS.metricsPort}`);
    expect(healthcheck).toContain("/healthz");
  });
});
