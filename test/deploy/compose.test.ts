// Both compose files without Docker: Debian's docker-compose (v1) validates them and prints the resolved
// configuration, which is checked against docs/operations.md (services, published ports, volumes, the
// Verdict services' environment) and against what Verdict needs of Redis and of the observability stack.
// deploy/redis/cluster-node.conf is loaded by a real redis-server, so its settings are the ones meant.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_OPTIONS } from "../../src/config/options.js";
import { eventually } from "../support/app.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (path: string): string => readFileSync(join(ROOT, path), "utf8");

/** Only what the tests read of `docker-compose config`'s output. */
interface PortMapping {
  host_ip?: string;
  published: number | string;
  target: number;
}
interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
  ports?: (string | PortMapping)[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string } | null>;
  deploy?: { replicas?: number };
  healthcheck?: { test: string[] };
}
interface ComposeConfig {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const SECRET = "compose-test-secret-compose-test-secret";
const FILES = ["docker-compose.yml", "docker-compose.single.yml"] as const;
type ComposeFile = (typeof FILES)[number];

/** Runs Debian's docker-compose v1 with only the variables a user must set (plus PATH and HOME). */
function compose(
  file: string,
  args: string[],
  env: Record<string, string> = { VERDICT_TOKEN_SECRET: SECRET },
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("docker-compose", ["-f", file, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
  });
  if (result.error)
    throw new Error(`docker-compose is needed (Debian: apt-get install docker-compose): ${result.error.message}`);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const resolvedConfigs = new Map<ComposeFile, ComposeConfig>();

/** `docker-compose config` of one file, parsed (once per file: each run takes about a second). */
function resolved(file: ComposeFile): ComposeConfig {
  const known = resolvedConfigs.get(file);
  if (known) return known;
  const { status, stdout, stderr } = compose(file, ["config"]);
  if (status !== 0) throw new Error(`docker-compose -f ${file} config failed: ${stderr}`);
  const config = parse(stdout) as ComposeConfig;
  resolvedConfigs.set(file, config);
  return config;
}

/** "host_ip:published:target" (or "published:target"), whichever form docker-compose printed. */
function portText(port: string | PortMapping): string {
  if (typeof port === "string") return port.replace(/\/tcp$/, "");
  return [port.host_ip, port.published, port.target].filter((part) => part !== undefined).join(":");
}

function namedVolumes(service: Service): string[] {
  return (service.volumes ?? []).map((volume) => volume.split(":")[0]!).filter((source) => !source.startsWith("/"));
}

function bindSources(service: Service): string[] {
  return (service.volumes ?? []).map((volume) => volume.split(":")[0]!).filter((source) => source.startsWith("/"));
}

/** The rows of the markdown table that follows `heading` in `markdown` (header and separator dropped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const unquote = (cell: string): string => cell.replace(/^`|`$/g, "");
const operations = read("docs/operations.md");

/** What the services table of one compose file in docs/operations.md says. */
function documentedServices(file: ComposeFile): Map<string, { ports: string[]; volumes: string[]; replicas?: number }> {
  const rows = tableAfter(
    operations,
    `### \`${file}\`: ${file === "docker-compose.yml" ? "Redis Cluster, the default" : "one Redis"}`,
  );
  return new Map(
    rows.map(([service, runs, ports, volumes]) => {
      const replicas = /, (\d+) replicas$/.exec(runs!)?.[1];
      return [
        unquote(service!),
        {
          ports: ports === "" ? [] : ports!.split(",").map((p) => unquote(p.trim())),
          volumes: volumes === "" ? [] : volumes!.split(",").map((v) => unquote(v.trim())),
          ...(replicas === undefined ? {} : { replicas: Number(replicas) }),
        },
      ];
    }),
  );
}

/** The environment docs/operations.md gives the Verdict services of one compose file, as compose resolves it. */
function documentedEnvironment(file: ComposeFile): Record<string, string> {
  const column = FILES.indexOf(file) + 1;
  const env: Record<string, string> = {};
  for (const row of tableAfter(operations, "### Environment of the Verdict services")) {
    const cell = row[column]!;
    if (cell === "") continue;
    const value = unquote(cell.replace(/ \(required\)$/, ""));
    // A `${NAME:-default}` resolves to its default in the test's environment; the one required variable to SECRET.
    const reference = /^\$\{(\w+)(?::-(.*))?\}$/.exec(value);
    env[unquote(row[0]!)] = reference
      ? (reference[2] ?? (reference[1] === "VERDICT_TOKEN_SECRET" ? SECRET : ""))
      : value;
  }
  return env;
}

describe.each(FILES)("%s", (file) => {
  it("is valid for docker-compose config -q, and refuses to run without VERDICT_TOKEN_SECRET", () => {
    const valid = compose(file, ["config", "-q"]);
    expect(valid.stderr).toBe("");
    expect(valid.status).toBe(0);
    const missing = compose(file, ["config", "-q"], {});
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("openssl rand -base64 32");
  });

  it("runs the services docs/operations.md lists, with their published ports, volumes and replicas", () => {
    const config = resolved(file);
    const documented = documentedServices(file);
    expect(Object.keys(config.services).sort()).toEqual([...documented.keys()].sort());
    for (const [name, doc] of documented) {
      const service = config.services[name]!;
      expect((service.ports ?? []).map(portText), name).toEqual(doc.ports);
      expect(namedVolumes(service), name).toEqual(doc.volumes);
      expect(service.deploy?.replicas, name).toBe(doc.replicas);
      for (const source of bindSources(service)) expect(existsSync(source), `${name}: ${source}`).toBe(true);
    }
    const declared = Object.keys(config.volumes ?? {}).sort();
    expect(declared).toEqual([...documented.values()].flatMap((doc) => doc.volumes).sort());
  });

  it("gives the ingress and the workers the environment docs/operations.md lists, on the default ports", () => {
    const config = resolved(file);
    const expected = documentedEnvironment(file);
    for (const role of ["ingress", "worker"]) {
      const service = config.services[role]!;
      expect(service.image, role).toBe("verdict:local");
      expect(service.command, role).toEqual(["serve", "--role", role]);
      expect(service.environment, role).toEqual(expected);
    }
    expect(config.services.ingress!.ports!.map(portText)).toEqual([`${DEFAULT_OPTIONS.port}:${DEFAULT_OPTIONS.port}`]);
    // Prometheus finds every ingress and worker by service name on the default metrics port.
    const prometheus = read("deploy/prometheus/prometheus.yml");
    for (const role of ["ingress", "worker"]) {
      expect(new RegExp(`- names: \\[${role}\\]\\n\\s+type: A\\n\\s+port: (\\d+)`).exec(prometheus)?.[1], role).toBe(
        String(DEFAULT_OPTIONS.metricsPort),
      );
    }
  });

  it("sends traces to Jaeger over OTLP/HTTP and provisions Prometheus's rules and Grafana's dashboards", () => {
    const config = resolved(file);
    const endpoint = new URL(config.services.ingress!.environment!.OTEL_EXPORTER_OTLP_ENDPOINT!);
    expect(endpoint.hostname).toBe("jaeger");
    expect(endpoint.port).toBe("4318");
    expect(config.services.jaeger!.environment!.COLLECTOR_OTLP_ENABLED).toBe("true");
    const mounts = (name: string): string[] => (config.services[name]!.volumes ?? []).map((v) => v.replace(ROOT, "./"));
    expect(mounts("prometheus")).toContain("./deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro");
    expect(mounts("prometheus")).toContain("./deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro");
    const provider = read("deploy/grafana/provisioning/dashboards/verdict.yml");
    const dashboardsPath = /^\s+path:\s*(\S+)\s*$/m.exec(provider)?.[1];
    expect(mounts("grafana")).toContain(`./deploy/grafana/dashboards:${dashboardsPath}:ro`);
    expect(mounts("grafana")).toContain("./deploy/grafana/provisioning:/etc/grafana/provisioning:ro");
  });

  it("takes VERDICT_TOKEN_SECRET from the environment only, in one place", () => {
    const text = read(file);
    expect(text.match(/VERDICT_TOKEN_SECRET: "\$\{VERDICT_TOKEN_SECRET:\?[^}]+\}"$/gm)).toHaveLength(1);
    expect(text.match(/^\s+VERDICT_TOKEN_SECRET:/gm)).toHaveLength(1);
    expect(text).not.toMatch(/VERDICT_(METRICS_)?PORT/);
  });
});

describe("docker-compose.yml's Redis Cluster", () => {
  const config = (): ComposeConfig => resolved("docker-compose.yml");
  const redisNodes = (): [string, Service][] =>
    Object.entries(config().services).filter(([name]) => /^redis-\d+$/.test(name));

  it("has six nodes, each announcing the fixed address it has on the network, with its own volume", () => {
    const nodes = redisNodes();
    expect(nodes).toHaveLength(6);
    const addresses = nodes.map(([name, node]) => {
      const address = node.networks?.verdict?.ipv4_address;
      const command = node.command ?? [];
      expect(command.slice(0, 2), name).toEqual(["redis-server", "/usr/local/etc/redis/redis.conf"]);
      expect(command[command.indexOf("--cluster-announce-ip") + 1], name).toBe(address);
      expect(
        node.volumes?.map((v) => v.replace(ROOT, "./")),
        name,
      ).toEqual(["./deploy/redis/cluster-node.conf:/usr/local/etc/redis/redis.conf:ro", `${name}-data:/data:rw`]);
      return address!;
    });
    expect(new Set(addresses).size).toBe(6);
  });

  it("is formed by a one-shot with 1 replica per master, and Verdict starts after it succeeded", () => {
    const { services } = config();
    const init = services["redis-cluster-init"]!;
    const script = (init.command ?? []).join(" ");
    expect(script).toContain("--cluster-replicas 1 --cluster-yes");
    for (const [name, node] of redisNodes()) {
      expect(script, name).toContain(`${node.networks!.verdict!.ipv4_address}:6379`);
      expect(init.depends_on?.[name]?.condition, name).toBe("service_healthy");
    }
    for (const role of ["ingress", "worker"]) {
      expect(services[role]!.depends_on, role).toEqual({
        "redis-cluster-init": { condition: "service_completed_successfully" },
      });
    }
    const seeds = services.ingress!.environment!.REDIS_CLUSTER_NODES!.split(",").map((seed) => seed.split(":")[0]!);
    for (const seed of seeds) expect(services[seed], seed).toBeDefined();
  });

  it("runs each node with a config redis-server loads: cluster on, append-only, noeviction", async () => {
    const dir = mkdtempSync(join(tmpdir(), "verdict-compose-node-"));
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    // Only what cannot hold outside a container is overridden: the port, the bind address, the data dir.
    const server = spawn(
      "redis-server",
      [
        join(ROOT, "deploy/redis/cluster-node.conf"),
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--maxmemory",
        "1gb",
      ],
      { stdio: "ignore" },
    );
    const redis = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 100,
    });
    // Refused connections while the server starts are expected; eventually() below retries the ping.
    redis.on("error", () => undefined);
    try {
      await eventually(
        async () => ((await redis.ping().catch(() => undefined)) === "PONG" ? true : undefined),
        10_000,
        "redis-server with cluster-node.conf",
      );
      const get = async (name: string): Promise<string> => (await redis.config("GET", name))[1]!;
      expect(await get("cluster-enabled")).toBe("yes");
      expect(await get("appendonly")).toBe("yes");
      expect(await get("appendfsync")).toBe("everysec");
      expect(await get("maxmemory-policy")).toBe("noeviction");
      expect(await get("maxmemory")).toBe(String(1024 ** 3));
      expect(await get("stream-node-max-bytes")).toBe("1024");
    } finally {
      redis.disconnect();
      server.kill();
      await new Promise((resolve) => server.once("exit", resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("docker-compose.single.yml's Redis", () => {
  it("runs append-only with noeviction and a memory limit", () => {
    const redis = resolved("docker-compose.single.yml").services.redis!;
    const command = redis.command ?? [];
    const flag = (name: string): string | undefined => command[command.indexOf(name) + 1];
    expect(flag("--appendonly")).toBe("yes");
    expect(flag("--maxmemory-policy")).toBe("noeviction");
    expect(flag("--maxmemory")).toBe("1gb");
    expect(flag("--stream-node-max-bytes")).toBe("1024");
    expect(resolved("docker-compose.single.yml").services.ingress!.environment!.REDIS_URL).toBe("redis://redis:6379");
  });
});
