"""The money cores hold no bytes machinery, topics or offsets: no import, identifier or string literal under
services/{spin,wallet,jackpot}/core/ names a codec (orjson, json, aiokafka), a topic or an offset. Comments and
docstrings may (they say why). The loop and the adapters own all of that (docs/architecture.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORES = [ROOT / "services" / name / "core" for name in ("spin", "wallet", "jackpot")]
CODECS = re.compile(r"\b(orjson|json|aiokafka)\b", re.IGNORECASE)
TOPICS = re.compile(r"topic", re.IGNORECASE)
TOPIC_NAMES = re.compile(r"\b[a-z]+\.(events|commands|requests|journal|answers|internal|meters|snapshots|dlq)\b")
OFFSETS = re.compile(r"offset", re.IGNORECASE)


def _names(tree: ast.AST) -> list[tuple[str, str]]:
    """(kind, text) of every import, identifier and non-docstring string literal of a module."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [("import", alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [("import", node.module or "")] + [("import", alias.name) for alias in node.names]
        elif isinstance(node, ast.Name):
            found.append(("identifier", node.id))
        elif isinstance(node, ast.Attribute):
            found.append(("identifier", node.attr))
        elif isinstance(node, ast.arg):
            found.append(("identifier", node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append(("identifier", node.name))
        elif isinstance(node, ast.keyword) and node.arg:
            found.append(("identifier", node.arg))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found.append(("literal", node.value))
    return found


def _modules() -> list[Path]:
    return sorted(path for core in CORES for path in core.rglob("*.py"))


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_core_module_names_no_codec_topic_or_offset(path: Path):
    named = _names(ast.parse(path.read_text()))
    assert [text for _, text in named if CODECS.search(text)] == []
    assert [text for _, text in named if TOPICS.search(text)] == []
    assert [text for kind, text in named if kind == "literal" and TOPIC_NAMES.search(text)] == []
    assert [text for _, text in named if OFFSETS.search(text)] == []


def test_the_cores_are_found():
    assert len(_modules()) > 20
