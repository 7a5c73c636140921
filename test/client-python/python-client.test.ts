// The Python client (clients/python) under `npm test`: a fresh virtualenv gets the package and its test
// dependencies from the machine's Python index, then its pytest suite (which starts the built service and
// its own redis-server) and `mypy --strict` run; their output is the failure message when they fail.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGE = join(REPO, "clients", "python");

async function step(command: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  try {
    await run(command, args, {
      cwd: PACKAGE,
      env: { ...process.env, PIP_RETRIES: "0", PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONDONTWRITEBYTECODE: "1", ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 230_000,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    expect.fail(`${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? failed.message}`);
  }
}

describe("the Python client (verdict-client)", () => {
  const dir = mkdtempSync(join(tmpdir(), "verdict-python-"));
  const python = join(dir, "venv", "bin", "python");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("installs with pip, passes its pytest suite against the real service and mypy --strict", async () => {
    await step("python3", ["-m", "venv", join(dir, "venv")]);
    await step(python, ["-m", "pip", "install", "-q", "hatchling", "httpx", "pytest", "pytest-asyncio", "mypy", "opentelemetry-api"]);
    // The build backend is the one just installed: no isolated build environment to fetch it again.
    await step(python, ["-m", "pip", "install", "-q", "--no-build-isolation", PACKAGE]);
    await step(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], { VERDICT_REPO: REPO });
  }, 300_000);
});
