"""The money cores hold no bytes machinery, topics or offsets: no import, identifier or string literal under
services/{spin,wallet,jackpot}/core/ names a codec (orjson, json, aiokafka), a topic or an offset, and none encodes or
decodes a message (shared.events' encode, decode); the spin's book keeps which answer a request got, never its bytes
(a repeat's bytes are the adapter's: services/spin/adapters/answers.py). Comments and docstrings may name them (they
say why). The loop and the adapters own all of that (docs/architecture.md)."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

from services.spin.core.book import SpinBook, SpinRecord

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


MESSAGE_CODEC = {"encode", "decode", "decode_all", "may_be"}  # shared/events/codec.py: bytes <-> messages


def _codec_uses(tree: ast.AST) -> list[str]:
    """Each import of the message codec's functions, and each call of one by its bare name."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shared.events"):
            found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name in MESSAGE_CODEC]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            found += [name for name in names if name == "shared.events.codec"]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MESSAGE_CODEC:
            found.append(f"{node.func.id}(")
    return found


def _answer_reads(tree: ast.AST) -> list[int]:
    """Lines where a module reads or sets an `answer` attribute (a kept answer), not calls an `answer` method."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "answer" and id(node) not in called
    ]


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


@pytest.mark.parametrize("path", _modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_core_module_neither_encodes_nor_decodes_a_message(path: Path):
    assert _codec_uses(ast.parse(path.read_text())) == []


SPIN_CORE = sorted((ROOT / "services" / "spin" / "core").rglob("*.py"))


@pytest.mark.parametrize("path", SPIN_CORE, ids=lambda path: path.name)
def test_a_spin_core_module_reads_no_kept_answer(path: Path):
    assert _answer_reads(ast.parse(path.read_text())) == []


def test_the_spin_book_keeps_which_answer_a_request_got_not_its_bytes():
    for kept in (SpinRecord, SpinBook):
        fields = {field.name: str(field.type) for field in dataclasses.fields(kept)}
        assert "answer" not in fields
        assert [name for name, kind in fields.items() if "bytes" in kind] == []
    assert "answer_id" in {field.name for field in dataclasses.fields(SpinRecord)}


def test_the_seam_checks_catch_what_they_forbid():
    caught = ast.parse("from shared.events import decode, envelope\nimport shared.events.codec\nx = encode(m)\n")
    assert _codec_uses(caught) == ["shared.events.decode", "shared.events.codec", "encode("]
    assert _codec_uses(ast.parse("key = text.encode()\nfrom shared.events.codec import canonical\n")) == []
    assert _answer_reads(ast.parse("draft.answer(reply)\nif record.answer is None: pass\n")) == [2]
