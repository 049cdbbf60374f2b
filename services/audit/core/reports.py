"""Operator and regulator reports from the folds: daily GGR, jackpot liability, and the jackpot reconciliation. GGR =
stakes - house wins - jackpot contributions, in micro-units; jackpot wins are paid from those contributions."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from services.audit.core import remainders
from services.audit.core.ledger import Ledger
from services.audit.core.owed import owed_per_network
from services.audit.core.pools import Pools
from services.audit.core.seamless import Round
from shared.money import MICRO_PER_MINOR
from shared.pools import PoolsConfig, load_pools

Row = dict[str, Any]


def _day(timestamp_ms: int) -> str:
    return datetime.fromtimestamp(timestamp_ms / 1000, timezone.utc).date().isoformat()


def ggr_rows(ledger: Ledger) -> list[Row]:
    """One row per (day of settlement, game, currency, operator) over settled wagers; refunded wagers are no revenue.
    A remainder the house credited (rounded up to a cent) is paid out on the day of the credit."""
    totals: dict[tuple, Row] = {}
    for wager in ledger.wagers.values():
        if wager.settlement is None:
            continue
        debit, settled = wager.data, wager.settlement.data
        key = (_day(wager.settlement.timestamp_ms), debit.game, debit.currency, debit.operator_id or "")
        row = _ggr_row(totals, key)
        _add_wager(row, debit, settled)
    for fact in ledger.credits:
        credit = fact.data
        wager = ledger.wagers.get(str(credit.wager_id))
        operator = (wager.data.operator_id or "") if wager is not None else ""
        row = _ggr_row(totals, (_day(fact.timestamp_ms), credit.game, credit.currency, operator))
        row["remainder_credits_minor"] += credit.amount_minor
        row["ggr_micro"] -= credit.amount_minor * MICRO_PER_MINOR
    return [totals[key] for key in sorted(totals)]


def _ggr_row(totals: dict[tuple, Row], key: tuple) -> Row:
    return totals.setdefault(
        key,
        {
            "day": key[0],
            "game": key[1],
            "currency": key[2],
            "operator_id": key[3],
            "wagers": 0,
            "stakes_minor": 0,
            "house_wins_minor": 0,
            "breakage_micro": 0,
            "contributions_micro": 0,
            "jackpot_wins_minor": 0,
            "remainder_credits_minor": 0,
            "ggr_micro": 0,
        },
    )


def _add_wager(row: Row, debit, settled) -> None:
    row["wagers"] += 1
    row["stakes_minor"] += debit.amount_minor
    row["house_wins_minor"] += settled.house_win_minor
    row["breakage_micro"] += settled.breakage_micro
    row["contributions_micro"] += settled.contribution_micro
    row["jackpot_wins_minor"] += settled.jackpot_win_minor
    row["ggr_micro"] += (
        (debit.amount_minor - settled.house_win_minor) * MICRO_PER_MINOR
        - settled.breakage_micro
        - settled.contribution_micro
    )


def liability_rows(pools: Pools, config: PoolsConfig | None = None, ledger: Ledger | None = None) -> list[Row]:
    """Per pool: the level owed to players and how it came about (for must-drop pools also the reserve taken in and
    the overflow sent on: contributions + transferred_in + seeds - paid - transferred_out = level), with its kind;
    per operator: what its players put in and won; per currency: the players' outstanding sub-cent remainders, which
    the house owes until a spin completes them or the wallet credits them (`ledger` given)."""
    rows = [
        {
            "kind": "pool",
            "network_id": p.network_id,
            "pool_id": p.pool_id,
            "operator_id": "",
            "currency": p.currency,
            "level_micro": p.level_micro,
            "contributions_micro": p.contributions_micro,
            "seeds_micro": p.initial_micro + p.seeds_micro,
            "paid_micro": p.paid_micro,
            "pool_kind": _pool_kind(config, p.network_id, p.pool_id),
            "transferred_in_micro": p.transferred_in_micro,
            "transferred_out_micro": p.transferred_out_micro,
        }
        for p in sorted(pools.pools.values(), key=lambda p: p.pool_id)
    ]
    by_operator: dict[tuple[str, str], Row] = defaultdict(dict)
    for applied, fact in pools.applied.values():
        row = _operator_row(by_operator, fact.data.network_id, applied.operator_id or "", fact.data.currency)
        row["contributions_micro"] += applied.amount_micro
    for fact in pools.wins.values():
        row = _operator_row(by_operator, fact.data.network_id, fact.data.operator_id or "", fact.data.currency)
        row["paid_micro"] += fact.data.amount_minor * MICRO_PER_MINOR
    for key in sorted(by_operator):
        row = by_operator[key]
        row["level_micro"] = row["contributions_micro"] - row["paid_micro"]  # the operator's net share of the liability
        rows.append(row)
    for owed in remainders.report_rows(ledger.remainders) if ledger is not None else []:
        rows.append(
            {
                "kind": "remainders",
                "network_id": "",
                "pool_id": "",
                "operator_id": "",
                "currency": owed["currency"],
                "level_micro": owed["outstanding_micro"],
                "contributions_micro": 0,
                "seeds_micro": 0,
                "paid_micro": 0,
                "pool_kind": f"{owed['players']} players' sub-cent remainders",
                "transferred_in_micro": 0,
                "transferred_out_micro": 0,
            }
        )
    return rows


def liability_by_pool_kind(rows: list[Row]) -> list[Row]:
    """The pools' liability summed per network, currency and pool kind (random, must-drop-*, reserve)."""
    totals: dict[tuple[str, str, str], Row] = {}
    for row in rows:
        if row["kind"] != "pool":
            continue
        key = (row["network_id"], row["currency"] or "", row["pool_kind"])
        total = totals.setdefault(
            key, {"network_id": key[0], "currency": key[1], "pool_kind": key[2], "pools": 0, "level_micro": 0}
        )
        total["pools"] += 1
        total["level_micro"] += row["level_micro"]
    return [totals[key] for key in sorted(totals)]


