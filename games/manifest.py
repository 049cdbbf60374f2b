"""The outcome manifest: per released model version, the files that decide a spin's outcome or its payment, each with
its sha256, and the one hash a settled spin names (docs/math/outcome-manifest.md)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST_FILE = ROOT / "games" / "outcome-manifest.json"
RELEASED_FILE = ROOT / "games" / "released-engines.json"

# What every game's outcome or payment passes through.
COMMON = (
    "games/__init__.py",
    "games/registry.py",
    "games/rng.py",
    "shared/invariant.py",
    "shared/money.py",
    "services/jackpot/core/claims.py",
    "services/jackpot/core/commitment.py",
    "services/jackpot/core/mustdrop.py",
    "services/jackpot/core/packed.py",
    "services/jackpot/core/payout.py",
)
# The model file of each released version: games/<package>/<version>.json.
MODEL_DIRS = {"rising-joker": "games/rising_joker", "stjernestoev": "games/stjernestoev"}
ENGINES = {
    "rising-joker": (
        "games/rising_joker/__init__.py",
        "games/rising_joker/engine.py",
        "games/rising_joker/evaluate.py",
        "games/rising_joker/kernel.py",
        "games/rising_joker/model.py",
        "games/rising_joker/mystery.py",
    ),
    "stjernestoev": (
        "games/stjernestoev/__init__.py",
        "games/stjernestoev/engine.py",
        "games/stjernestoev/kernel.py",
        "games/stjernestoev/model.py",
        "games/stjernestoev/outcome.py",
    ),
}

Reader = Callable[[str], bytes | None]  # repository path -> its bytes, None when the tree has no such file


def files(game: str, model_version: str) -> tuple[str, ...]:
    """The repository paths in a model version's manifest, sorted (KeyError for a game without one)."""
    return tuple(sorted((*COMMON, *ENGINES[game], f"{MODEL_DIRS[game]}/{model_version}.json")))


def listing(game: str, model_version: str, read: Reader) -> dict[str, str | None]:
    """Each manifest path's sha256 in the tree `read` reads (None: absent there)."""
    return {
        path: None if (body := read(path)) is None else hashlib.sha256(body).hexdigest()
        for path in files(game, model_version)
    }


def digest(listed: dict[str, str | None]) -> str:
    """The manifest's one hash: sha256 of its canonical JSON (sorted paths, no spaces)."""
    canonical = json.dumps(listed, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(canonical).hexdigest()


def read_checkout(path: str) -> bytes | None:
    file = ROOT / path
    return file.read_bytes() if file.is_file() else None


def released_versions() -> dict[str, str]:
    """model version -> game, for every model file this checkout ships."""
    return {
        model.stem: game for game, folder in MODEL_DIRS.items() for model in (ROOT / folder).glob(f"{game}-v*.json")
    }


def computed(read: Reader = read_checkout) -> dict[str, dict]:
    """Every released version's manifest as the files give it: its game, its files' hashes and the manifest's own."""
    manifests = {}
    for version, game in sorted(released_versions().items()):
        listed = listing(game, version, read)
        manifests[version] = {"game": game, "files": listed, "sha256": digest(listed)}
    return manifests


def recorded(committed: dict[str, dict], now: dict[str, dict]) -> dict[str, dict]:
    """`games/outcome-manifest.json` after a release: each version's manifest as now, and every hash it replaced
    kept under `released` (in order, never dropped)."""
    entries = {}
    for version, entry in now.items():
        before = committed.get(version, {})
        kept = list(before.get("released", []))
        if before.get("sha256") not in (None, entry["sha256"], *kept):
            kept.append(before["sha256"])
        entries[version] = {**entry, "released": kept}
    return entries


@lru_cache(maxsize=None)
def outcome_manifest_sha256(game: str, model_version: str) -> str:
    """The manifest hash of a model version as this checkout's files give it (computed once per process)."""
    return digest(listing(game, model_version, read_checkout))


@lru_cache(maxsize=1)
def released_manifests() -> frozenset[tuple[str, str]]:
    """(model version, manifest hash) of every manifest released: the committed ones, those they replaced, and those
    of the history's trees (games/released-engines.json)."""
    committed = json.loads(MANIFEST_FILE.read_text())
    found = {
        (version, sha) for version, entry in committed.items() for sha in (entry["sha256"], *entry.get("released", []))
    }
    found |= {(version, sha) for (version, _), manifests in released().items() for sha in manifests}
    return frozenset(found)


@lru_cache(maxsize=1)
def released() -> dict[tuple[str, str], frozenset[str]]:
    """(model version, engine code hash) -> the manifest hashes of the trees that had that engine code, for spins
    pinned before the manifest. Several when only the money or payout rules changed between them: such a pin never
    named those rules, and the audit checks a spin's payment against the jackpot's and the wallet's events anyway."""
    found: dict[tuple[str, str], set[str]] = {}
    for row in json.loads(RELEASED_FILE.read_text())["engines"]:
        found.setdefault((row["model_version"], row["engine_code_sha256"]), set()).add(row["outcome_manifest_sha256"])
    return {key: frozenset(manifests) for key, manifests in found.items()}
