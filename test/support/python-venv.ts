// A throwaway Python virtualenv for suites that run Python: made with `python3 -m venv`, packages from the
// machine's Python index with pip (never the system Python); a failed step's output is the test's failure.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";

const run = promisify(execFile);

export interface StepOptions {
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs a command; on failure the test fails with its stdout and stderr. Returns its stdout. */
export async function step(command: string, args: string[], options: StepOptions = {}): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd: options.cwd,
      // No retries: the index is local or absent, and pip's default retries only add minutes to a failure.
      env: {
        ...process.env,
        PIP_RETRIES: "0",
        PIP_DISABLE_PIP_VERSION_CHECK: "1",
        PYTHONDONTWRITEBYTECODE: "1",
        ...options.env,
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: options.timeoutMs ?? 230_000,
    });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return expect.fail(
      `${command} ${args.join(" ")} failed:\n${failed.stdout ?? ""}\n${failed.stderr ?? failed.message}`,
    );
  }
}

export interface Venv {
  /** The virtualenv's python executable. */
  python: string;
  /** A scratch directory beside the virtualenv, removed with it. */
  dir: string;
  /** `pip install -q` of some requirements into the virtualenv. */
  install(requirements: string[], extraArgs?: string[]): Promise<void>;
  remove(): void;
}

/** A fresh virtualenv in a temporary directory. */
export async function createVenv(label: string): Promise<Venv> {
  const dir = mkdtempSync(join(tmpdir(), `verdict-${label}-`));
  const python = join(dir, "venv", "bin", "python");
  await step("python3", ["-m", "venv", join(dir, "venv")]);
  return {
    python,
    dir,
    install: async (requirements, extraArgs = []) => {
      await step(python, ["-m", "pip", "install", "-q", ...extraArgs, ...requirements]);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
