"""Every test module has a name of its own, because pytest imports a module outside a package by its file name
alone: two `test_x.py` in different folders collect one at a time but stop the whole run when collected together."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _module_name(path: Path) -> str:
    """The name pytest's default import mode gives a test file: its file name, preceded by each enclosing package."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def test_no_two_test_modules_share_an_import_name() -> None:
    names = Counter(_module_name(path) for path in TESTS.rglob("test_*.py"))
    shared = sorted(name for name, count in names.items() if count > 1)
    assert not shared, f"test modules that collide when the whole suite is collected: {shared}"
