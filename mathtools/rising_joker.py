"""`reelstream math ... rising-joker`: par sheet, outcome evaluation for auditors, Monte Carlo, benchmarks."""

from __future__ import annotations

import json
import math
import multiprocessing
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numba
import numpy as np
import typer
from numba import njit, prange

from shared.invariant import InvariantViolation
from mathtools.parsheet_common import displayed_rtp_percent, pool_dynamics, rtp_ranges, rtp_ranges_markdown
from shared.pools import load_pools
from games.rising_joker import engine_for_model
from games.rising_joker import parsheet as sheet
from games.rising_joker.engine import odds_json, outcome_json
from games.rising_joker.evaluate import evaluate_stops
from mathtools.witnesses import write_witnesses
from games.rising_joker.fullcycle import Tables, enumerate_cycle, evaluate_batch, tables
from games.rising_joker.model import CURRENT_VERSION, RisingJokerModel, load_model, model_sha256
from games.rng import SpinRng

GAME = "rising-joker"
Z_99 = 2.5758293035489004


def contribution_ppm() -> int:
    """The pool contribution rate: read only from the jackpot pool configuration."""
    return load_pools().network_for_game(GAME).contribution_ppm


def _frac(value: Fraction) -> dict[str, Any]:
    return {"fraction": f"{value.numerator}/{value.denominator}", "percent": float(value) * 100}


# --- par sheet -------------------------------------------------------------------------------------------------


def parsheet_figures(model: RisingJokerModel) -> dict[str, Any]:
    """Every par sheet figure, JSON-ready (exact fractions as 'n/d' strings next to their percentages)."""
    started = time.perf_counter()
    cycle, _ = enumerate_cycle(tables(model))
    seconds = time.perf_counter() - started
    parts = sheet.rtp(model, cycle, contribution_ppm())
    dist = sheet.distribution(model, cycle)
    stats = sheet.moments(dist)
    declared = {part: model.declared_rtp.fraction(part) for part in ("lines", "scatter", "mystery_fixed", "total")}
    enumerated = {
        "lines": parts["lines"],
        "scatter": parts["scatter"],
        "mystery_fixed": parts["mystery_fixed"],
        "total": parts["base_total"],
    }
    return {
        "model_version": model.version,
        "model_sha256": model_sha256(model.version),
        "cycle": cycle.cycle,
        "strip_lengths": [len(s) for s in model.reels],
        "enumeration_seconds": seconds,
        "symbol_counts": [
            {name: strip.count(name) for name in model.symbols if strip.count(name)} for strip in model.reels
        ],
        "contribution_ppm": contribution_ppm(),
        "rtp": {name: _frac(value) for name, value in parts.items()},
        "declared_matches_enumeration": declared == enumerated,
        "within_target": abs(parts["total"] - sheet.TARGET_TOTAL) <= sheet.TOLERANCE,
        "losing_spin_probability": _frac(Fraction(int(cycle.histogram[0]), cycle.cycle)),
        "base_hit_frequency": _frac(1 - Fraction(int(cycle.histogram[0]), cycle.cycle)),
        "hit_frequency": _frac(stats["hit_frequency"]),
        "trigger_probability": _frac(model.mystery.trigger.probability),
        "sd": stats["sd"],
        "volatility_index_90": stats["volatility_index_90"],
        "z_90": sheet.Z_90,
        "max_win": float(stats["max_win"]),
        "max_base_win": int(np.nonzero(cycle.histogram)[0][-1]) / 100,
        "max_base_win_probability": int(cycle.histogram[np.nonzero(cycle.histogram)[0][-1]]) / cycle.cycle,
        "awards": sheet.awards(model, cycle, parts),
        "buckets": sheet.buckets(dist),
        "remainder_policy": model.remainder,
        "rtp_ranges": rtp_ranges(float(parts["base_total"]), stats["sd"]),
        "pool_economics": pool_economics(model, cycle),
        "reveal": model.mystery.reveal,
        "odds_per_trigger": odds_json(model.mystery),
        "highest_award_meeting_1e8": max(
            (a for a in sheet.awards(model, cycle, parts) if a["reachable_in_100m"]), key=lambda a: a["factor"]
        )["award"],
        "breakage": [
            {
                "stake_minor": row["stake_minor"],
                "half_cents": row["half_cents"],
                "breakage_to_pools": _frac(row["breakage_to_pools"]),
                "paid_by_house": _frac(row["paid_by_house"]),
                "remainder_states_micro": row["remainder_states_micro"],
            }
            for row in sheet.stake_returns(model, cycle, parts)
        ],
    }


