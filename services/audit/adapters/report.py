"""Write an audit report: JSON (everything), Markdown (for people) and matplotlib PNG plots, into one directory."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from services.audit.core.audit import AuditResult
from services.audit.core.findings import CHECKS, Discrepancy
from shared.money import MICRO_PER_MINOR

MATH_DOCS = Path(__file__).resolve().parents[3] / "docs" / "math"


def par_rtp(game: str, math_docs: Path = MATH_DOCS) -> float | None:
    """The par sheet's total RTP (a fraction, e.g. 0.955) from docs/math/<game>/parsheet.json, when present."""
    path = math_docs / game / "parsheet.json"
    if not path.exists():
        return None
    sheet = json.loads(path.read_text())
    total = sheet.get("rtp", {}).get("total") if isinstance(sheet.get("rtp"), dict) else sheet.get("rtp_total")
    if isinstance(total, dict) and "percent" in total:
        return float(total["percent"]) / 100
    if isinstance(total, (int, float)):
        return float(total) / 100 if total > 2 else float(total)
    return None


def report_json(result: AuditResult, discrepancies: list[Discrepancy], projection: str, math_docs: Path = MATH_DOCS) -> dict[str, Any]:
    scope = result.scope
    return {
        "scope": {"since_ms": scope.since_ms, "until_ms": scope.until_ms, "player_id": scope.player_id, "network_id": scope.network_id},
        "projection": projection,
        "counts": result.counts,
        "discrepancy_count": len(discrepancies),
        "discrepancies": [finding.as_json() for finding in discrepancies],
        "in_flight": dict(result.jackpots.in_flight),
        "liabilities": [vars(liability) | {"balanced": liability.balanced} for liability in result.jackpots.liabilities],
        "pools": [{"pool_id": p.pool_id, "network_id": p.network_id, "currency": p.currency, "level_micro": p.level_micro,
                   "initial_micro": p.initial_micro, "contributions_micro": p.contributions_micro, "seeds_micro": p.seeds_micro,
                   "paid_micro": p.paid_micro, "movements": p.movements} for p in result.pools.pools.values()],
        "rtp": [sample.as_json(par_rtp(game, math_docs)) for game, sample in sorted(result.rtp.items())],
        "checks": CHECKS,
    }


def write_report(result: AuditResult, discrepancies: list[Discrepancy], out_dir: Path, projection: str,
                 math_docs: Path = MATH_DOCS) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    body = report_json(result, discrepancies, projection, math_docs)
    paths = {"json": out_dir / "audit.json", "markdown": out_dir / "audit.md"}
    paths["json"].write_text(json.dumps(body, indent=2, sort_keys=True, default=str))
    paths |= _plots(result, body, out_dir)
    paths["markdown"].write_text(_markdown(body, {k: v.name for k, v in paths.items() if k.startswith("plot")}))
    return paths


def _plots(result: AuditResult, body: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = {}
    if result.pools.pools:
        figure, axis = plt.subplots(figsize=(9, 4.5))
        for pool in result.pools.pools.values():
            times = [datetime.fromtimestamp(ms / 1000, timezone.utc) for ms, _ in pool.history]
            axis.step(times, [level / MICRO_PER_MINOR / 100 for _, level in pool.history], where="post", label=pool.pool_id)
        axis.set_ylabel("level (major units)")
        axis.set_title("Pool levels over time (closing of every movement)")
        axis.legend(fontsize="small")
        figure.autofmt_xdate()
        paths["plot_pools"] = out_dir / "pool-levels.png"
        figure.savefig(paths["plot_pools"], dpi=110, bbox_inches="tight")
        plt.close(figure)
    if body["rtp"]:
        figure, axis = plt.subplots(figsize=(7, 4))
        for index, row in enumerate(body["rtp"]):
            axis.errorbar([index], [row["rtp"] * 100], yerr=[[(row["rtp"] - row["band_low"]) * 100], [(row["band_high"] - row["rtp"]) * 100]],
                          fmt="o", capsize=6, label=f"{row['game']} observed ({row['spins']} spins)")
            if row["par_rtp"] is not None:
                axis.hlines(row["par_rtp"] * 100, index - 0.3, index + 0.3, colors="red", label=f"{row['game']} par")
        axis.set_xticks(range(len(body["rtp"])), [row["game"] for row in body["rtp"]])
        axis.set_ylabel("RTP % (house win + contribution)")
        axis.set_title("Observed RTP with 95 % band vs par sheet")
        axis.legend(fontsize="small")
        paths["plot_rtp"] = out_dir / "rtp.png"
        figure.savefig(paths["plot_rtp"], dpi=110, bbox_inches="tight")
        plt.close(figure)
    return paths


def _markdown(body: dict[str, Any], plots: dict[str, str]) -> str:
    count = body["discrepancy_count"]
    lines = ["# Audit report", "", f"**{count} discrepancies**" if count else "**0 discrepancies**", "",
             f"Scope: `{json.dumps(body['scope'])}` · projection: {body['projection']}", "", "## Counts", ""]
    lines += [f"- {name}: {value}" for name, value in body["counts"].items()]
    if body["in_flight"]:
        lines += ["", "In flight at the captured end offsets (not faults):"] + [f"- {k}: {v}" for k, v in body["in_flight"].items()]
    if count:
        lines += ["", "## Discrepancies", "", "| check | subject | detail | where |", "|---|---|---|---|"]
        lines += [f"| {d['check']} | {d['subject']} | {d['detail'].replace('|', '/')} | {d.get('where', '')} |" for d in body["discrepancies"]]
    lines += ["", "## Jackpot liability (wallet vs pools, micro-units)", "", "| network | wallet | pools | in flight | balanced |", "|---|---|---|---|---|"]
    lines += [f"| {l['network_id']} | {l['wallet_micro']} | {l['pools_micro']} | {l['in_flight_micro']} | {l['balanced']} |" for l in body["liabilities"]]
    lines += ["", "## Pools (micro-units)", "", "| pool | level | initial | contributions | seeds | paid | movements |", "|---|---|---|---|---|---|---|"]
    lines += [f"| {p['pool_id']} | {p['level_micro']} | {p['initial_micro']} | {p['contributions_micro']} | {p['seeds_micro']} | {p['paid_micro']} | {p['movements']} |" for p in body["pools"]]
    lines += ["", "## RTP per game", "", "| game | spins | observed | 95 % band | par | par inside band |", "|---|---|---|---|---|---|"]
    for r in body["rtp"]:
        par = "n/a" if r["par_rtp"] is None else f"{r['par_rtp'] * 100:.4f} %"
        lines.append(f"| {r['game']} | {r['spins']} | {r['rtp'] * 100:.4f} % | {r['band_low'] * 100:.2f} – {r['band_high'] * 100:.2f} % | {par} | {r['par_inside_band']} |")
    lines += [""] + [f"![{name}]({file})" for name, file in plots.items()]
    return "\n".join(lines) + "\n"
