"""`mypy --strict` passes on the package and on typed usage, and catches each mistake of the bad usage file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("mypy-cache"))


def mypy(cache: str, *paths: str) -> subprocess.CompletedProcess[str]:
    # One cache for the run's three checks: the standard library's stubs are read once.
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", cache, *paths]
    return subprocess.run(command, capture_output=True, text=True, cwd=HERE, timeout=300)


def test_the_package_and_the_typed_usage_pass_mypy_strict(cache: str) -> None:
    # `-p` checks the installed package, as its users' mypy finds it (through py.typed).
    for args in (["-p", "verdict_client"], [str(HERE / "typed_usage" / "usage_ok.py")]):
        result = mypy(cache, *args)
        assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_catches_every_mistake_of_the_bad_usage(cache: str) -> None:
    result = mypy(cache, str(HERE / "typed_usage" / "usage_bad.py"))
    assert result.returncode == 1, result.stdout + result.stderr
    flagged = {int(line.split(":")[1]) for line in result.stdout.splitlines() if ": error:" in line}
    source = (HERE / "typed_usage" / "usage_bad.py").read_text().splitlines()
    mistakes = {n for n, line in enumerate(source, 1) if line.startswith("    verdict.") or line.startswith("    status:")}
    assert mistakes <= flagged, result.stdout
