"""Runs tools/linearizability (porcupine, in Go) on a recorded history: built once per source version into a cache
directory with the Go toolchain, which must be there (no Go: an error, never a skipped check)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tools" / "linearizability"
GO_FALLBACK = Path("/usr/local/go/bin/go")  # where CI's Debian machines and the dev machines have it
BUILD_TIMEOUT_S = 600.0
CHECK_TIMEOUT_S = 60.0  # porcupine's search per player; the process gets the players' sum and a minute more


class GoMissing(RuntimeError):
    """No Go toolchain: the history cannot be checked."""


@dataclass(frozen=True)
class Verdict:
    linearizable: bool
    players: dict[str, dict] = field(default_factory=dict)
    output: str = ""


def go_tool() -> Path:
    found = shutil.which("go") or (str(GO_FALLBACK) if GO_FALLBACK.exists() else None)
    if found is None:
        raise GoMissing(f"the linearizability checker needs Go (>= 1.22) on PATH or at {GO_FALLBACK}")
    return Path(found)


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "reelstream" / "linearizability"


def source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(SOURCE.glob("*")):
        if path.name.endswith(("_test.go", ".md")) or not path.is_file():
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def built() -> Path:
    """The checker's binary for the current sources, built when missing (`go build` with the module's go.sum:
    porcupine v1.3.1 from the module proxy, checked against the sum)."""
    binary = cache_dir() / f"linearizability-{source_digest()}"
    if binary.exists():
        return binary
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_suffix(f".{os.getpid()}.tmp")
    subprocess.run(
        [str(go_tool()), "build", "-mod=mod", "-o", str(partial), "."],
        cwd=SOURCE,
        check=True,
        timeout=BUILD_TIMEOUT_S,
        env={**os.environ, "GOFLAGS": "-buildvcs=false"},
    )
    partial.replace(binary)
    return binary


def check(history: Path, timeout_s: float = CHECK_TIMEOUT_S, viz_dir: Path | None = None) -> Verdict:
    """Every player's history linearizable against the model of one account (tools/linearizability/model.go)."""
    command = [str(built()), "-history", str(history), "-timeout", f"{timeout_s}s"]
    if viz_dir is not None:
        viz_dir.mkdir(parents=True, exist_ok=True)
        command += ["-viz", str(viz_dir)]
    players = len(json.loads(history.read_text()).get("players", {}))
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s * max(players, 1) + 60)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"the linearizability checker failed ({done.returncode}): {done.stderr.strip()[-600:]}")
    found = json.loads(done.stdout)
    return Verdict(bool(found["linearizable"]) and done.returncode == 0, found.get("players", {}), done.stdout)
