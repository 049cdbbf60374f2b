"""The RNG start-up self-test: every service checks the ChaCha20 stream and the range mapping against golden vectors
(one of them RFC 7539's own) and refuses to start on a mismatch; plus the per-service numba cache directory, keyed by
the engine code hash, so a compiled kernel is always the one built from the hashed code."""

from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path

from games.codehash import engine_code_sha256
from games.rng import SpinRng

# RFC 7539 appendix A.1, test vector #1: the ChaCha20 block of the all-zero key and nonce at counter 0.
RFC7539_A1_BLOCK_0 = bytes.fromhex(
    "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
    "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586"
)
# From seed sha256("reelstream-rng-golden"): three raw words, below(n) for the ranges the games use, five tier draws.
GOLDEN_SEED = hashlib.sha256(b"reelstream-rng-golden").digest()
GOLDEN_WORDS = (14313747446201993456, 13032685958636899533, 13558526801868358211)
GOLDEN_BELOW = ((2, 0), (3, 0), (10, 2), (40, 9), (1878, 1604), (30_000_000, 524244))
GOLDEN_WEIGHTED = ((1200, 150, 12, 1), (1, 1, 0, 0, 0))
GOLDEN_DRAWS = 16


class SelfTestFailed(RuntimeError):
    """The RNG here does not reproduce the golden vectors: no outcome it draws could be re-derived elsewhere."""


def self_test_problems() -> list[str]:
    """Every golden vector the RNG fails to reproduce (empty when all pass)."""
    problems = []
    zero = SpinRng(bytes(32))
    block = struct.pack("<8Q", *(zero.next_u64() for _ in range(8)))
    if block != RFC7539_A1_BLOCK_0:
        problems.append(
            f"ChaCha20 block 0 of the zero key is {block.hex()}, RFC 7539 A.1 says {RFC7539_A1_BLOCK_0.hex()}"
        )
    rng = SpinRng(GOLDEN_SEED)
    words = tuple(rng.next_u64() for _ in GOLDEN_WORDS)
    if words != GOLDEN_WORDS:
        problems.append(f"raw words {words} != {GOLDEN_WORDS}")
    below = tuple((n, rng.below(n)) for n, _ in GOLDEN_BELOW)
    if below != GOLDEN_BELOW:
        problems.append(f"below() {below} != {GOLDEN_BELOW}")
    weights, expected = GOLDEN_WEIGHTED
    drawn = tuple(rng.weighted(weights) for _ in expected)
    if drawn != expected:
        problems.append(f"weighted() {drawn} != {expected}")
    if rng.draws != GOLDEN_DRAWS:
        problems.append(f"{rng.draws} words consumed, {GOLDEN_DRAWS} expected")
    return problems


def require_self_test(service: str) -> None:
    """Run the self-test at a service's start; exit with a clear message on any mismatch."""
    problems = self_test_problems()
    if problems:
        sys.stderr.write(f"reelstream-{service}: RNG self-test FAILED, refusing to start: {'; '.join(problems)}\n")
        raise SystemExit(78)
    sys.stderr.write(f"reelstream-{service}: RNG self-test passed (engine code {engine_code_sha256()[:16]})\n")


def numba_cache_dir(state_dir: Path, service: str) -> Path:
    """Where `service` keeps compiled kernels: its own directory, one per engine code hash."""
    return state_dir / "numba-cache" / service / engine_code_sha256()[:16]
