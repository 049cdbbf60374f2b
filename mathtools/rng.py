"""RNG evidence for a test lab: raw ChaCha20 words and scaled draws for external suites (NIST STS, TestU01,
dieharder, PractRand read the raw file), and a chi-square check of scaled draws against the uniform law."""

from __future__ import annotations

import hashlib
import json
import math
import struct
from pathlib import Path
from typing import Any

from games.rng import SpinRng
from games.selftest import self_test_problems

# The ranges the games draw from: Rising Joker strips (40), mystery trigger (1878) and tiers (1363), the Stjernestøv
# wheel (30,000,000) and a small odd range that a modulo bias would show at once (3).
SCALED_RANGES = (3, 40, 1363, 1878, 30_000_000)
WORDS_PER_SEED = 1 << 16


def seeds_for(label: str, count: int) -> list[bytes]:
    """Reproducible 256-bit seeds: sha256(label:i), so anyone can regenerate the dump."""
    return [hashlib.sha256(f"{label}:{i}".encode()).digest() for i in range(count)]


def chi_square_uniform(counts: list[int]) -> dict[str, float]:
    """Pearson's statistic of counts against equal cells, its degrees of freedom and an upper-tail p-value
    (Wilson-Hilferty cube-root normal approximation, accurate to ~1e-3 for 9+ degrees of freedom)."""
    n, k = sum(counts), len(counts)
    expected = n / k
    stat = sum((c - expected) ** 2 for c in counts) / expected
    dof = k - 1
    z = ((stat / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return {"statistic": stat, "dof": dof, "p_value": 0.5 * math.erfc(z / math.sqrt(2))}


def binned(values: list[int], n: int, cells: int) -> list[int]:
    """Values in [0, n) counted in `cells` cells of width n // cells (the last cell takes the rest)."""
    width = n // cells
    counts = [0] * cells
    for value in values:
        counts[min(value // width, cells - 1)] += 1
    return counts


def dump(
    out_dir: Path, *, label: str, seeds: int, words_per_seed: int = WORDS_PER_SEED, scaled_per_range: int = 100_000
) -> dict[str, Any]:
    """Write raw.bin (the words of `seeds` streams, little-endian uint64, back to back), scaled-<n>.txt (one
    below(n) per line, drawn from the first seed's stream after its raw words) and manifest.json."""
    out_dir.mkdir(parents=True, exist_ok=True)
    streams = seeds_for(label, seeds)
    with (out_dir / "raw.bin").open("wb") as raw:
        for seed in streams:
            rng = SpinRng(seed)
            raw.write(struct.pack(f"<{words_per_seed}Q", *(rng.next_u64() for _ in range(words_per_seed))))
    scaled = {}
    for n in SCALED_RANGES:
        rng = SpinRng(hashlib.sha256(f"{label}:scaled:{n}".encode()).digest())
        values = [rng.below(n) for _ in range(scaled_per_range)]
        (out_dir / f"scaled-{n}.txt").write_text("\n".join(map(str, values)) + "\n")
        cells = n if n <= 2000 else 1000
        scaled[str(n)] = {"draws": scaled_per_range, "cells": cells, **chi_square_uniform(binned(values, n, cells))}
    manifest = {
        "generator": "ChaCha20 (RFC 7539) keystream, 256-bit seed as key, zero nonce and counter; words are "
        "consecutive little-endian uint64; below(n) = low bit_length(n-1) bits, reject >= n",
        "seed_rule": f"seed i = sha256('{label}:' + str(i)); scaled-<n>: sha256('{label}:scaled:<n>')",
        "raw_file": "raw.bin",
        "raw_words": seeds * words_per_seed,
        "raw_bytes": seeds * words_per_seed * 8,
        "scaled": scaled,
        "self_test_problems": self_test_problems(),
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
