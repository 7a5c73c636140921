// The Python client (clients/python) under `npm test`: a fresh virtualenv gets the package and its test
// dependencies from the machine's Python index, then its pytest suite (which starts the built service and
// its own redis-server) and `mypy --strict` run; their output is the failure message when they fail.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, it } from "vitest";
import { createVenv, step, type Venv } from "../support/python-venv.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGE = join(REPO, "clients", "python");

describe("the Python client (verdict-client)", () => {
  let venv: Venv | undefined;
  afterAll(() => venv?.remove());

  it("installs with pip, passes its pytest suite against the real service and mypy --strict", async () => {
    venv = await createVenv("python");
    await venv.install(["hatchling", "httpx", "pytest", "pytest-asyncio", "mypy", "opentelemetry-api"]);
    // The build backend is the one just installed: no isolated build environment to fetch it again.
    await venv.install([PACKAGE], ["--no-build-isolation"]);
    await step(venv.python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], {
      cwd: PACKAGE,
      env: { VERDICT_REPO: REPO },
    });
  }, 300_000);
});
