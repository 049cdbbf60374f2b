"""The image ships games/, shared/, services/, ops/, reelstream/ and deploy/ (deploy/docker/Dockerfile), not bench/ or
mathtools/: the CLI must load without them, and what an operator or a lab runs on an installed image must work."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_BLOCKED = """
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {missing!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Absent())
from typer.testing import CliRunner
import reelstream.cli
result = CliRunner().invoke(reelstream.cli.app, {args!r})
print(result.output)
sys.exit(result.exit_code)
"""


def copied() -> set[str]:
    return set(re.findall(r"^COPY (\w+) \./", (ROOT / "deploy/docker/Dockerfile").read_text(), re.M))


def run_without(missing: set[str], *args: str) -> subprocess.CompletedProcess:
    code = _BLOCKED.format(missing=sorted(missing), args=list(args))
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_the_image_copies_no_bench_or_math_tools():
    assert {"games", "shared", "services", "ops", "reelstream", "deploy"} <= copied()
    assert not copied() & {"bench", "mathtools", "tests"}


def test_the_cli_of_an_image_loads_and_checks_the_outcome_manifest():
    absent = {"bench", "mathtools", "tests"}
    checked = run_without(absent, "math", "manifest", "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "outcome manifest holds" in checked.stdout
    assert run_without(absent, "services", "--help").returncode == 0