def pool_economics(model: RisingJokerModel, cycle: Any) -> list[dict[str, Any]]:
    """Per stake and tier: the pool's expected level at a win, the mean pool award, the return to the player from the
    pool and from operator reseeds, and the award with the pool at the 99.9th percentile level (pools have no cap)."""
    network = load_pools().network_for_game(GAME)
    lose = Fraction(int(cycle.histogram[0]), cycle.cycle)
    weight_sum = sum(model.mystery.weights)
    rows = []
    for stake in model.stakes_minor:
        for tier in model.mystery.tiers:
            pool = network.pool_for_tier(tier.tier)
            exact_chance = lose * model.mystery.trigger.probability * Fraction(tier.weight, weight_sum)
            chance = float(exact_chance)
            share = min(1.0, stake / pool.payout.full_share_stake_minor)
            rate = Fraction(pool.contribution_ppm, 1_000_000)
            level = pool.payout.full_share_stake_minor * rate / exact_chance
            dyn = pool_dynamics(
                contribution_per_spin=stake * pool.contribution_ppm / 1e6,
                win_chance=chance,
                share=share,
                seed=pool.seed_minor,
                wins=4_000,
                rng_seed=stake * 7 + len(rows),
            )
            fixed_minor = tier.fixed_hundredths * stake // 100
            rows.append(
                {
                    "stake_minor": stake,
                    "tier": tier.tier,
                    "chance_per_spin": chance,
                    "one_in": 1 / chance,
                    "share_of_pool": share,
                    "pool_return_exact": _frac(rate),
                    "mean_level_at_win_from_contributions_minor": float(level),
                    "mean_pool_award_from_contributions_minor": float(share * level),
                    "simulated_mean_level_at_win_minor": dyn["mean_level_at_win"],
                    "simulated_pool_return": dyn["mean_award"] * chance / stake,
                    "reseed_return": dyn["reseed_per_spin"] / stake,
                    "award_with_pool_p999_minor": fixed_minor + share * dyn["level_at_win_p999"],
                }
            )
    return rows


