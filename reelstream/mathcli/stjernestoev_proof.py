"""Stjernestøv's simulation proof: a fixed number of fresh batches seeded from the frozen model's hash, resumable,
with every attempt (start, resume, result) appended to a committed log so that no failed proof can vanish.

The tuning inputs of a model are kept apart (docs/math/stjernestoev/<version>-tuning.json); no proof seed is a
tuning seed, because proof seeds are derived from the hash of the model the tuning produced.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing
import subprocess
import time
from pathlib import Path
from typing import Any

from games.stjernestoev.model import STAKES_MINOR, load_model

PROOF_TARGET_BATCHES = 100  # 1e9 spins, fixed before the proof starts
TARGET_RTP_MAIN = 0.935
TOLERANCE = 0.0005  # the CI must lie wholly inside 93.50 % ± 0.05 pp
HALF_WIDTH_MAX = 0.0003  # and be at most 0.03 pp wide on each side
SEED_RULE = "batch i: int.from_bytes(sha256(f'{model_sha256}:{i}')[:8], 'little') & (2**63 - 1)"
BAR_WIDTH = 30


def verdict(figures: dict[str, Any]) -> dict[str, Any]:
    """Whether the pooled batches prove the target: half-width and the CI inside the tolerance band."""
    low, high = figures["rtp_main_ci99"]
    narrow = figures["rtp_main_ci99_half_width"] <= HALF_WIDTH_MAX
    inside = TARGET_RTP_MAIN - TOLERANCE <= low and high <= TARGET_RTP_MAIN + TOLERANCE
    return {"half_width_ok": narrow, "ci_inside_band": inside, "passed": narrow and inside}


def progress_line(done: int, target: int, started_at: float, first: int, pooled: dict[str, Any] | None) -> str:
    """One line of the progress bar: batches, spins, speed, time left, the running figure."""
    from reelstream.mathcli.stjernestoev import PROOF_BATCH_SPINS

    filled = BAR_WIDTH * done // target
    elapsed = time.perf_counter() - started_at
    rate = (done - first) * PROOF_BATCH_SPINS / elapsed if elapsed > 0 and done > first else 0.0
    eta = dt.timedelta(seconds=round((target - done) * PROOF_BATCH_SPINS / rate)) if rate else "?"
    running = (
        ""
        if pooled is None
        else (f", RTP so far {pooled['rtp_main'] * 100:.4f} % ± {pooled['rtp_main_ci99_half_width'] * 100:.4f} pp")
    )
    return (
        f"proof [{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {done}/{target} batches, "
        f"{done * PROOF_BATCH_SPINS:,} spins, {rate:,.0f} spins/s, ETA {eta}{running}"
    )


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _commit() -> str | None:
    out = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False, cwd=Path(__file__).resolve().parent
    )
    return out.stdout.strip() or None


def append_attempt(path: Path, entry: dict[str, Any]) -> None:
    with path.open("a") as out:
        out.write(json.dumps(entry, sort_keys=True) + "\n")


def attempts(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def prove(*, model_version: str, target_batches: int, procs: int, results: Path, log: Path) -> dict[str, Any]:
    """Run the missing batches up to `target_batches` for a released model, logging the attempt and its result."""
    from reelstream.mathcli.stjernestoev import PROOF_BATCH_SPINS, CHUNK_SPINS, batch_seed, proof_batches
    from reelstream.mathcli.stjernestoev import run_batch, summarise
    from games import engine_code_sha256

    model = load_model(model_version)
    done = len(proof_batches(model.sha256, results))
    head = {
        "model_version": model.version,
        "model_sha256": model.sha256,
        "engine_code_sha256": engine_code_sha256(),
        "seed_rule": SEED_RULE,
        "batch_spins": PROOF_BATCH_SPINS,
        "target_batches": target_batches,
        "git_commit": _commit(),
    }
    if done < target_batches:
        append_attempt(
            log,
            {
                **head,
                "event": "resume" if done else "start",
                "utc": _now(),
                "batches_from": done,
                "seeds": [batch_seed(model.sha256, i) for i in (done,)],
            },
        )
        jobs = [
            (STAKES_MINOR[0], PROOF_BATCH_SPINS, batch_seed(model.sha256, i), CHUNK_SPINS, model.version)
            for i in range(done, target_batches)
        ]
        run_batch((STAKES_MINOR[0], 1000, 1, 1000, model.version))  # compile once before forking
        started, first = time.perf_counter(), done
        with multiprocessing.get_context("fork").Pool(procs) as pool, results.open("a") as out:
            for index, batch in enumerate(pool.imap(run_batch, jobs), start=done):
                out.write(json.dumps({"batch": index, **batch}, sort_keys=True) + "\n")
                out.flush()
                pooled = summarise(proof_batches(model.sha256, results)) if index >= 1 else None
                print(progress_line(index + 1, target_batches, started, first, pooled), flush=True)
    figures = summarise(proof_batches(model.sha256, results)[:target_batches])
    result = {
        **head,
        "event": "result",
        "utc": _now(),
        "spins": figures["spins"],
        "batches": figures["batches"],
        "rtp_main": figures["rtp_main"],
        "rtp_main_ci99": figures["rtp_main_ci99"],
        "rtp_main_ci99_half_width": figures["rtp_main_ci99_half_width"],
        **verdict(figures),
    }
    if not any(
        a["event"] == "result" and a["model_sha256"] == model.sha256 and a["batches"] == result["batches"]
        for a in attempts(log)
    ):
        append_attempt(log, result)
    print(
        f"{figures['spins']:,} spins: main-game RTP {figures['rtp_main'] * 100:.4f} % "
        f"± {figures['rtp_main_ci99_half_width'] * 100:.4f} pp (99 %): "
        f"{'PROVEN' if result['passed'] else 'NOT proven'} (band 93.50 ± 0.05 %, half-width ≤ 0.03 pp)"
    )
    return result


def interim(*, model_version: str, target_batches: int, results: Path, log: Path, record: bool) -> dict[str, Any]:
    """Where an unfinished proof stands (batches done, the figure so far); with `record`, appended to the log as an
    'interim' entry, so a proof stopped at a deadline is on record with how far it got (never as a result)."""
    from reelstream.mathcli.stjernestoev import PROOF_BATCH_SPINS, proof_batches, summarise
    from games import engine_code_sha256

    model = load_model(model_version)
    batches = proof_batches(model.sha256, results)
    figures = summarise(batches) if len(batches) >= 2 else None
    entry = {
        "event": "interim",
        "utc": _now(),
        "model_version": model.version,
        "model_sha256": model.sha256,
        "engine_code_sha256": engine_code_sha256(),
        "seed_rule": SEED_RULE,
        "batch_spins": PROOF_BATCH_SPINS,
        "target_batches": target_batches,
        "batches": len(batches),
        "spins": len(batches) * PROOF_BATCH_SPINS,
        "git_commit": _commit(),
    }
    if figures:
        entry |= {
            "rtp_main": figures["rtp_main"],
            "rtp_main_ci99": figures["rtp_main_ci99"],
            "rtp_main_ci99_half_width": figures["rtp_main_ci99_half_width"],
            **verdict(figures),
        }
    if record:
        append_attempt(log, entry)
    print(json.dumps(entry, indent=2, sort_keys=True))
    return entry
