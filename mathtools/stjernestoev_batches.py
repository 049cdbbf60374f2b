"""Stjernestøv proof batches: each batch's seed, its run in the compiled kernel, the pooled figures of many, and the
committed batch file they accumulate in."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

from games.stjernestoev.analytics import batch_ci, fixed_ev_per_feature
from games.stjernestoev.batch import STAT_NAMES, simulate_batch
from games.stjernestoev.model import SEGMENTS, SYMBOLS, load_model

DOCS = Path(__file__).resolve().parents[1] / "docs" / "math" / "stjernestoev"
RESULTS_FILE = DOCS / "simulation-results.jsonl"
ATTEMPTS_FILE = DOCS / "proof-attempts.jsonl"
PROOF_BATCH_SPINS = 10_000_000
CHUNK_SPINS = 100_000


def batch_seed(model_sha256: str, index: int) -> int:
    """The seed of proof batch `index`: derived from the model hash, so batches never repeat across models."""
    return int.from_bytes(hashlib.sha256(f"{model_sha256}:{index}".encode()).digest()[:8], "little") & (2**63 - 1)


def run_batch(args: tuple) -> dict[str, Any]:
    """One independent batch (a fresh player carrying the ring), as JSON-ready figures; args = (stake, spins, seed,
    chunk spins[, model version]), the current model by default."""
    stake_minor, spins, seed, chunk_spins = args[:4]
    model = load_model(*args[4:])
    fixed_ev = float(fixed_ev_per_feature(model)) * 100
    started = time.perf_counter()
    stats, sums, chunks, clusters = simulate_batch(
        model.arrays, model.stake_index(stake_minor), spins, seed, fixed_ev, chunk_spins
    )
    return {
        "model_sha256": model.sha256,
        "seed": seed,
        "stake_minor": stake_minor,
        "spins": spins,
        "stats": dict(zip(STAT_NAMES, (int(v) for v in stats))),
        "sum_x_hundredths": float(sums[0]),
        "sum_x2_hundredths": float(sums[1]),
        "chunk_x_hundredths": [float(c) for c in chunks],
        "paying_clusters_by_size": {
            s: [int(v) for v in clusters[i * 22 : (i + 1) * 22]] for i, s in enumerate(SYMBOLS)
        },
        "seconds": time.perf_counter() - started,
    }


def run_batches(jobs: list[tuple[int, int, int, int]], procs: int) -> list[dict[str, Any]]:
    run_batch((jobs[0][0], 1000, 1, 1000))  # compile (or load the numba cache) once before forking
    if procs <= 1:
        return [run_batch(job) for job in jobs]
    with multiprocessing.get_context("fork").Pool(procs) as pool:
        return pool.map(run_batch, jobs, chunksize=1)


def summarise(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled figures of equal-size batches: main-game RTP (0.99 CI), hit rate, SD, features, max win."""
    spins = sum(b["spins"] for b in batches)
    total = {name: sum(b["stats"].get(name, 0) for b in batches) for name in STAT_NAMES}
    for name in ("max_win_hundredths", "max_cluster_multiplier"):
        total[name] = max(b["stats"].get(name, 0) for b in batches)
    counted = [b for b in batches if "paying_clusters_by_size" in b]
    ci = batch_ci([b["sum_x_hundredths"] / b["spins"] / 100 for b in batches])
    mean_x = sum(b["sum_x_hundredths"] for b in batches) / spins
    sd = ((sum(b["sum_x2_hundredths"] for b in batches) / spins - mean_x**2) ** 0.5) / 100
    features = total["features"]
    return {
        "spins": spins,
        "batches": len(batches),
        "rtp_main": ci["mean"],
        "rtp_main_ci99_half_width": ci["half_width_99"],
        "rtp_main_ci99": [ci["mean"] - ci["half_width_99"], ci["mean"] + ci["half_width_99"]],
        "rtp_clusters": total["cluster_hundredths"] / spins / 100,
        "rtp_wheel_fixed_realised": total["wheel_fixed_hundredths"] / spins / 100,
        "sd_per_spin_x_stake": sd,
        "se_iid_estimate": sd / spins**0.5,
        "hit_rate": total["hits"] / spins,
        "feature_rate": features / spins,
        "feature_one_in": spins / features if features else None,
        "wheel_segments": {name: total[f"seg_{name}"] for name in SEGMENTS},
        "max_win_x_stake": total["max_win_hundredths"] / 100,
        "winning_steps_per_spin": total["winning_steps"] / spins,
        "circles_exploded_per_spin": total["circles_exploded"] / spins,
        "ring_nonempty_share": total["ring_nonempty_spins"] / spins,
        "spins_until_ring_empty_mean": total["ring_wait_sum"] / max(1, total["ring_nonempty_spins"]),
        "kernel_retries": total["retries"],
        "max_cluster_multiplier": total["max_cluster_multiplier"],
        "paying_clusters_spins": sum(b["spins"] for b in counted),
        "paying_clusters_by_size": {
            s: [sum(b["paying_clusters_by_size"][s][k] for b in counted) for k in range(22)] for s in SYMBOLS
        },
    }


def proof_batches(model_sha256: str, path: Path = RESULTS_FILE) -> list[dict[str, Any]]:
    """The committed proof batches of one model (other models' lines stay in the file, ignored)."""
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [line for line in lines if line["model_sha256"] == model_sha256]
