"""The hash of the engine code: sha256 over every Python source of the `games` package (path and bytes, sorted), so a
recorded spin names the exact rules that evaluated it and the audit refuses to re-derive it with other code."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def code_sha256(root: Path) -> str:
    """sha256 of (relative path, size, bytes) of every *.py under `root`, in path order."""
    return code_sha256_of({path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*.py")})


def code_sha256_of(sources: dict[str, bytes]) -> str:
    """The same hash of sources given as {relative posix path: bytes} (a tree of the git history, say), in the
    order a sorted `Path` walk gives: by path components."""
    digest = hashlib.sha256()
    for relative in sorted(sources, key=lambda name: tuple(name.split("/"))):
        body = sources[relative]
        digest.update(b"%d:%s:%d:" % (len(relative.encode()), relative.encode(), len(body)))
        digest.update(body)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def engine_code_sha256() -> str:
    """The code hash of the installed engines (computed once per process)."""
    return code_sha256(PACKAGE_DIR)