def _pool_kind(config: PoolsConfig | None, network_id: str, pool_id: str) -> str:
    try:
        return (config or load_pools()).network(network_id).pool(pool_id).kind
    except KeyError:
        return "unknown"


def _operator_row(rows: dict, network_id: str, operator_id: str, currency: str) -> Row:
    if not rows[(network_id, operator_id)]:
        rows[(network_id, operator_id)].update(
            {
                "kind": "operator",
                "network_id": network_id,
                "pool_id": "",
                "operator_id": operator_id,
                "currency": currency,
                "level_micro": 0,
                "contributions_micro": 0,
                "seeds_micro": 0,
                "paid_micro": 0,
                "pool_kind": "",
                "transferred_in_micro": 0,
                "transferred_out_micro": 0,
            }
        )
    return rows[(network_id, operator_id)]


def reconciliation_rows(ledger: Ledger, pools: Pools, config: PoolsConfig, rounds: dict[str, Round]) -> list[Row]:
    """Per network: contributions, seeds and payouts as the pools saw them and as the wallets moved them: the ledger's
    settlements, and the rounds seamless operators' wallets settled (`rounds`: wallet.seamless folded whole), counted
    by what they owe (services/audit/core/owed.py)."""
    seamless = owed_per_network(rounds, pools, config)
    rows = []
    for network in config.networks:
        mine = [p for p in pools.pools.values() if p.network_id == network.network_id]
        settled = [
            w.settlement.data
            for w in ledger.wagers.values()
            if w.settlement is not None and w.settlement.data.network_id == network.network_id
        ]
        owed = seamless.get(network.network_id, {"owed_micro": 0, "jackpot_wins_minor": 0})
        row = {
            "network_id": network.network_id,
            "currency": network.currency,
            "pools_contributions_micro": sum(p.contributions_micro for p in mine),
            "wallet_contributions_micro": sum(s.contribution_micro + s.breakage_micro for s in settled),
            "seamless_contributions_micro": owed["owed_micro"],
            "pools_seeds_micro": sum(p.initial_micro + p.seeds_micro for p in mine),
            "pools_paid_micro": sum(p.paid_micro for p in mine),
            "wallet_jackpot_credits_micro": sum(s.jackpot_win_minor for s in settled) * MICRO_PER_MINOR,
            "seamless_jackpot_credits_micro": owed["jackpot_wins_minor"] * MICRO_PER_MINOR,
            "pools_level_micro": sum(p.level_micro for p in mine),
            "wallet_liability_micro": ledger.jackpot_liability_micro(network.network_id, network.currency),
        }
        row["levels_identity_holds"] = (
            row["pools_seeds_micro"] + row["pools_contributions_micro"] - row["pools_paid_micro"]
            == row["pools_level_micro"]
        )
        row["contributions_difference_micro"] = (
            row["pools_contributions_micro"] - row["wallet_contributions_micro"] - row["seamless_contributions_micro"]
        )
        row["payouts_difference_micro"] = (
            row["pools_paid_micro"] - row["wallet_jackpot_credits_micro"] - row["seamless_jackpot_credits_micro"]
        )
        rows.append(row)
    return rows
