"""Write an audit report into one directory: audit.json (everything, exact integers), audit.md and a self-contained
audit.html for people (amounts in major units, the scope in words, findings, RTP against par, pools, liabilities),
and the PNG plots (pool levels per network on their own axes, RTP bands) that both embed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from services.audit.adapters import report_html
from services.audit.adapters.report_sections import Section, sections
from services.audit.core.remainders import report_rows
from services.audit.core.audit import AuditResult
from services.audit.core.findings import CHECKS, Discrepancy
from services.audit.adapters.report_plots import write_plots
from shared.par_sheets import MATH_DOCS, par_rtp
from shared.config import AUDIT_JSON


def report_json(
    result: AuditResult, discrepancies: list[Discrepancy], projection: str, math_docs: Path = MATH_DOCS
) -> dict[str, Any]:
    scope = result.scope
    return {
        "scope": {
            "since_ms": scope.since_ms,
            "until_ms": scope.until_ms,
            "player_id": scope.player_id,
            "network_id": scope.network_id,
        },
        "projection": projection,
        "counts": result.counts,
        "discrepancy_count": len(discrepancies),
        "discrepancies": [finding.as_json() for finding in discrepancies],
        "in_flight": dict(result.jackpots.in_flight),
        "liabilities": [
            vars(liability) | {"balanced": liability.balanced} for liability in result.jackpots.liabilities
        ],
        "pools": [
            {
                "pool_id": p.pool_id,
                "network_id": p.network_id,
                "currency": p.currency,
                "level_micro": p.level_micro,
                "initial_micro": p.initial_micro,
                "contributions_micro": p.contributions_micro,
                "seeds_micro": p.seeds_micro,
                "paid_micro": p.paid_micro,
                "movements": p.movements,
            }
            for p in result.pools.pools.values()
        ],
        "remainders": report_rows(result.ledger.remainders),
        "rtp": [sample.as_json(par_rtp(game, math_docs)) for game, sample in sorted(result.rtp.items())],
        "checks": CHECKS,
    }


def write_report(
    result: AuditResult, discrepancies: list[Discrepancy], out_dir: Path, projection: str, math_docs: Path = MATH_DOCS
) -> dict[str, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    body = report_json(result, discrepancies, projection, math_docs)
    paths = {"json": out_dir / AUDIT_JSON, "markdown": out_dir / "audit.md", "html": out_dir / "audit.html"}
    paths["json"].write_text(json.dumps(body, indent=2, sort_keys=True, default=str))
    plots = write_plots(result, body, out_dir)
    paths |= plots
    parts = sections(body)
    paths["markdown"].write_text(markdown(parts, {name: path.name for name, path in plots.items()}))
    paths["html"].write_text(report_html.page(parts, plots))
    return paths


def markdown(parts: list[Section], plots: dict[str, str]) -> str:
    lines: list[str] = []
    for part in parts:
        lines += [f"{'#' if part.level == 1 else '##'} {part.title}", ""]
        lines += [f"**{part.verdict}**", ""] if part.verdict else []
        lines += [paragraph + "\n" for paragraph in part.paragraphs]
        if part.table:
            header, *rows = part.table
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
            lines.append("")
        lines += [f"![{part.title}]({plots[name]})\n" for name in part.plots if name in plots]
    return "\n".join(lines).rstrip() + "\n"
