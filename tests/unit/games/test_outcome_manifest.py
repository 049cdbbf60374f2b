"""The outcome manifest (games/manifest.py): per released model version, the files that decide an outcome or a payment.
Its hash moves with an engine, model, pricing or payout change and with nothing else; the committed list equals the
files; every module a play imports is in it; and the table of hashes pinned before it is what the history gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from games import manifest, registry

VERSIONS = manifest.released_versions()
RISING_JOKER = {version for version, game in VERSIONS.items() if game == "rising-joker"}
PACKAGES = ("games", "shared", "services", "ops", "deploy", "reelstream")  # the project's own (pyproject.toml)


def _edited(path: str):
    """A reader of this checkout in which `path` has one more byte."""

    def read(name: str) -> bytes | None:
        body = manifest.read_checkout(name)
        return body + b"\n" if name == path and body is not None else body

    return read


def _hash(version: str, read=manifest.read_checkout) -> str:
    return manifest.digest(manifest.listing(VERSIONS[version], version, read))


def test_the_committed_manifest_is_the_files():
    committed = json.loads(manifest.MANIFEST_FILE.read_text())
    current = {version: {k: v for k, v in entry.items() if k != "released"} for version, entry in committed.items()}
    assert current == manifest.computed(), "run: reelstream math manifest (a change inside a manifest is a release)"
    from games.rising_joker.model import RELEASED_VERSIONS as RISING_JOKER
    from games.stjernestoev.model import RELEASED_VERSIONS as STJERNESTOEV

    assert set(committed) == {*RISING_JOKER, *STJERNESTOEV}, "one manifest for every released model version"
    assert all(None not in entry["files"].values() for entry in committed.values()), "every listed file exists"


def test_a_release_keeps_every_manifest_it_replaces():
    now = {"v": {"game": "g", "files": {}, "sha256": "b"}}
    assert manifest.recorded({}, now)["v"]["released"] == []
    assert manifest.recorded({"v": {"sha256": "a", "released": []}}, now)["v"]["released"] == ["a"]
    again = manifest.recorded({"v": {"sha256": "b", "released": ["a"]}}, now)["v"]
    assert (again["sha256"], again["released"]) == ("b", ["a"]), "an unchanged manifest records nothing"
    back = manifest.recorded({"v": {"sha256": "c", "released": ["a", "b"]}}, now)["v"]
    assert back["released"] == ["a", "b", "c"], "a return to an earlier manifest keeps the one it replaced"


@pytest.mark.parametrize(
    ("path", "moves"),
    [
        ("games/rising_joker/engine.py", RISING_JOKER),
        ("games/rising_joker/mystery.py", RISING_JOKER),
        ("games/rising_joker/rising-joker-v2.json", {"rising-joker-v2"}),
        ("games/stjernestoev/kernel.py", set(VERSIONS) - RISING_JOKER),
        ("games/stjernestoev/stjernestoev-v3.json", {"stjernestoev-v3"}),
        ("games/rng.py", set(VERSIONS)),
        ("shared/money.py", set(VERSIONS)),
        ("services/jackpot/core/payout.py", set(VERSIONS)),
        ("services/jackpot/core/mustdrop.py", set(VERSIONS)),
        ("services/jackpot/core/packed.py", set(VERSIONS)),
        ("games/witness.py", set()),
        ("games/stjernestoev/importance.py", set()),
        ("games/rising_joker/parsheet.py", set()),
        ("games/codehash.py", set()),
        ("services/jackpot/core/state.py", set()),
        ("shared/pools/pools-v2.json", set()),
    ],
)
def test_the_hash_moves_with_an_engine_model_pricing_or_payout_change_and_nothing_else(path, moves):
    assert manifest.read_checkout(path) is not None, path
    moved = {version for version in VERSIONS if _hash(version, _edited(path)) != _hash(version)}
    assert moved == moves


def test_every_module_a_play_imports_is_in_the_manifest_of_its_model():
    """A play in a fresh interpreter: the project's modules it loaded, less those that decide nothing."""
    script = """
import json, sys
from games import registry
from games.rng import SpinRng
engine = registry.engine(sys.argv[1])
state = engine.initial_state() if hasattr(engine, "initial_state") else {}
engine.play(state, engine.stakes_minor[0], SpinRng.from_hex("ab" * 32))
print(json.dumps([getattr(m, "__file__", None) for m in list(sys.modules.values())]))
"""
    not_deciding = {"games/codehash.py"}  # the old pinning hash, imported by games/__init__.py
    for game in manifest.ENGINES:
        out = subprocess.run(
            [sys.executable, "-c", script, game], check=True, capture_output=True, text=True, cwd=manifest.ROOT
        ).stdout
        loaded = {
            path.relative_to(manifest.ROOT).as_posix()
            for file in json.loads(out)
            if file and (path := Path(file).resolve()).is_relative_to(manifest.ROOT)
        }
        ours = {path for path in loaded if path.split("/", 1)[0] in PACKAGES}  # not a virtualenv inside the checkout
        sources = {path for path in ours if not path.endswith("__init__.py") or path.startswith("games/")}
        assert "games/rng.py" in sources, sorted(ours)
        version = registry.engine(game).model_version
        missing = sources - set(manifest.files(game, version)) - not_deciding
        assert not missing, f"{game}: a play imports {sorted(missing)}, outside its manifest"


def test_the_table_of_hashes_pinned_before_the_manifest_is_what_the_history_gives():
    from mathtools.manifest import released_rows

    table = json.loads(manifest.RELEASED_FILE.read_text())
    shallow = subprocess.run(
        ["git", "-C", str(manifest.ROOT), "rev-parse", "--is-shallow-repository"], capture_output=True, text=True
    )
    if shallow.returncode != 0 or shallow.stdout.strip() != "false":
        pytest.skip("not a full git clone: the history the table is read from is not here")
    assert released_rows(manifest.ROOT, table["until"]) == table["engines"]
