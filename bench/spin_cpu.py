"""Per-spin CPU of the spin service's Python, without a broker: the Rising Joker play (compiled kernel against the
pure-Python evaluation), a request's decode (one pass over the bytes, and through a dict), an encode, a derived id."""

# `make bench-spin-cpu` (under `flock /tmp/reelstream-bench.lock`): medians of ROUNDS interleaved rounds, µs per call.

from __future__ import annotations

import argparse
import hashlib
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone

from games.rising_joker import current_engine
from games.rising_joker import engine as engine_module
from games.rising_joker.evaluate import evaluate_stops
from games.rising_joker.kernel import evaluate_compiled
from games.rng import SpinRng
from shared import records
from shared.events import decode, encode, envelope
from shared.events.envelope import derived_id
from shared.events.spin import SpinRequested
from shared.topics import SPIN_REQUESTS


def _per_call_us(*runs: Callable[[], int], rounds: int) -> list[float]:
    """Per run, the median over `rounds` of one round's time per call (`run` returns how many calls it made); the runs
    take turns within each round, so a drift of the machine's load falls on all of them alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, kept in zip(runs, times):
            started = time.perf_counter()
            calls = run()
            kept.append((time.perf_counter() - started) / calls * 1e6)
    return [statistics.median(kept) for kept in times]


def measure(spins: int = 2_000, rounds: int = 5) -> dict[str, float]:
    engine = current_engine()
    seeds = [hashlib.sha256(b"spin-cpu-%d" % n).digest() for n in range(spins)]
    state, stake = engine.initial_state(), engine.stakes_minor[0]

    def play(evaluation) -> Callable[[], int]:
        def run() -> int:
            engine_module.evaluator = lambda: evaluation  # the engine's own evaluator, swapped for the round
            for seed in seeds:
                engine.play(state, stake, SpinRng(seed))
            return len(seeds)

        return run

    chosen = engine_module.evaluator
    try:
        play(evaluate_compiled)()  # compile (or load the numba cache) before timing
        pure, compiled = _per_call_us(play(evaluate_stops), play(evaluate_compiled), rounds=rounds)
    finally:
        engine_module.evaluator = chosen
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    requested = SpinRequested(
        request_id=uuid.uuid4(),
        player_id="p-1",
        game="rising-joker",
        stake_minor=stake,
        currency="EUR",
        session_token="t" * 120,
    )
    message = envelope(requested, source="bench", time=now)
    value = encode(message)
    n = 5_000

    def decode_run() -> int:
        for _ in range(n):
            records.decode_on(SPIN_REQUESTS, value, message.key, check_key=False)
        return n

    def decode_dict_run() -> int:  # the path decode_on took before: orjson into a dict, then pydantic over the dict
        for _ in range(n):
            decode(value, expect_kind="command")
        return n

    def encode_run() -> int:
        for _ in range(n):
            encode(message)
        return n

    def id_run() -> int:
        for index in range(n):
            derived_id(message.id, "answer", index)
        return n

    one_pass, via_dict, encoded, ids = _per_call_us(decode_run, decode_dict_run, encode_run, id_run, rounds=rounds)
    return {
        "rising_joker_play_pure_us": pure,
        "rising_joker_play_compiled_us": compiled,
        "ratio_pure_over_compiled": pure / compiled,
        "decode_request_one_pass_us": one_pass,
        "decode_request_via_dict_us": via_dict,
        "ratio_via_dict_over_one_pass": via_dict / one_pass,
        "encode_request_us": encoded,
        "derived_id_us": ids,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spins", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    figures = measure(args.spins, args.rounds)
    print(f"per-spin CPU, medians of {args.rounds} rounds ({args.spins:,} spins a round):")
    for name, value in figures.items():
        print(f"  {name:32s} {value:9.2f}")


if __name__ == "__main__":
    main()
