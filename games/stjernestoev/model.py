"""The Stjernestøv math model: a released, immutable JSON file per version, validated at load into kernel arrays."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from shared.invariant import invariant
from games.stjernestoev import kernel

CURRENT_VERSION = "stjernestoev-v3"
# Released (immutable, pinned) and under proof: a model becomes current only once its proof passes (every attempt is
# in docs/math/stjernestoev/proof-attempts.jsonl), so the service never plays an unproven model.
PROOF_CANDIDATE = "stjernestoev-v3"
RELEASED_VERSIONS = ("stjernestoev-v1", "stjernestoev-v2", "stjernestoev-v3")
STAKES_MINOR = (50, 100, 200, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000, 4000, 5000, 10000)
SYMBOLS = ("red", "orange", "green", "blue", "purple", "silver", "bar")
RINGS = (("inner", "I", 3), ("middle", "M", 7), ("outer", "O", 11))
POSITIONS = tuple(f"{prefix}{k}" for _, prefix, size in RINGS for k in range(size))
CIRCLES = tuple(f"B{k}" for k in range(kernel.N_CIRCLES))
SEGMENTS = ("supernova", "jackpot", "100x", "60x", "40x", "25x")
JACKPOT_SEGMENTS = ("supernova", "jackpot")


@dataclass(frozen=True)
class StjernestoevModel:
    """The validated data plus the arrays the kernel reads (`arrays`, in play_kernel's unpacking order)."""

    version: str
    sha256: str
    data: dict[str, Any]
    edges: tuple[tuple[int, int], ...]
    circle_touch: tuple[tuple[int, ...], ...]  # per circle, the outer positions it touches
    wheel_fixed_x_stake: tuple[int, ...]  # per segment; 0 for the jackpot segments
    wheel_total: int
    arrays: tuple

    def stake_index(self, stake_minor: int) -> int:
        invariant(stake_minor in STAKES_MINOR, "stake must be one of the 17 allowed stakes")
        return STAKES_MINOR.index(stake_minor)


def model_bytes(version: str) -> bytes:
    invariant(version in RELEASED_VERSIONS, f"unknown Stjernestøv model version {version!r}")
    package = resources.files("games.stjernestoev")
    return package.joinpath(f"{version}.json").read_bytes()


def _weights(row: dict[str, int], names: tuple[str, ...]) -> list[int]:
    invariant(set(row) == set(names), "a weight row names exactly the expected symbols")
    values = [row[name] for name in names]
    invariant(all(type(v) is int and v >= 0 for v in values), "weights are non-negative integers")
    invariant(sum(values) > 0, "a weight row is not all zero")
    return values


def _graph(data: dict) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...]]:
    graph = data["graph"]
    invariant(graph["rings"] == {name: size for name, _, size in RINGS}, "rings hold 3, 7 and 11 positions")
    edges = tuple(sorted((min(a, b), max(a, b)) for a, b in
                         ((POSITIONS.index(x), POSITIONS.index(y)) for x, y in graph["edges"])))
    invariant(len(set(edges)) == len(edges), "no edge is listed twice")
    invariant(all(a != b for a, b in edges), "no position is joined to itself")
    invariant(tuple(graph["circle_touch"]) == CIRCLES, "five bonus circles B0..B4 in order")
    touch = tuple(tuple(POSITIONS.index(p) for p in graph["circle_touch"][c]) for c in CIRCLES)
    invariant(all(POSITIONS[p].startswith("O") for ps in touch for p in ps), "only outer positions touch circles")
    invariant(_connected(edges), "the graph is connected, so a 21-cluster is possible")
    return edges, touch


def _connected(edges: tuple[tuple[int, int], ...]) -> bool:
    reached, frontier = {0}, [0]
    while frontier:
        pos = frontier.pop()
        for a, b in edges:
            for x, y in ((a, b), (b, a)):
                if x == pos and y not in reached:
                    reached.add(y)
                    frontier.append(y)
    return len(reached) == len(POSITIONS)


def _paytable(data: dict) -> np.ndarray:
    pay = np.zeros((len(SYMBOLS), len(POSITIONS) + 1), np.int64)
    table = data["paytable_x_stake_by_size_5_to_21"]
    invariant(tuple(table) == SYMBOLS, "paytable columns follow the symbols' value order")
    for s, symbol in enumerate(SYMBOLS):
        factors = [Decimal(text) * 100 for text in table[symbol]]
        invariant(len(factors) == 17, "sizes 5..21")
        invariant(all(f == f.to_integral_value() for f in factors), "factors are whole hundredths")
        pay[s, 5:] = [int(f) for f in factors]
        invariant(all(pay[s, k] < pay[s, k + 1] for k in range(5, 21)), "bigger clusters pay more")
    return pay


