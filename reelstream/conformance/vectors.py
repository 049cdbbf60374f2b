"""The conformance vectors as data: loaded from docs/contract/conformance/spins.json and checked for shape."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reelstream.conformance.relay import FAULTS

VECTORS_FILE = Path(__file__).resolve().parents[2] / "docs" / "contract" / "conformance" / "spins.json"
TOKENS = ("valid", "forged", "expired", "other-player")
CLIENT_DEFAULTS = {"timeout_ms": 10_000, "attempts": 3, "linger_ms": 0, "partitioner": "murmur2"}
_EXPECTATIONS = {
    "outcome",
    "code",
    "balance",
    "message_contains",
    "same_event_as_step",
    "attempts_at_least",
    "duplicates_at_least",
}


@dataclass(frozen=True)
class Step:
    request: dict[str, Any]
    client: dict[str, Any]
    expect: dict[str, Any]


@dataclass(frozen=True)
class Vector:
    name: str
    deposit: dict[str, Any] | None
    fault: str
    steps: tuple[Step, ...]
    player: dict[str, Any] = field(default_factory=dict)


def load_vectors(path: Path = VECTORS_FILE) -> tuple[Vector, ...]:
    raw = json.loads(path.read_text())
    return tuple(_vector(entry) for entry in raw["vectors"])


def _vector(entry: dict[str, Any]) -> Vector:
    fault = entry.get("fault", "none")
    if fault not in FAULTS:
        raise ValueError(f"{entry['name']}: unknown fault {fault!r}")
    steps = tuple(_step(entry["name"], index, step) for index, step in enumerate(entry["steps"]))
    return Vector(entry["name"], entry.get("deposit"), fault, steps, entry.get("player", {}))


def _step(name: str, index: int, step: dict[str, Any]) -> Step:
    request, expect = step["request"], step["expect"]
    if request.get("token", "valid") not in TOKENS:
        raise ValueError(f"{name} step {index}: unknown token kind {request['token']!r}")
    if not set(expect) <= _EXPECTATIONS or expect.get("outcome") not in ("settled", "rejected"):
        raise ValueError(f"{name} step {index}: bad expectation {expect}")
    unknown = set(step.get("client", {})) - set(CLIENT_DEFAULTS)
    if unknown:
        raise ValueError(f"{name} step {index}: unknown client settings {sorted(unknown)}")
    return Step(request, {**CLIENT_DEFAULTS, **step.get("client", {})}, expect)
