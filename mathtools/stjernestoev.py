"""Stjernestøv math tools: par sheet, spin replay, compiled Monte Carlo with a resumable proof file, benchmark.
The simulator runs the engine's own kernel (games/stjernestoev/kernel.py) in numba; only the word source differs
from the service (splitmix64 instead of ChaCha20)."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from games.stjernestoev import current_engine, engine_for_model
from games.stjernestoev.analytics import Z_99
from games.stjernestoev.model import PROOF_CANDIDATE, SEGMENTS, STAKES_MINOR, SYMBOLS, load_model
from games.rng import SpinRng
from mathtools.stjernestoev_batches import (
    ATTEMPTS_FILE,
    DOCS,
    PROOF_BATCH_SPINS,
    RESULTS_FILE,
    proof_batches,
    run_batch,
    run_batches,
    summarise,
)
from mathtools.stjernestoev_proof import PROOF_TARGET_BATCHES, TARGET_RTP_MAIN, criterion_text, verdict


def evaluate(
    *,
    stake_minor: int,
    stops: str | None = None,
    seed: str | None = None,
    state: dict[str, Any] | None = None,
    model_version: str | None = None,
) -> dict[str, Any]:
    """Replay one spin exactly as the spin service plays it: (model version, seed, state before) -> outcome.
    `stops` does not apply to this game (there are no reel stops); a missing seed is drawn from the OS CSPRNG."""
    if stops is not None:
        raise ValueError("Stjernestøv has no reel stops; replay with --seed and --state")
    engine = engine_for_model(model_version) if model_version else current_engine()
    seed_hex = seed or os.urandom(32).hex()
    state_before = state if state is not None else engine.initial_state()
    result = engine.play(state_before, stake_minor, SpinRng.from_hex(seed_hex))
    return {
        "seed": seed_hex,
        "model_version": engine.model_version,
        "state_before": state_before,
        "win_minor": result.win_minor,
        "breakage_micro": result.breakage_micro,
        "claims": list(result.claims),
        "outcome": result.outcome,
        "state_after": result.state_after,
    }


def plot_convergence(batches: list[dict[str, Any]], target: float, path: Path, title: str) -> None:
    """Running main-game RTP over all simulated spins with its band at the 0.99 level (iid estimate) and the target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    chunk = np.concatenate([np.array(b["chunk_x_hundredths"]) for b in batches]) / 100
    spins_per_chunk = np.concatenate(
        [np.full(len(b["chunk_x_hundredths"]), b["spins"] / len(b["chunk_x_hundredths"])) for b in batches]
    )
    n = np.cumsum(spins_per_chunk)
    running = np.cumsum(chunk) / n
    sd = summarise(batches)["sd_per_spin_x_stake"]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.plot(n, running * 100, lw=1, label="running main-game RTP")
    ax.fill_between(
        n,
        (running - Z_99 * sd / np.sqrt(n)) * 100,
        (running + Z_99 * sd / np.sqrt(n)) * 100,
        alpha=0.2,
        label="99 % band (σ/√n)",
    )
    ax.axhline(target * 100, color="k", lw=0.8, ls="--", label=f"target {target * 100:.2f} %")
    ax.set_xscale("log")
    ax.set_ylim(target * 100 - 3, target * 100 + 3)
    ax.set_xlabel("spins")
    ax.set_ylabel("RTP %")
    ax.set_title(title)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def simulate(*, spins: int, procs: int, seed: int, stake_minor: int | None) -> dict[str, Any]:
    """Monte Carlo: `spins` spins in independent batches over `procs` processes; prints the figures as JSON."""
    stake = stake_minor or STAKES_MINOR[0]
    batch_count = max(2 * procs, min(64, spins // 10_000))
    batch_spins = max(1, spins // batch_count)
    jobs = [(stake, batch_spins, seed * 1_000_003 + i, max(1, batch_spins // 20)) for i in range(batch_count)]
    started = time.perf_counter()
    batches = run_batches(jobs, procs)
    seconds = time.perf_counter() - started
    figures = summarise(batches) | {
        "stake_minor": stake,
        "procs": procs,
        "seconds": seconds,
        "spins_per_second": batch_count * batch_spins / seconds,
    }
    out = Path("bench-results") / "stjernestoev-simulate-convergence.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    plot_convergence(batches, 0.935, out, f"Stjernestøv simulation, stake {stake} øre")
    print(json.dumps(figures | {"convergence_png": str(out)}, indent=2))
    print(
        f"main RTP {figures['rtp_main'] * 100:.4f} % (99 % CI {figures['rtp_main_ci99'][0] * 100:.4f} – "
        f"{figures['rtp_main_ci99'][1] * 100:.4f} %, {figures['spins']:,} spins)"
    )
    return {
        "game": "stjernestoev",
        "rtp_main": figures["rtp_main"],
        "rtp_main_ci99": figures["rtp_main_ci99"],
        "spins": figures["spins"],
        "method": "Monte Carlo batches",
    }


@njit(cache=True)
def _reference_steps(count):
    """The trivial reference: count splitmix64 steps folded together (a spin's cost is quoted as a ratio to it)."""
    state = np.uint64(1)
    acc = np.uint64(0)
    for _ in range(count):
        state += np.uint64(0x9E3779B97F4A7C15)
        z = (state ^ (state >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        acc ^= z ^ (z >> np.uint64(31))
    return acc


def _reference_loop(n: int) -> int:
    return int(_reference_steps(n))


def _timed(job: tuple[str, int]) -> float:
    kind, n = job
    started = time.perf_counter()
    if kind == "reference":
        _reference_loop(n)
    else:
        run_batch((STAKES_MINOR[0], n, 12345 + n, n))
    return time.perf_counter() - started


def _wall(kind: str, n: int, procs: int) -> float:
    if procs == 1:
        return _timed((kind, n))
    started = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(procs) as pool:
        pool.map(_timed, [(kind, n)] * procs)
    return time.perf_counter() - started


def bench(*, quick: bool) -> dict[str, Any]:
    """Simulated spins/s on one core and the 2-process speed-up, beside a trivial reference loop in the same run."""
    spins = 200_000 if quick else 2_000_000
    ops = 100_000_000 if quick else 1_000_000_000
    _timed(("sim", 1000))
    _reference_loop(10)
    sim_1, sim_2 = _wall("sim", spins, 1), _wall("sim", spins, 2)
    ref_1, ref_2 = _wall("reference", ops, 1), _wall("reference", ops, 2)
    figures = {
        "spins": spins,
        "spins_per_second_per_core": spins / sim_1,
        "spins_per_second_2_procs": 2 * spins / sim_2,
        "speedup_2_procs": sim_1 * 2 / sim_2,
        "reference_ops_per_second": ops / ref_1,
        "reference_speedup_2_procs": ref_1 * 2 / ref_2,
        "reference_ops_per_spin": (ops / ref_1) / (spins / sim_1),
        "target_speedup": 1.8,
    }
    print(
        "stjernestoev  spins/s/core {spins_per_second_per_core:,.0f}  2 procs {spins_per_second_2_procs:,.0f}  "
        "speed-up {speedup_2_procs:.2f}x (reference loop {reference_speedup_2_procs:.2f}x)  "
        "one spin = {reference_ops_per_spin:,.0f} reference steps".format(**figures)
    )
    return figures


def position_xy(name: str) -> tuple[float, float]:
    """Drawing coordinates: angles clockwise from 12 o'clock, inner ring radius 1, middle 2, outer 3."""
    radius, count = {"I": (1.0, 3), "M": (2.0, 7), "O": (3.0, 11)}[name[0]]
    angle = np.radians(360 * int(name[1:]) / count)
    return radius * np.sin(angle), radius * np.cos(angle)


CIRCLE_ANGLES = (240, 300, 0, 60, 120)  # B0 (left, entry) over the top to B4 (right, exit)


def circle_xy(index: int) -> tuple[float, float]:
    angle = np.radians(CIRCLE_ANGLES[index])
    return 4.4 * np.sin(angle), 4.4 * np.cos(angle)


def draw_graph(path: Path) -> None:
    """The board as a player sees it: the sun, three rings of positions, the drawn lines, five bonus circles."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from games.stjernestoev.model import CIRCLES, POSITIONS

    model = load_model()
    fig, ax = plt.subplots(figsize=(8, 8))
    ax.set_facecolor("#0b1030")
    ax.add_patch(plt.Circle((0, 0), 0.45, color="#ffd23f", zorder=3))
    ax.text(0, 0, "sun", ha="center", va="center", fontsize=9, zorder=4)
    for a, b in model.edges:
        (x1, y1), (x2, y2) = position_xy(POSITIONS[a]), position_xy(POSITIONS[b])
        ax.plot([x1, x2], [y1, y2], color="#9fb4ff", lw=2, zorder=1)
    for c, touched in enumerate(model.circle_touch):
        cx, cy = circle_xy(c)
        for p in touched:
            x, y = position_xy(POSITIONS[p])
            ax.plot([cx, x], [cy, y], color="#ff9f1c", lw=2, ls="--", zorder=1)
        ax.add_patch(plt.Circle((cx, cy), 0.6, color="#ff9f1c", alpha=0.9, zorder=3))
        ax.text(cx, cy, CIRCLES[c], ha="center", va="center", fontsize=11, weight="bold", zorder=4)
    colours = {"I": "#e63946", "M": "#2a9d8f", "O": "#457b9d"}
    for name in POSITIONS:
        x, y = position_xy(name)
        ax.add_patch(plt.Circle((x, y), 0.3, color=colours[name[0]], ec="white", zorder=3))
        ax.text(x, y, name, ha="center", va="center", color="white", fontsize=8, zorder=4)
    arc = np.radians(np.linspace(-110, 110, 80))
    ax.plot(5.25 * np.sin(arc), 5.25 * np.cos(arc), color="white", lw=1)
    ax.annotate(
        "",
        xy=(5.25 * np.sin(arc[-1]), 5.25 * np.cos(arc[-1])),
        xytext=(5.25 * np.sin(arc[-3]), 5.25 * np.cos(arc[-3])),
        arrowprops={"arrowstyle": "-|>", "color": "white"},
    )
    ax.text(
        0,
        5.75,
        "bonus ring: a new circle enters at B0 each spin and moves clockwise to B4, then leaves",
        ha="center",
        color="white",
        fontsize=9,
    )
    ax.text(
        0,
        -3.9,
        "solid lines join positions; dashed lines reach bonus circles; position 0 of each ring is at "
        "12 o'clock, numbers run clockwise",
        ha="center",
        color="white",
        fontsize=7.5,
    )
    ax.set_xlim(-5.8, 5.8)
    ax.set_ylim(-4.3, 6.1)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.patch.set_facecolor("#0b1030")
    fig.savefig(path, dpi=100, facecolor=fig.get_facecolor())
    plt.close(fig)


def _network_figures() -> dict[str, Any]:
    """Contribution rates and seeds from the one source, shared.pools.load_pools()."""
    from shared.pools import load_pools

    network = load_pools().network_for_game("stjernestoev")
    pools = {pool.tier: pool for pool in network.pools}
    return {
        "network_id": network.network_id,
        "contribution_ppm_total": network.contribution_ppm,
        "contribution_ppm": {tier: pool.contribution_ppm for tier, pool in pools.items()},
        "seed_minor": {tier: pool.seed_minor for tier, pool in pools.items()},
        "payout": {tier: pool.payout.policy for tier, pool in pools.items()},
        "reseed": {tier: f"{pool.reseed.policy}, funded by {pool.reseed.funded_by}" for tier, pool in pools.items()},
    }


def parsheet_figures(model_version: str | None = None) -> dict[str, Any]:
    """Every par sheet number: analytic wheel and jackpot figures, the accumulated simulation proof."""
    from games.stjernestoev import analytics

    model = load_model(model_version) if model_version else load_model()
    network = _network_figures()
    batches = proof_batches(model.sha256)
    sim = summarise(batches) if len(batches) >= 2 else None
    feature_rate = sim["feature_rate"] if sim else None
    per_feature = analytics.fixed_ev_per_feature(model)
    wheel = [
        {
            **row,
            "q": str(row["q"]),
            "q_per_stake_minor": str(row["q_per_stake_minor"]),
            "fixed_mean_x_stake": float(row["fixed_mean_x_stake"]),
            "main_game_per_feature_x_stake": str(row["main_game_per_feature_x_stake"]),
        }
        for row in analytics.wheel_by_stake(model)
    ]
    jackpots = (
        analytics.jackpot_odds(model, feature_rate, network["contribution_ppm"], network["seed_minor"])
        if feature_rate
        else []
    )
    reseed = (
        {
            tier: sum(r["reseed_share_of_wagers"] for r in jackpots if r["tier"] == tier and r["stake_minor"] == 50)
            for tier in ("jackpot", "supernova")
        }
        if jackpots
        else {}
    )
    full_board = analytics.full_board_chance(model)
    rare = [
        {"award": f"{r['tier']} at stake {r['stake_minor']} øre", "one_in": r["one_in"]}
        for r in jackpots
        if r["one_in"] > 1e8
    ]
    rare += [
        {
            "award": f"21 {symbol} on the initial board ({figures_factor(model, symbol, 21)} × stake before "
            "multipliers)",
            "one_in": 1 / p,
        }
        for symbol, p in full_board.items()
        if p > 0 and 1 / p > 1e8
    ]
    return {
        "game": "stjernestoev",
        "model_version": model.version,
        "model_sha256": model.sha256,
        "target_rtp_main": TARGET_RTP_MAIN,
        "target_rtp_total": TARGET_RTP_MAIN + network["contribution_ppm_total"] / 1e6,
        "network": network,
        "wheel_by_stake": wheel,
        "main_game_per_feature_x_stake": str(per_feature),
        "main_game_per_feature_x_stake_float": float(per_feature),
        "simulation": sim,
        "proof_batch_spins": PROOF_BATCH_SPINS,
        "proof_target_batches": PROOF_TARGET_BATCHES,
        "proof_criterion": criterion_text(),
        "wheel_rtp_main_from_feature_rate": feature_rate * float(per_feature) if feature_rate else None,
        "jackpots": jackpots,
        "operator_reseed_share_of_wagers": reseed,
        "bonus_circle_content_chances": analytics.circle_content_chances(model),
        "spins_until_ring_empty_upper_bound": analytics.ring_empty_upper_bound(model),
        "full_board_chance": full_board,
        "awards_rarer_than_1e8": rare,
        "cluster_awards_not_seen": _unseen_clusters(sim),
        "forfeit": _forfeit_figures(model.sha256),
    } | _certification_figures(model, sim, feature_rate, jackpots, network)


def _certification_figures(model, sim, feature_rate, jackpots, network) -> dict[str, Any]:
    from mathtools import stjernestoev_sheet as sheet

    if sim is None:
        return {}
    results = [json.loads(line) for line in RESULTS_FILE.read_text().splitlines() if line.strip()]
    awards = sheet.award_rows(model, results, sim, feature_rate)
    return {
        "awards": awards,
        "bar": sheet.bar_summary(awards),
        "volatility": sheet.volatility(sim, model),
        "pool_levels": sheet.pool_levels(jackpots, network["seed_minor"]),
    }


def figures_factor(model, symbol: str, size: int) -> str:
    return model.data["paytable_x_stake_by_size_5_to_21"][symbol][size - 5]


def _unseen_clusters(sim: dict[str, Any] | None) -> dict[str, list[int]]:
    """Per symbol, the cluster sizes the simulation never produced (their chance is below 3/spins at the 0.95 level)."""
    if not sim or not sim["paying_clusters_spins"]:
        return {}
    return {
        symbol: [size for size in range(5, 22) if counts[size] == 0]
        for symbol, counts in sim["paying_clusters_by_size"].items()
    }


def parsheet(out_dir: Path, *, model_version: str | None = None) -> dict[str, Any]:
    """Write parsheet.json, parsheet.md, board-graph.png and rtp-convergence.png into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = parsheet_figures(model_version)
    (out_dir / "parsheet.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    draw_graph(out_dir / "board-graph.png")
    batches = proof_batches(figures["model_sha256"])
    if len(batches) >= 2:
        plot_convergence(
            batches,
            TARGET_RTP_MAIN,
            out_dir / "rtp-convergence.png",
            f"Stjernestøv {figures['model_version']}: accumulated proof",
        )
    (out_dir / "parsheet.md").write_text(parsheet_markdown(figures))
    if figures.get("awards"):
        from mathtools.stjernestoev_sheet import player_paytable

        table = json.dumps(player_paytable(figures), indent=2, sort_keys=True, ensure_ascii=False)
        (out_dir / "player-paytable.json").write_text(table + "\n")
    from mathtools.witnesses import write_witnesses

    write_witnesses("stjernestoev", out_dir, figures["model_version"])
    sim = figures["simulation"]
    print(f"wrote {out_dir}")
    if not sim:
        print("no simulation batches for this model yet: run `make math-stjernestoev-proof`")
        return {"game": "stjernestoev", "model_version": figures["model_version"], "rtp_main": None}
    print(
        f"main RTP {sim['rtp_main'] * 100:.4f} % (99 % CI {sim['rtp_main_ci99'][0] * 100:.4f} – "
        f"{sim['rtp_main_ci99'][1] * 100:.4f} %, {sim['spins']:,} spins); jackpots "
        f"{figures['network']['contribution_ppm_total'] / 1e4:.2f} %"
    )
    return {
        "game": "stjernestoev",
        "model_version": figures["model_version"],
        "rtp_main": sim["rtp_main"],
        "rtp_main_ci99": sim["rtp_main_ci99"],
        "spins": sim["spins"],
        "method": "simulation proof batches",
    }


def _pct(x: float | None, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x * 100:.{digits}f} %"


def _simulation_markdown(sim: dict[str, Any] | None, figures: dict[str, Any]) -> list[str]:
    if sim is None:
        return ["No simulation batches for this model hash yet (`make math-stjernestoev-proof`)."]
    passed = verdict(sim)["passed"] and sim["batches"] >= figures["proof_target_batches"]
    return [
        f"- spins: **{sim['spins']:,}** in {sim['batches']} independent batches of {figures['proof_batch_spins']:,} "
        "(each a fresh player carrying the bonus ring across its spins; seeds derived from the model hash)",
        f"- main-game RTP: **{_pct(sim['rtp_main'])}**, 99 % CI [{_pct(sim['rtp_main_ci99'][0])}, "
        f"{_pct(sim['rtp_main_ci99'][1])}], half-width **{sim['rtp_main_ci99_half_width'] * 100:.4f} pp** "
        f"({'passes' if passed else 'does NOT pass'} the one criterion, docs/math/proof-record.md: "
        f"{criterion_text()})",
        f"- of which clusters × multipliers {_pct(sim['rtp_clusters'])}, wheel fixed segments (exact mean per feature "
        f"× simulated feature rate) {_pct(figures['wheel_rtp_main_from_feature_rate'])}; the realised wheel draws gave "
        f"{_pct(sim['rtp_wheel_fixed_realised'])}",
        f"- σ per spin: **{sim['sd_per_spin_x_stake']:.4f} × stake** (estimator with the wheel's fixed prize replaced "
        "by its exact mean); hit rate (any win) " + _pct(sim["hit_rate"], 2),
        f"- Astro Flash feature: 1 in {sim['feature_one_in']:.1f} spins; wheel segments drawn: "
        + ", ".join(f"{k} {v:,}" for k, v in sim["wheel_segments"].items())
        + " (simulated at 50 øre)",
        f"- paying cascade steps per spin {sim['winning_steps_per_spin']:.4f}; bonus circles exploded per spin "
        f"{sim['circles_exploded_per_spin']:.4f}; max win seen {sim['max_win_x_stake']:,.2f} × stake",
        f"- bonus ring holds something after {_pct(sim['ring_nonempty_share'], 2)} of spins; from such a moment the "
        f"ring is empty after **{sim['spins_until_ring_empty_mean']:.2f}** more spins on average (simulated; the "
        f"bound without explosions is {figures['spins_until_ring_empty_upper_bound']:.2f} from a full ring)",
    ]


def _wheel_markdown(figures: dict[str, Any]) -> list[str]:
    lines = [
        "| stake øre | supernova | jackpot | 100x | 60x | 40x | 25x | q(stake) | E[fixed \\| no jackpot] | "
        "(1 − q)·E[fixed] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in figures["wheel_by_stake"]:
        w = row["weights"]
        lines.append(
            f"| {row['stake_minor']} | {w['supernova']:,} | {w['jackpot']:,} | {w['100x']:,} | {w['60x']:,} | "
            f"{w['40x']:,} | {w['25x']:,} | {row['q']} | {row['fixed_mean_x_stake']:.6f} | "
            f"{row['main_game_per_feature_x_stake']} |"
        )
    return lines


def _jackpot_markdown(figures: dict[str, Any]) -> list[str]:
    net = figures["network"]
    lines = [
        f"Contribution {net['contribution_ppm_total']:,} ppm = {net['contribution_ppm_total'] / 1e4:.2f} % of "
        f"every wager: jackpot {net['contribution_ppm']['jackpot']:,} ppm, supernova "
        f"{net['contribution_ppm']['supernova']:,} ppm (read from `shared.pools.load_pools()`); payout "
        f"{net['payout']}; reseed {net['reseed']}; seeds {net['seed_minor']} øre.",
        "",
        "| stake øre | tier | chance per spin | 1 in | wagers between wins (kr) | mean growth (kr) |",
        "|---|---|---|---|---|---|",
    ]
    for r in figures["jackpots"]:
        lines.append(
            f"| {r['stake_minor']} | {r['tier']} | {r['chance_per_spin']:.3e} | {r['one_in']:,.0f} | "
            f"{r['wagers_between_wins_minor'] / 100:,.0f} | {r['mean_growth_minor'] / 100:,.0f} |"
        )
    reseed = figures["operator_reseed_share_of_wagers"]
    if reseed:
        lines += [
            "",
            f"Operator-funded reseeds on top of the 0.47 %: jackpot {_pct(reseed['jackpot'])}, supernova "
            f"{_pct(reseed['supernova'])} of wagers (seed ÷ wagers between wins; the same at every stake "
            "because the chance per øre staked is the same), so on the target players receive "
            f"{_pct(figures['target_rtp_total'] + reseed['jackpot'] + reseed['supernova'], 3)} in the long run "
            "(on the proof's estimate, see 'Displayed RTP' above).",
        ]
    return lines


def _cluster_markdown(figures: dict[str, Any]) -> list[str]:
    sim = figures["simulation"]
    if not sim or not sim["paying_clusters_spins"]:
        return ["(no simulated batches with cluster counts yet)"]
    spins = sim["paying_clusters_spins"]
    lines = [
        f"Counted over {spins:,} spins (every paying cluster of every cascade step); largest multiplier seen on "
        f"one cluster: {sim['max_cluster_multiplier']}×.",
        "",
        "| size | " + " | ".join(SYMBOLS) + " |",
        "|---" * (len(SYMBOLS) + 1) + "|",
    ]
    for size in range(5, 22):
        cells = [f"{spins / c[size]:,.0f}" if (c := sim["paying_clusters_by_size"][s])[size] else "—" for s in SYMBOLS]
        lines.append(f"| {size} | " + " | ".join(cells) + " |")
    return lines


def _displayed_rtp_markdown(figures: dict[str, Any]) -> list[str]:
    """Which RTP the player is shown, and how it relates to the proof's estimate and the operator's reseeds."""
    from mathtools.parsheet_common import displayed_rtp_percent

    sim, reseed = figures["simulation"], sum(figures["operator_reseed_share_of_wagers"].values())
    pools = figures["network"]["contribution_ppm_total"] / 1e6
    shown = displayed_rtp_percent(figures["target_rtp_total"] * 100)
    if sim is None:
        return [f"**Displayed RTP: {shown}** (the target; no proof batches yet)."]
    low, high = sim["rtp_main_ci99"]
    return [
        f"**Displayed RTP: {shown}** — the main game's target {_pct(TARGET_RTP_MAIN, 2)}, which the proof holds it "
        f"to (99 % CI {_pct(low)} – {_pct(high)}), plus the pool contributions {_pct(pools, 2)}, truncated to two "
        f"decimals. The proof's estimate gives {_pct(sim['rtp_main'])} + {_pct(pools, 2)} = "
        f"{_pct(sim['rtp_main'] + pools)}; with the operator's reseeds ({_pct(reseed)}, seed ÷ wagers between "
        f"wins) the long-run return is {_pct(sim['rtp_main'] + pools + reseed, 3)}. Neither is displayed: the "
        "estimate is a measurement with the interval above, and the reseeds are operator money that a win's "
        "timing, not the stake, decides.",
    ]


def _forfeit_figures(model_sha256: str) -> dict[str, Any] | None:
    """The committed forfeit-value result, when it was computed for this very model."""
    from mathtools.stjernestoev_forfeit import RESULT_FILE

    if not RESULT_FILE.exists():
        return None
    figures = json.loads(RESULT_FILE.read_text())
    return figures if figures["model_sha256"] == model_sha256 else None


def _forfeit_markdown(figures: dict[str, Any]) -> list[str]:
    f = figures.get("forfeit")
    if f is None:
        return ["Not computed for this model yet (`python -m mathtools.stjernestoev forfeit-value`)."]
    low, high = f["ci99_x_stake"]
    return [
        "The seed forbids a stake change while the bonus ring holds anything; `forfeit_bonus_ring` (outside the "
        "seed) lets a player clear the ring and change stake. What they give up is the ring's expected extra win at "
        f"the old stake: **{f['mean_x_stake']:.4f} × stake** on average (99 % CI {low:.4f} – {high:.4f}), e.g. "
        f"{f['mean_x_stake'] * 100:.2f} kr at a 100 kr stake. Computed by forfeit-value.json ("
        "`mathtools/stjernestoev_forfeit.py`): {samples:,} ring states a player holds (one long session, "
        "one spin in {gap} when its ring is not empty), each played {horizon} spins twice on the same words, with the "
        "ring and cleared; the figure is the mean difference of the main-game return (wheel at its exact mean per "
        "feature, so a kept Astro Flash's chance at the pools is not in it). In {zero:.1f} % of the samples the "
        "ring changed nothing; the 99th percentile is {p99:.2f} × stake, the largest {top:.2f} × stake.".format(
            samples=f["samples"],
            gap=f["gap_spins"],
            horizon=f["horizon_spins"],
            zero=f["share_zero"] * 100,
            p99=f["p99_x_stake"],
            top=f["max_x_stake"],
        ),
    ]


def _rare_award_section(figures: dict[str, Any]) -> list[str]:
    from mathtools.stjernestoev_sheet import player_paytable, rare_award_markdown

    if not figures.get("awards"):
        return ["(no award odds without simulated batches)"]
    return rare_award_markdown(figures, player_paytable(figures))


def parsheet_markdown(figures: dict[str, Any]) -> str:
    lines = [
        f"# Stjernestøv par sheet — {figures['model_version']}",
        "",
        f"Model sha256 `{figures['model_sha256']}` (a CI test fails when this differs from the current model).",
        "Generated by `reelstream math parsheet stjernestoev`; rules and design decisions in README.md.",
        "",
        "## Return to player",
        "",
        f"Target: main game 93.50 % + progressive jackpots {figures['network']['contribution_ppm_total'] / 1e4:.2f} % "
        f"= {_pct(figures['target_rtp_total'], 2)} at every stake.",
        "",
        *_displayed_rtp_markdown(figures),
        "",
        "### Simulation proof (accumulated in simulation-results.jsonl, keyed by the model hash)",
        "",
        *_simulation_markdown(figures["simulation"], figures),
        "",
        "![RTP convergence](rtp-convergence.png)",
        "",
        "### Astro Flash wheel per stake (exact)",
        "",
        "The kernel reads the stake only to pick the wheel's weight row, so the board, cascades, bonus ring and the "
        "feature rate P(F) are the same at every stake. Each row has the same total weight T; the jackpot weights are "
        "stake × (3, 30), so q(stake) is linear in stake; the fixed weights keep Σ w·v constant. Hence "
        "P(F)·(1 − q(stake))·E[fixed | stake] = P(F)·Σ w·v / T is one number for all 17 stakes (the loader refuses "
        "a model where it is not):",
        "",
        *_wheel_markdown(figures),
        "",
        f"Per feature the main game receives {figures['main_game_per_feature_x_stake']} = "
        f"{figures['main_game_per_feature_x_stake_float']:.6f} × stake at every stake.",
        "",
        "## Forfeiting the bonus ring to change stake",
        "",
        *_forfeit_markdown(figures),
        "",
        "## Progressive jackpots",
        "",
        *_jackpot_markdown(figures),
        "",
        "## Awards rarer than 1 in 100 million: the position and what it rests on",
        "",
        *_rare_award_section(figures),
        "",
        "Every award's odds, with their method, are in 'Every award: odds, method, reachability' below.",
        "",
        "## Paying clusters by size (simulated, 1 in N spins; — = not seen)",
        "",
        *_cluster_markdown(figures),
        "",
        *(_sections(figures) if figures.get("awards") else []),
        "## Board",
        "",
        "![board graph](board-graph.png)",
        "",
    ]
    return "\n".join(lines)


def _sections(figures: dict[str, Any]) -> list[str]:
    from mathtools.stjernestoev_sheet import sections_markdown

    return sections_markdown(figures, ATTEMPTS_FILE)


def random_state(rng: SpinRng) -> dict[str, Any]:
    """A random valid bonus ring (any mix of contents) to test the engine on states a player can reach."""
    from games.stjernestoev.outcome import circle_json

    model = load_model()
    _, _, _, _, _, _, _, syms, mults, weights, _, _ = model.arrays
    entries = [circle_json(int(syms[i]), int(mults[i])) for i in (rng.below(len(weights)) for _ in range(5))]
    pending = any(e is not None for e in entries)
    return {"bonus_ring": entries, "ring_stake_minor": None if not pending else -1}


def agreement(*, inputs: int, seed: str = "agreement") -> dict[str, Any]:
    """Engine (ChaCha20 words, trace, decoder, pricing) against the simulator's spin (sim_spin, no trace) on the
    same (seed, state, stake) inputs: cluster win, wheel segment and ring after must be equal for every input."""
    from games.stjernestoev.batch import sim_spin
    from games.stjernestoev.engine import ring_from_state
    from games.stjernestoev.kernel import COUNTERS_SIZE, STATUS_OK, WORK_SIZE

    engine, model = current_engine(), load_model()
    mismatches, wins, features = 0, 0, 0
    for i in range(inputs):
        spin_seed = hashlib.sha256(f"{seed}:{i}".encode()).digest()
        stake = STAKES_MINOR[i % len(STAKES_MINOR)]
        state = random_state(SpinRng(hashlib.sha256(f"{seed}:state:{i}".encode()).digest()))
        if state["ring_stake_minor"] == -1:
            state["ring_stake_minor"] = stake
        result = engine.play(state, stake, SpinRng(spin_seed))
        words_rng, words = SpinRng(spin_seed), []
        while True:
            words.extend(words_rng.next_u64() for _ in range(max(256, len(words))))
            ring, counters = ring_from_state(state), np.zeros(COUNTERS_SIZE, np.int64)
            status = sim_spin(
                ring,
                model.stake_index(stake),
                model.arrays,
                np.array(words, np.uint64),
                np.zeros(2, np.int64),
                counters,
                np.zeros(WORK_SIZE, np.int64),
            )
            if status == STATUS_OK:
                break
        flash = result.outcome["astro_flash"]
        segment = SEGMENTS.index(flash["wheel_segment"]) if flash else -1
        same = (
            result.outcome["totals"]["clusters_hundredths"] == counters[0]
            and segment == counters[1]
            and result.state_after == engine_state(ring, stake)
        )
        mismatches += not same
        wins += result.win_minor > 0
        features += segment >= 0
    return {
        "inputs": inputs,
        "mismatches": mismatches,
        "winning_spins": wins,
        "features": features,
        "model_sha256": model.sha256,
    }


def engine_state(ring: np.ndarray, stake_minor: int) -> dict[str, Any]:
    from games.stjernestoev.engine import state_from_ring

    return state_from_ring(ring, stake_minor)


def main(argv: list[str]) -> None:
    """`python -m mathtools.stjernestoev prove|proof-status|proof-record|agreement ...` (make targets)."""
    import argparse

    from mathtools.stjernestoev_proof import PROOF_TARGET_BATCHES, interim, prove

    parser = argparse.ArgumentParser(prog="mathtools.stjernestoev")
    sub = parser.add_subparsers(dest="command", required=True)
    prf = sub.add_parser("prove", help="run the missing proof batches (resumable), logging the attempt")
    prf.add_argument("--target-batches", type=int, default=PROOF_TARGET_BATCHES)
    prf.add_argument("--procs", type=int, default=2)
    prf.add_argument("--model-version", default=PROOF_CANDIDATE)
    status = sub.add_parser("proof-status", help="where an unfinished proof stands; --record logs it as interim")
    status.add_argument("--model-version", default=PROOF_CANDIDATE)
    status.add_argument("--target-batches", type=int, default=PROOF_TARGET_BATCHES)
    status.add_argument("--record", action="store_true")
    agr = sub.add_parser("agreement", help="engine vs simulator on shared inputs; writes agreement.json")
    agr.add_argument("--inputs", type=int, default=1_000_000)
    sub.add_parser("proof-record", help="write docs/math/proof-record.md (criterion, tuning seeds, amendments)")
    sub.add_parser("forfeit-value", help="the bonus ring forfeit's expected value -> forfeit-value.json")
    args = parser.parse_args(argv)
    if args.command == "forfeit-value":
        from mathtools.stjernestoev_forfeit import write_forfeit_value

        print(json.dumps(write_forfeit_value(), indent=2))
    elif args.command == "proof-record":
        from mathtools.stjernestoev_proof import PROOF_RECORD_FILE, proof_record_markdown

        PROOF_RECORD_FILE.write_text(proof_record_markdown(ATTEMPTS_FILE))
        print(f"wrote {PROOF_RECORD_FILE}")
    elif args.command == "proof-status":
        interim(
            model_version=args.model_version,
            target_batches=args.target_batches,
            results=RESULTS_FILE,
            log=ATTEMPTS_FILE,
            record=args.record,
        )
    elif args.command == "prove":
        result = prove(
            model_version=args.model_version,
            target_batches=args.target_batches,
            procs=args.procs,
            results=RESULTS_FILE,
            log=ATTEMPTS_FILE,
        )
        sys.exit(0 if result["passed"] else 1)
    else:
        started = time.perf_counter()
        figures = agreement(inputs=args.inputs) | {"seconds": time.perf_counter() - started}
        (DOCS / "agreement.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
        print(json.dumps(figures, indent=2))
        if figures["mismatches"]:
            sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
