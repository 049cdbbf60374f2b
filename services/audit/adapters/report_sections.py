"""The audit report's content, once, for Markdown and HTML: sections of words and tables of display strings
(amounts in major units with their currency, percentages, yes/no), never raw dicts, None or micro-units."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from shared.display.cells import Money
from shared.display.amounts import cell_text
from shared.display.times import table_time
from shared.display.units import Units


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    table: list[list[str]] = field(default_factory=list)  # header row first
    plots: list[str] = field(default_factory=list)  # names of plots (report_plots) shown under the section
    level: int = 2
    verdict: str = ""  # the report's one-line answer, shown prominently under the top title


def _money(amount_micro: int, currency: str) -> str:
    return cell_text(Money.micro(amount_micro, currency), Units.major)


def scope_in_words(scope: dict[str, Any]) -> str:
    since = (
        f"from {table_time(scope['since_ms'])} UTC" if scope.get("since_ms") is not None else "from the first record"
    )
    until = (
        f"up to {table_time(scope['until_ms'])} UTC"
        if scope.get("until_ms") is not None
        else "up to the end offsets captured when the audit started"
    )
    who = f"player {scope['player_id']} only" if scope.get("player_id") else "every player"
    where = f"jackpot network {scope['network_id']} only" if scope.get("network_id") else "every jackpot network"
    return (
        f"Spins re-derived and findings reported {since} {until}, for {who} and {where}. Balances and pool "
        "levels are always folded from the start of history."
    )


def _percent(fraction: float, digits: int = 4) -> str:
    return "-" if fraction is None or math.isnan(fraction) or math.isinf(fraction) else f"{fraction * 100:.{digits}f} %"


def _rtp(body: dict[str, Any]) -> Section:
    table = [["game", "spins", "observed RTP", "95 % band", "par (par sheet)", "par inside band"]]
    for row in body["rtp"]:
        band = (
            "too few spins"
            if math.isinf(row["band_high"])
            else f"{_percent(row['band_low'], 2)} – {_percent(row['band_high'], 2)}"
        )
        inside = {True: "yes", False: "no", None: "not judged (fewer than 2 spins)"}[row["par_inside_band"]]
        table.append(
            [
                row["game"],
                f"{row['spins']:,}",
                _percent(row["rtp"]),
                band,
                _percent(row["par_rtp"]) if row["par_rtp"] is not None else "no par sheet found",
                inside,
            ]
        )
    words = (
        "Observed return = (house win paid + breakage + pool contribution) / stakes, the basis of the par "
        "sheets. A short history lands far from par; the band says how far is still chance."
    )
    return Section("Return to player per game", [words], table if body["rtp"] else [], ["plot_rtp"])


def _findings(body: dict[str, Any]) -> Section:
    if not body["discrepancies"]:
        checks = len(body["checks"])
        return Section("Findings", [f"No finding: every one of the {checks} checks (listed at the end) passed."])
    table = [["check", "subject", "detail", "where"]]
    table += [[d["check"], d["subject"], d["detail"], d.get("where") or "-"] for d in body["discrepancies"]]
    return Section("Findings", [f"{body['discrepancy_count']} discrepancies."], table)


def _pools(body: dict[str, Any]) -> Section:
    table = [["pool", "network", "level", "initial seed", "contributions", "reseeds", "paid", "movements"]]
    for p in sorted(body["pools"], key=lambda p: (p["network_id"], p["pool_id"])):
        c = p["currency"]
        table.append(
            [
                p["pool_id"],
                p["network_id"],
                _money(p["level_micro"], c),
                _money(p["initial_micro"], c),
                _money(p["contributions_micro"], c),
                _money(p["seeds_micro"], c),
                _money(p["paid_micro"], c),
                f"{p['movements']:,}",
            ]
        )
    words = "Per pool: initial seed + contributions + reseeds - paid = level, exactly (checked in micro-units)."
    return Section("Jackpot pools", [words], table if body["pools"] else [], ["plot_pools"])


def _liabilities(body: dict[str, Any]) -> Section:
    table = [["network", "owed per the wallet", "owed per the pools", "in flight", "balanced"]]
    for item in body["liabilities"]:
        c = item["currency"]
        table.append(
            [
                item["network_id"],
                _money(item["wallet_micro"], c),
                _money(item["pools_micro"], c),
                _money(item["in_flight_micro"], c),
                "yes" if item["balanced"] else "no",
            ]
        )
    words = "The jackpot liability as the wallet's postings hold it and as the pools' levels hold it."
    return Section("Jackpot liability", [words], table if body["liabilities"] else [])


def _remainders(body: dict[str, Any]) -> Section:
    table = [["currency", "players", "outstanding"]]
    for row in body.get("remainders", []):
        table.append([row["currency"], f"{row['players']:,}", _money(row["outstanding_micro"], row["currency"])])
    words = (
        "The sub-cent remainders the house owes players until a spin completes them or the wallet credits them "
        "(rounded up to a cent), as the wallet's record holds them; the audit checks them against the spins' state."
    )
    return Section("Outstanding remainders", [words], table if len(table) > 1 else [])


def sections(body: dict[str, Any]) -> list[Section]:
    count = body["discrepancy_count"]
    verdict = "0 discrepancies" if not count else f"{count} discrepancies"
    counts = body["counts"]
    read = (
        f"Read {counts['records']:,} records ({counts['distinct_events']:,} distinct events, "
        f"{counts['redeliveries_collapsed']:,} redeliveries collapsed); re-derived {counts['spins_rederived']:,} "
        f"spins; {counts['wagers']:,} wagers; {counts['pool_movements']:,} pool movements. "
        f"Projection: {body['projection']}."
    )
    in_flight = (
        [
            "In flight at the captured end offsets (not faults): "
            + ", ".join(f"{k}: {v}" for k, v in body["in_flight"].items())
        ]
        if body["in_flight"]
        else []
    )
    types = [["event type", "events"]] + [
        [name[5:], f"{value:,}"] for name, value in counts.items() if name.startswith("type:")
    ]
    return [
        Section("Audit report", [scope_in_words(body["scope"]), read, *in_flight], level=1, verdict=verdict),
        _findings(body),
        _rtp(body),
        _pools(body),
        _liabilities(body),
        _remainders(body),
        Section("Events read", [], types if len(types) > 1 else []),
        Section("Checks performed", [], [["check", "a finding when"], *map(list, body["checks"].items())]),
    ]
