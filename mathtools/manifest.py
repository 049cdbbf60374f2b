"""The outcome manifest's files: `games/outcome-manifest.json` from the checkout, and `games/released-engines.json`
from the project's git history (every engine code hash a spin may have been pinned to before the manifest)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from games import manifest
from games.codehash import code_sha256_of

# A model file's name is its version: games/<package>/<version>.json (e.g. rising-joker-v2.json).
_MODEL = re.compile(r"^games/(rising_joker|stjernestoev)/((?:rising-joker|stjernestoev)-v\d+)\.json$")
_GAME_OF_PACKAGE = {"rising_joker": "rising-joker", "stjernestoev": "stjernestoev"}
Echo = Callable[[str], None]


def _git(root: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True).stdout


def _tree(root: Path, commit: str) -> dict[str, str]:
    """path -> blob id of every file of `commit`."""
    listed = _git(root, "ls-tree", "-r", "-z", commit).split(b"\0")
    blobs = {}
    for line in filter(None, listed):
        meta, path = line.split(b"\t", 1)
        _, kind, blob = meta.split()
        if kind == b"blob":
            blobs[path.decode()] = blob.decode()
    return blobs


def released_rows(root: Path, until: str, echo: Echo = lambda _: None) -> list[dict]:
    """One row per (model version, engine code hash, manifest) of the trees of every commit up to `until` (the last
    one whose spins named the engine code hash) that changed a file the hash or a manifest reads."""
    span = until
    watched = ("games/", *(path for path in manifest.COMMON if not path.startswith("games/")))
    commits = _git(root, "rev-list", "--reverse", span, "--", *watched).decode().split()
    rows: dict[tuple[str, str, str], dict] = {}
    for index, commit in enumerate(commits, 1):
        tree = _tree(root, commit)
        blob = _blob_reader(root, tree)
        sources = {path[len("games/") :]: path for path in tree if path.startswith("games/") and path.endswith(".py")}
        engine_hash = code_sha256_of({name: blob(path) for name, path in sources.items()})
        for path in tree:
            found = _MODEL.match(path)
            if not found:
                continue
            game, version = _GAME_OF_PACKAGE[found.group(1)], found.group(2)
            key = (version, engine_hash, manifest.digest(manifest.listing(game, version, blob)))
            if key not in rows:
                rows[key] = {
                    "model_version": version,
                    "engine_code_sha256": engine_hash,
                    "outcome_manifest_sha256": key[2],
                    "commit": commit,
                }
        if index % 25 == 0:
            echo(f"  {index}/{len(commits)} commits read")
    return sorted(rows.values(), key=lambda row: row["model_version"])  # stable: each version's rows oldest first


def _blob_reader(root: Path, tree: dict[str, str]):
    cache: dict[str, bytes] = {}

    def read(path: str) -> bytes | None:
        blob = tree.get(path)
        if blob is None:
            return None
        if blob not in cache:
            cache[blob] = _git(root, "cat-file", "blob", blob)
        return cache[blob]

    return read


def write_manifest(path: Path = manifest.MANIFEST_FILE) -> dict:
    committed = json.loads(path.read_text()) if path.exists() else {}
    manifests = manifest.recorded(committed, manifest.computed())
    path.write_text(json.dumps(manifests, indent=2, sort_keys=True) + "\n")
    return manifests


def write_released(rows: list[dict], until: str, path: Path = manifest.RELEASED_FILE) -> None:
    body = {
        "about": "Engine code hashes (sha256 of every games/ source) spins were pinned to before the outcome manifest, "
        "each with the manifest of the same tree (games/manifest.py). Generated: reelstream math manifest --history.",
        "until": until,
        "engines": rows,
    }
    path.write_text(json.dumps(body, indent=2) + "\n")