def _circles(data: dict) -> tuple[list[int], list[int], list[int]]:
    syms, mults, weights = [], [], []
    for entry in data["bonus_circle_contents"]:
        content, mult = entry["content"], entry.get("multiplier", 0)
        if content in SYMBOLS:
            invariant(mult in (2, 3, 4), "symbol bonus circles hold 2x, 3x or 4x")
            syms.append(SYMBOLS.index(content))
        elif content == "wild":
            invariant(mult in (2, 3, 4, 5), "WILD bonus circles hold 2x..5x")
            syms.append(kernel.WILD)
        else:
            invariant(content in ("empty", "astro") and mult == 0, "empty and Astro Flash carry no multiplier")
            syms.append(kernel.EMPTY if content == "empty" else kernel.ASTRO)
        invariant(type(entry["weight"]) is int and entry["weight"] >= 0, "circle weights are integers")
        mults.append(mult)
        weights.append(entry["weight"])
    return syms, mults, weights


def _wheel(data: dict) -> tuple[np.ndarray, tuple[int, ...], int]:
    wheel = data["wheel"]
    invariant(tuple(wheel["segments"]) == SEGMENTS, "six wheel segments in the documented order")
    values = tuple(wheel["fixed_x_stake"].get(name, 0) for name in SEGMENTS)
    invariant(values == (0, 0, 100, 60, 40, 25), "fixed segments pay 100/60/40/25 x stake")
    total = wheel["total_weight"]
    rate = wheel["jackpot_weight_per_stake_minor"]
    rows = np.zeros((len(STAKES_MINOR), len(SEGMENTS)), np.int64)
    fixed_ev = set()
    for i, stake in enumerate(STAKES_MINOR):
        row = _weights(wheel["weights_by_stake"][str(stake)], SEGMENTS)
        invariant(sum(row) == total, "every stake's wheel has the same total weight")
        invariant(row[0] == rate["supernova"] * stake and row[1] == rate["jackpot"] * stake,
                  "jackpot weights are linear in stake")
        fixed_ev.add(sum(w * v for w, v in zip(row, values)))
        rows[i] = row
    invariant(len(fixed_ev) == 1, "sum of fixed weight x value is equal at every stake (main-game RTP invariant)")
    return rows, values, total


def _arrays(data: dict, edges, touch) -> tuple:
    adj = np.full((len(POSITIONS), 6), -1, np.int64)
    degree = [0] * len(POSITIONS)
    for a, b in edges:
        for x, y in ((a, b), (b, a)):
            invariant(degree[x] < 6, "at most 6 neighbours per position")
            adj[x, degree[x]] = y
            degree[x] += 1
    touch_by_pos = np.full((len(POSITIONS), 3), -1, np.int64)
    for c, positions in enumerate(touch):
        for p in positions:
            k = int(np.sum(touch_by_pos[p] >= 0))
            touch_by_pos[p, k] = c
    ring_of = np.array([r for r, (_, _, size) in enumerate(RINGS) for _ in range(size)], np.int64)
    ring_start = np.array([0, 3, 10, 21], np.int64)
    names = (*SYMBOLS, "astro")
    board = np.array([_weights(data["board_weights"][r], names) for r, _, _ in RINGS], np.int64)
    refill = np.array([_weights(data["refill_weights"][r], names) for r, _, _ in RINGS], np.int64)
    replace = np.array([_weights(data["replacement_weights"][r], SYMBOLS) for r, _, _ in RINGS], np.int64)
    syms, mults, weights = _circles(data)
    wheel_rows, _, _ = _wheel(data)
    return (adj, touch_by_pos, ring_of, ring_start, board, refill, replace, np.array(syms, np.int64),
            np.array(mults, np.int64), np.array(weights, np.int64), _paytable(data), wheel_rows)


def parse_model(raw: bytes) -> StjernestoevModel:
    """Validate a model file's bytes and build the kernel arrays."""
    data = json.loads(raw)
    invariant(data["game"] == "stjernestoev" and data["currency"] == "DKK", "a Stjernestøv DKK model")
    invariant(tuple(data["stakes_minor"]) == STAKES_MINOR, "the 17 stakes of the rules")
    invariant(tuple(data["symbols"]) == SYMBOLS, "symbols 1..7 in value order")
    invariant(data["astro_flash_trigger"] == kernel.ASTRO_TRIGGER, "3 Astro Flash start the feature")
    edges, touch = _graph(data)
    _, values, total = _wheel(data)
    return StjernestoevModel(version=data["version"], sha256=hashlib.sha256(raw).hexdigest(), data=data,
                             edges=edges, circle_touch=touch, wheel_fixed_x_stake=values, wheel_total=total,
                             arrays=_arrays(data, edges, touch))


@lru_cache(maxsize=None)
def load_model(version: str = CURRENT_VERSION) -> StjernestoevModel:
    """Load and validate a released model version."""
    model = parse_model(model_bytes(version))
    invariant(model.version == version, "the file's version matches its name")
    return model
