"""The seed source: 32 bytes from the OS CSPRNG, or (tests only, never in production) seeds armed per player with
REELSTREAM_TEST_SEEDS under REELSTREAM_TEST_HOOKS=1 (docs/architecture.md, "Randomness")."""

from __future__ import annotations

import secrets
import sys
import uuid
from collections.abc import Callable, Mapping

from games.rng import SEED_BYTES
from shared import test_only

SeedSource = Callable[[str, uuid.UUID], bytes]


def os_seed(player_id: str, request_id: uuid.UUID) -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def parse_armed(spec: str) -> dict[str, list[bytes]]:
    armed: dict[str, list[bytes]] = {}
    for item in filter(None, (part.strip() for part in spec.split(";"))):
        player_id, _, seeds = item.partition("=")
        armed[player_id.strip()] = [bytes.fromhex(seed.strip()) for seed in seeds.split(",") if seed.strip()]
        if any(len(seed) != SEED_BYTES for seed in armed[player_id.strip()]):
            raise ValueError(f"REELSTREAM_TEST_SEEDS: every seed of {player_id} must be {SEED_BYTES} bytes of hex")
    return armed


def seed_source(environ: Mapping[str, str]) -> SeedSource:
    if not test_only.armed(environ, "REELSTREAM_TEST_SEEDS"):
        return os_seed
    armed = parse_armed(environ["REELSTREAM_TEST_SEEDS"])
    sys.stderr.write(f"reelstream-spin: WARNING test seed override armed for players {sorted(armed)}\n")

    def draw(player_id: str, request_id: uuid.UUID) -> bytes:
        queue = armed.get(player_id)
        return queue.pop(0) if queue else os_seed(player_id, request_id)

    return draw
