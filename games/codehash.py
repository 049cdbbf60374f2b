"""The hash of the engine code: sha256 over every Python source of the `games` package (path and bytes, sorted), so a
recorded spin names the exact rules that evaluated it and the audit refuses to re-derive it with other code."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def code_sha256(root: Path) -> str:
    """sha256 of (relative path, size, bytes) of every *.py under `root`, in path order."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix().encode()
        body = path.read_bytes()
        digest.update(b"%d:%s:%d:" % (len(relative), relative, len(body)))
        digest.update(body)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def engine_code_sha256() -> str:
    """The code hash of the installed engines (computed once per process)."""
    return code_sha256(PACKAGE_DIR)