def _pool_markdown(f: dict[str, Any]) -> list[str]:
    out = [
        "**Exact** ('pool return', 'mean level at win', 'mean pool award'): a win at stake s takes s / 20 EUR of a "
        "pool that every stake shares, with a chance per spin that does not depend on the stake, so a player at "
        "stake s receives p · E[level at a win] / 20 EUR per unit staked: the same at every stake. Over the network "
        "the pools pay out what flows in (nothing is capped or kept), so that common figure is the pool's "
        "contribution rate plus the operator's reseeds per unit staked. The contribution part is exact and shown "
        "here; the mean level at a win that it funds is 20 EUR × rate / p. Reseeds add to both and depend on the "
        "stakes the network holds, so they are shown apart.",
        "",
        "**Simulated** ('reseed return', 'award with pool'): pool dynamics with every player at one stake (4,000 "
        "wins per row from the seed, first 5 % dropped), the operator topping a pool up to its seed when a win "
        "leaves less (e.g. at €20, where a win empties the pool); 'award with pool' is the fixed prize plus the share "
        "at the 99.9th percentile level at a win (the pools have no cap).",
        "",
        "| stake € | tier | 1 in | share | pool return (exact) | mean level at win € (exact) | "
        "mean pool award € (exact) | reseed return (sim.) | award with pool p99.9 € (sim.) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in f["pool_economics"]:
        out.append(
            f"| {r['stake_minor'] / 100:.2f} | {r['tier']} | {r['one_in']:,.0f} | "
            f"{r['share_of_pool'] * 100:.1f} % | {r['pool_return_exact']['percent']:.3f} % | "
            f"{r['mean_level_at_win_from_contributions_minor'] / 100:,.2f} | "
            f"{r['mean_pool_award_from_contributions_minor'] / 100:,.2f} | "
            f"{r['reseed_return'] * 100:.3f} % | {r['award_with_pool_p999_minor'] / 100:,.2f} |"
        )
    tiers = {r["tier"]: r["pool_return_exact"]["percent"] for r in f["pool_economics"]}
    out += [
        "",
        f"At every stake the tiers return {' + '.join(f'{v:.3f} %' for v in tiers.values())} = "
        f"{sum(tiers.values()):.3f} % from contributions, plus the reseeds.",
    ]
    return out


def _displayed_rtp_markdown(f: dict[str, Any]) -> list[str]:
    total = f["rtp"]["total"]["percent"]
    return [
        f"**Displayed RTP: {displayed_rtp_percent(total)}** — the house return "
        f"{f['rtp']['base_total']['percent']:.6f} % plus the pool contributions "
        f"{f['rtp']['contribution']['percent']:.6f} % (paid back through the pools at every stake, see 'Progressive "
        f"pools') = {total:.6f} %, truncated to two decimals. The operator's reseeds (table below) come on top and "
        "are not displayed: they depend on how the network's stakes drain the pools, not on the game.",
    ]


def _markdown(f: dict[str, Any]) -> str:
    r = f["rtp"]
    out = [
        f"# Rising Joker par sheet — {f['model_version']}",
        "",
        "Generated by `reelstream math parsheet rising-joker` (full-cycle enumeration; do not edit by hand).",
        "",
        f"- model file sha256: `{f['model_sha256']}`",
        f"- strip lengths: {f['strip_lengths']} → full cycle {f['cycle']:,} stop combinations",
        f"- pool contribution (from `shared/pools`, network of `rising-joker`): {f['contribution_ppm']:,} ppm",
        f"- declared RTP in the model file equals the enumeration: **{f['declared_matches_enumeration']}**",
        f"- total within 95.50 % ± 0.05: **{f['within_target']}**",
        "",
        "## Return to player (per unit of total stake, exact)",
        "",
        *_displayed_rtp_markdown(f),
        "",
        "| component | fraction | percent |",
        "|---|---|---|",
    ]
    for name, value in r.items():
        bold = "**" if name in ("lines", "scatter", "mystery_fixed", "base_total", "contribution", "total") else ""
        out.append(f"| {bold}{name}{bold} | `{value['fraction']}` | {bold}{value['percent']:.6f} %{bold} |")
    out += [
        "",
        "## Headline figures",
        "",
        "| figure | value |",
        "|---|---|",
        f"| base hit frequency (line or scatter win > 0) | {f['base_hit_frequency']['percent']:.4f} % |",
        f"| hit frequency incl. Diamond Mystery | {f['hit_frequency']['percent']:.4f} % |",
        f"| losing spin probability | {f['losing_spin_probability']['percent']:.4f} % |",
        f"| mystery trigger after a losing spin | `{f['trigger_probability']['fraction']}` |",
        f"| standard deviation (× total stake) | {f['sd']:.4f} |",
        f"| volatility index at 90 % (z = {f['z_90']:.4f} × SD) | {f['volatility_index_90']:.4f} |",
        f"| max win (× total stake, fixed parts) | {f['max_win']:,.2f} |",
        f"| max line + scatter win | {f['max_base_win']:,.2f} (p = {f['max_base_win_probability']:.3e}) |",
        "",
        "## Awards and their odds (reachability in 100 million games, GLI-11 §4.8.2)",
        "",
        "| award | × stake | probability per spin | 1 in | expected in 10^8 games | reachable |",
        "|---|---|---|---|---|---|",
    ]
    for a in f["awards"]:
        out.append(
            f"| {a['award']} | {a['factor']:,.2f} | {a['probability']:.4e} | {a['one_in']:,.0f} | "
            f"{a['expected_in_100m']:,.1f} | {'yes' if a['reachable_in_100m'] else 'NO'} |"
        )
    out += [
        "",
        f"Every award meets the bar; the highest, **{f['highest_award_meeting_1e8']}**, is expected "
        f"{next(a['expected_in_100m'] for a in f['awards'] if a['award'] == f['highest_award_meeting_1e8']):.1f} "
        "times in 10^8 games. A reachability witness for each award (RNG words the engine replays to it) is in "
        "[witnesses.json](witnesses.json), replayed by `tests/unit/games/test_award_witnesses.py`.",
        "",
        f"Diamond Mystery reveal ({f['reveal']}): a triggered mystery's tier is drawn first, then 12 cards agree "
        "with it, so the reveal is not a fair deal; per trigger the tiers come "
        + ", ".join(f"{t['tier']} {t['chance']} (1 in {t['one_in']})" for t in f["odds_per_trigger"])
        + (
            ", and the outcome carries these odds for the reveal to show."
            if f["reveal"] == "cards-with-odds"
            else "; this model's outcome does not carry them."
        ),
        "",
        "Tier odds are the same at every stake (the trigger and the tier draw never read the stake); the "
        "per-stake table is under 'Progressive pools'. Theoretical maximum win of one spin: "
        f"{f['max_win']:,.0f} × stake fixed (Diamond) plus the Diamond pool share; the largest line + scatter win "
        f"is {f['max_base_win']:,.0f} ×. The full cycle enumerates every outcome, so the observed maximum of the "
        "cycle is the theoretical one.",
        "",
        "## RTP range by number of games played (house return, normal approximation)",
        "",
        *rtp_ranges_markdown(f["rtp_ranges"]),
        "",
        "## Progressive pools: odds per stake, expected level at a win, reseed return, award with pool",
        "",
        *_pool_markdown(f),
        "",
        "## Win distribution (incl. fixed mystery prizes)",
        "",
        "![win distribution](win-distribution.png)",
        "",
        "| win (× stake) | probability |",
        "|---|---|",
    ]
    out += [f"| {b['bucket']} | {b['probability']:.4e} |" for b in f["buckets"]]
    carried = f["remainder_policy"] == "carried-per-player"
    out += [
        "",
        "## Return by stake (exact)",
        "",
        (
            "Wins are exact; each player's sub-cent remainder is carried in their game state (`remainder_micro`) and "
            "paid with the spin that completes a cent. The long-run paid return is E[floor((r + X) / cent)] under the "
            "remainder's stationary law (uniform on the residues reached, checked), computed over the full cycle:"
            if carried
            else "Wins are exact; the spin's total is paid rounded down to the cent "
            "and the remainder goes to the pools."
        ),
        "",
        "| stake (cents) | half cents | paid by the house | breakage to the pools | sum |",
        "|---|---|---|---|---|",
    ]
    for b in f["breakage"]:
        total = b["paid_by_house"]["percent"] + b["breakage_to_pools"]["percent"]
        out.append(
            f"| {b['stake_minor']} | {'yes' if b['half_cents'] else 'no'} | {b['paid_by_house']['percent']:.6f} % | "
            f"{b['breakage_to_pools']['percent']:.6f} % | {total:.6f} % |"
        )
    if carried:
        out += ["", *_finite_session_markdown(f)]
    return "\n".join(out) + "\n"


SESSION_SPINS = (100, 1_000, 10_000)


def _finite_session_markdown(f: dict[str, Any]) -> list[str]:
    """What 'the same return at every stake' means for a session that ends: the remainder held at its end."""
    rtp = f["rtp"]["base_total"]["percent"]
    half = [b for b in f["breakage"] if b["half_cents"]]
    out = [
        "### A finite session",
        "",
        f"{rtp:.6f} % at all {len(f['breakage'])} stakes is a long-run stationary expectation. A session of n spins "
        "at stake s that starts with no remainder is paid its exact wins less r_n, the remainder the player holds "
        f"when it ends, so its expected return is {rtp:.6f} % − E[r_n] / (n · s). At the "
        f"{len(f['breakage']) - len(half)} stakes that make no half cents r_n is always 0 and every session returns "
        f"{rtp:.6f} % in expectation. At the {len(half)} others r_n is 0 or ½ cent (stationary mean ¼ cent): the "
        "session falls short by at most ½ cent / (n · s), by ¼ cent / (n · s) once the remainder has mixed. "
        "Whether the held remainder is paid when the session ends (a move to a stake that cannot complete it, "
        "self-exclusion, closure) is the wallet's remainder rule; where nothing pays it, it is the player's loss.",
        "",
        "| stake (cents) | "
        + " | ".join(f"shortfall after {n:,} spins (stationary; at most)" for n in SESSION_SPINS)
        + " |",
        "|---|" + "---|" * len(SESSION_SPINS),
    ]
    for b in half:
        mean_cents = sum(b["remainder_states_micro"]) / len(b["remainder_states_micro"]) / 1_000_000
        most_cents = max(b["remainder_states_micro"]) / 1_000_000
        cells = [
            f"{100 * mean_cents / (n * b['stake_minor']):.4f} pp; {100 * most_cents / (n * b['stake_minor']):.4f} pp"
            for n in SESSION_SPINS
        ]
        out.append(f"| {b['stake_minor']} | " + " | ".join(cells) + " |")
    return out


def _plot(figures: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [b["bucket"] for b in figures["buckets"]]
    values = [b["probability"] for b in figures["buckets"]]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.bar(range(len(values)), values, color="#3b6ea5")
    ax.set_yscale("log")
    ax.set_xticks(range(len(values)), labels, rotation=40, ha="right")
    ax.set_xlabel("win per spin (× total stake)")
    ax.set_ylabel("probability per spin (log)")
    ax.set_title(f"Rising Joker {figures['model_version']}: exact win distribution (full cycle + mystery)")
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)


def parsheet(out_dir: Path) -> dict[str, Any]:
    """Write parsheet.md, parsheet.json and win-distribution.png into out_dir and print the headline figures."""
    figures = parsheet_figures(load_model())
    out_dir.mkdir(parents=True, exist_ok=True)
    stable = {k: v for k, v in figures.items() if k != "enumeration_seconds"}
    (out_dir / "parsheet.json").write_text(json.dumps(stable, indent=2, sort_keys=True) + "\n")
    (out_dir / "parsheet.md").write_text(_markdown(figures))
    _plot(figures, out_dir / "win-distribution.png")
    write_witnesses(GAME, out_dir)
    r = figures["rtp"]
    typer.echo(f"{figures['model_version']}: full cycle {figures['cycle']:,} in {figures['enumeration_seconds']:.2f} s")
    for name in ("lines", "scatter", "mystery_fixed", "base_total", "contribution", "total"):
        typer.echo(f"  {name:14s} {r[name]['percent']:.6f} %  ({r[name]['fraction']})")
    typer.echo(
        f"  hit frequency {figures['hit_frequency']['percent']:.4f} %, SD {figures['sd']:.4f}, "
        f"VI90 {figures['volatility_index_90']:.4f}, max win {figures['max_win']:,.0f}x"
    )
    typer.echo(
        f"  declared = enumerated: {figures['declared_matches_enumeration']}; "
        f"within 95.50 ± 0.05: {figures['within_target']}; wrote {out_dir}"
    )
    total = r["total"]
    typer.echo(f"main RTP {total['percent']:.6f} % (exact by full-cycle enumeration: the 99 % CI is the point itself)")
    return {
        "game": GAME,
        "model_version": figures["model_version"],
        "rtp_main": total["fraction"],
        "rtp_main_ci99": [total["fraction"], total["fraction"]],
        "method": "full-cycle enumeration (exact)",
    }


# --- evaluate (auditors) ---------------------------------------------------------------------------------------


def evaluate(
    *, stake_minor: int, stops: str | None, seed: str | None, state: dict | None, model_version: str | None
) -> dict:
    """One outcome as JSON: `stops` evaluates those stops (no mystery draw); `seed` replays a full play exactly."""
    engine = engine_for_model(model_version or CURRENT_VERSION)
    if stake_minor not in engine.stakes_minor:
        raise typer.BadParameter(f"stake {stake_minor} is not one of {list(engine.stakes_minor)}")
    if (stops is None) == (seed is None):
        raise typer.BadParameter("give exactly one of --stops or --seed")
    state_before = engine.initial_state() if state is None else state
    try:
        carried_in = engine.carried_in_micro(state_before)
    except InvariantViolation as refused:
        raise typer.BadParameter(f"--state: {refused}") from None
    if seed is not None:
        rng = SpinRng.from_hex(seed)
        result = engine.play(state_before, stake_minor, rng)
        return {
            "mode": "seed",
            "model_version": engine.model_version,
            "stake_minor": stake_minor,
            "seed": seed,
            "rng_words": rng.draws,
            "win_minor": result.win_minor,
            "breakage_micro": result.breakage_micro,
            "claims": list(result.claims),
            "outcome": result.outcome,
            "state_before": state_before,
            "state_after": result.state_after,
        }
    stop_tuple = tuple(int(part) for part in stops.split(","))
    if len(stop_tuple) != 5 or any(not 0 <= s < len(strip) for s, strip in zip(stop_tuple, engine.model.reels)):
        raise typer.BadParameter(
            f"stops must be 5 integers within the strip lengths {[len(s) for s in engine.model.reels]}"
        )
    outcome = outcome_json(engine.model, evaluate_stops(engine.model, stop_tuple), stake_minor, False, None, carried_in)
    totals = outcome["totals"]
    return {
        "mode": "stops",
        "model_version": engine.model_version,
        "stake_minor": stake_minor,
        "seed": None,
        "rng_words": 0,
        "win_minor": totals["win_minor"],
        "breakage_micro": totals["breakage_micro"],
        "claims": [],
        "outcome": outcome,
    }


# --- Monte Carlo -----------------------------------------------------------------------------------------------


def _simulate_batch(
    model: RisingJokerModel, t: Tables, rng: np.random.Generator, n: int, stake_minor: int
) -> dict[str, int]:
    """n spins drawn with numpy's PCG64 (simulation only; the service uses SpinRng): sums of exact wins."""
    stops = np.stack([rng.integers(0, len(strip), n) for strip in model.reels], axis=1)
    factor, _, _, _ = evaluate_batch(t, stops)
    trigger = model.mystery.trigger
    triggered = (factor == 0) & (rng.integers(0, trigger.denominator, n) < trigger.numerator)
    weights = np.array(model.mystery.weights, dtype=np.int64)
    tier = np.searchsorted(np.cumsum(weights), rng.integers(0, int(weights.sum()), n), side="right")
    fixed = np.array([t_.fixed_hundredths for t_ in model.mystery.tiers], dtype=np.int64)
    win = factor + np.where(triggered, fixed[tier], 0)
    micro = win * (stake_minor * 10_000)
    return {
        "n": n,
        "sum": int(win.sum()),
        "sumsq": int((win * win).sum()),
        "hits": int((win > 0).sum()),
        "breakage_micro": int((micro % 1_000_000).sum()),
        **{f"tier_{t_.tier}": int((triggered & (tier == i)).sum()) for i, t_ in enumerate(model.mystery.tiers)},
    }


def _simulate_worker(args: tuple[int, int, int, int]) -> dict[str, int]:
    spins, entropy, index, stake_minor = args
    numba.set_num_threads(1)
    model = load_model()
    t = tables(model)
    rng = np.random.default_rng(np.random.SeedSequence(entropy).spawn(index + 1)[index])
    total: dict[str, int] = {}
    done = 0
    while done < spins:
        batch = _simulate_batch(model, t, rng, min(1_000_000, spins - done), stake_minor)
        total = {k: total.get(k, 0) + v for k, v in batch.items()}
        done += batch["n"]
    return total


def simulate(*, spins: int, procs: int, seed: int, stake_minor: int | None) -> dict[str, Any]:
    """Monte Carlo RTP with a confidence interval at the 0.99 level, checked against the exact enumerated figure."""
    model = load_model()
    stake = stake_minor or model.stakes_minor[0]
    if stake not in model.stakes_minor:
        raise typer.BadParameter(f"stake {stake} is not one of {list(model.stakes_minor)}")
    shares = [spins // procs + (1 if i < spins % procs else 0) for i in range(procs)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(procs) as pool:
        parts = pool.map(_simulate_worker, [(share, seed, i, stake) for i, share in enumerate(shares)])
    seconds = time.perf_counter() - started
    total = {k: sum(p[k] for p in parts) for k in parts[0]}
    n = total["n"]
    mean = total["sum"] / (100 * n)
    sd = math.sqrt(max(total["sumsq"] / (10_000 * n) - mean * mean, 0.0))
    half = Z_99 * sd / math.sqrt(n)
    exact = float(model.declared_rtp.fraction("total"))
    typer.echo(f"{n:,} spins at stake {stake} on {procs} process(es) in {seconds:.1f} s ({n / seconds:,.0f} spins/s)")
    typer.echo(f"  RTP (lines + scatter + fixed mystery) {mean:.4%}  99 % CI [{mean - half:.4%}, {mean + half:.4%}]")
    typer.echo(
        f"  exact {exact:.4%}: {'inside' if abs(exact - mean) <= half else 'OUTSIDE'} the interval; "
        f"+ contribution {contribution_ppm() / 1e4:.2f} %"
    )
    where = "carried to the player's later spins" if model.carries_remainder else "breakage to the pools"
    typer.echo(
        f"  hit frequency {total['hits'] / n:.4%}, SD {sd:.3f}, sub-cent remainders {where}: "
        f"{total['breakage_micro'] / (n * stake * 1_000_000):.4%} of stake"
    )
    typer.echo("  mystery tiers: " + ", ".join(f"{t.tier} {total['tier_' + t.tier]:,}" for t in model.mystery.tiers))
    typer.echo(
        f"main RTP {mean * 100:.4f} % (99 % CI {(mean - half) * 100:.4f} – {(mean + half) * 100:.4f} %, {n:,} spins)"
    )
    return {
        "game": GAME,
        "rtp_main": mean,
        "rtp_main_ci99": [mean - half, mean + half],
        "spins": n,
        "method": "Monte Carlo",
        "exact": str(model.declared_rtp.fraction("total")),
    }


# --- benchmarks ------------------------------------------------------------------------------------------------


@njit(parallel=True, cache=True)
def _reference_cycle(lengths, table, n_chunks):
    """The trivial reference: visit the same stop combinations, adding one table entry per combination."""
    acc = np.zeros(n_chunks, dtype=np.int64)
    for chunk in prange(n_chunks):
        for i0 in range(chunk, lengths[0], n_chunks):
            for i1 in range(lengths[1]):
                for i2 in range(lengths[2]):
                    for i3 in range(lengths[3]):
                        for i4 in range(lengths[4]):
                            acc[chunk] += table[i4] ^ (i0 + i1 + i2 + i3)
    return acc.sum()


def _best_of(repeats: int, work) -> float:
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def _python_reference(n: int) -> None:
    acc = 0
    for i in range(n):
        acc += i


def bench(*, quick: bool) -> dict:
    """Print and return enumeration and Monte Carlo speeds, each against a reference loop of the same run."""
    model = load_model()
    t = tables(model)
    threads = numba.get_num_threads()
    chunks = 4 * threads
    table = np.ascontiguousarray(t.eff[4, :, 0])
    repeats = 1 if quick else 3
    enumerate_cycle(t)  # compile (or load the cache) outside the timings
    _reference_cycle(t.lengths, table, chunks)
    enum_s = _best_of(repeats, lambda: enumerate_cycle(t))
    ref_s = _best_of(repeats, lambda: _reference_cycle(t.lengths, table, chunks))
    mc_spins = 200_000 if quick else 2_000_000
    rng = np.random.default_rng(1)
    numba.set_num_threads(1)
    try:
        _simulate_batch(model, t, rng, 1000, 10)
        mc_s = _best_of(repeats, lambda: _simulate_batch(model, t, rng, mc_spins, 10))
        ref1_s = _best_of(repeats, lambda: _reference_cycle(t.lengths, table, 4))
    finally:
        numba.set_num_threads(threads)
    play_spins = 2_000 if quick else 20_000
    engine = engine_for_model(model.version)
    seeds = [bytes([i % 256, i // 256]) * 16 for i in range(play_spins)]
    play_s = _best_of(1, lambda: [engine.play({}, 10, SpinRng(s)) for s in seeds])
    py_ref_s = _best_of(repeats, lambda: _python_reference(play_spins * 100)) / 100
    figures = {
        "threads": threads,
        "cycle": t.cycle,
        "enumeration_seconds": enum_s,
        "enumeration_positions_per_s": t.cycle / enum_s,
        "reference_positions_per_s": t.cycle / ref_s,
        "enumeration_vs_reference": ref_s / enum_s,
        "mc_spins_per_s_per_core": mc_spins / mc_s,
        "reference_positions_per_s_per_core": t.cycle / ref1_s,
        "mc_vs_reference": (mc_spins / mc_s) / (t.cycle / ref1_s),
        "service_play_spins_per_s_per_core": play_spins / play_s,
        "python_reference_iterations_per_s": play_spins / py_ref_s,
        "service_play_vs_python_reference": (play_spins / play_s) / (play_spins / py_ref_s),
    }
    _print_bench(figures)
    return figures


def _print_bench(f: dict) -> None:
    typer.echo(
        f"Rising Joker math ({f['threads']} numba threads). References: [N] a numba loop over the same stop "
        "combinations adding one table entry each; [P] a CPython `acc += i` loop."
    )
    typer.echo(f"  {'measure':46s} {'rate':>16s} {'reference':>16s} {'ratio':>8s}")
    rows = [
        (
            f"full cycle {f['cycle']:,} in {f['enumeration_seconds']:.2f} s (positions/s)",
            f["enumeration_positions_per_s"],
            f["reference_positions_per_s"],
            f["enumeration_vs_reference"],
            "N",
        ),
        (
            "Monte Carlo, numba + PCG64 (spins/s per core)",
            f["mc_spins_per_s_per_core"],
            f["reference_positions_per_s_per_core"],
            f["mc_vs_reference"],
            "N, 1 thread",
        ),
        (
            "service play(), SpinRng (spins/s per core)",
            f["service_play_spins_per_s_per_core"],
            f["python_reference_iterations_per_s"],
            f["service_play_vs_python_reference"],
            "P",
        ),
    ]
    for label, rate, ref, ratio, which in rows:
        typer.echo(f"  {label:46s} {rate:16,.0f} {ref:16,.0f} {ratio:8.4f}  [{which}]")


# --- long proofs (make prove-rising-joker) ---------------------------------------------------------------------


def _agreement_worker(args: tuple[int, int, int]) -> tuple[int, int, list[list[int]]]:
    """Compare the numba batch kernel with the service's evaluator line for line on `count` random stops."""
    count, entropy, index = args
    numba.set_num_threads(1)
    model = load_model()
    rng = np.random.default_rng(np.random.SeedSequence(entropy).spawn(index + 1)[index])
    stops = np.stack([rng.integers(0, len(strip), count) for strip in model.reels], axis=1)
    factor, stars, line_symbol, line_count = evaluate_batch(tables(model), stops)
    mismatches: list[list[int]] = []
    for i in range(count):
        spin = evaluate_stops(model, tuple(int(s) for s in stops[i]))
        lines = {w.line: (model.symbol_index(w.symbol), w.count) for w in spin.line_wins}
        kernel = {
            n + 1: (int(line_symbol[i, n]), int(line_count[i, n])) for n in range(len(model.lines)) if line_count[i, n]
        }
        if (spin.base_hundredths, spin.scatter_count, lines) != (int(factor[i]), int(stars[i]), kernel):
            mismatches.append(stops[i].tolist())
    return count, int(factor.sum()), mismatches


def prove_agreement(*, spins: int, procs: int, seed: int, out_dir: Path) -> dict:
    """The evaluator/kernel agreement on `spins` random stops of the released strips; writes agreement.json."""
    shares = [spins // procs + (1 if i < spins % procs else 0) for i in range(procs)]
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(procs) as pool:
        parts = pool.map(_agreement_worker, [(share, seed, i) for i, share in enumerate(shares)])
    result = {
        "model_version": CURRENT_VERSION,
        "spins": sum(p[0] for p in parts),
        "seed": seed,
        "procs": procs,
        "factor_sum_hundredths": sum(p[1] for p in parts),
        "mismatches": sum(len(p[2]) for p in parts),
        "first_mismatches": [m for p in parts for m in p[2]][:20],
        "seconds": round(time.perf_counter() - started, 1),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "agreement.json").write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    typer.echo(
        f"evaluator vs numba kernel on {result['spins']:,} random stops: {result['mismatches']} mismatches "
        f"({result['seconds']} s, {procs} processes)"
    )
    return result
