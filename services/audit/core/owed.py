"""What a seamless operator owes the jackpot networks, per network and currency (docs/seamless.md, "What an operator
owes"): the contributions of the rounds its wallet settled, by the one rule the spin and the jackpot apply, plus the
breakage the pools took from those spins, against what the pools credited; and the pool shares its win calls paid."""

from __future__ import annotations

from typing import Any

from services.audit.core.pools import Pools
from services.audit.core.seamless import Round, held_at_operators, wins_acknowledged
from shared.invariant import invariant
from shared.money import micro_floor_to_minor
from shared.pools import PoolsConfig

Row = dict[str, Any]


def betting_rounds(rounds: dict[str, Round], operator_id: str) -> dict[str, Round]:
    """`operator_id`'s rounds a bet was decided for, by wager id."""
    return {
        wager_id: round_
        for wager_id, round_ in rounds.items()
        if round_.bet is not None and round_.bet.data.operator_id == operator_id
    }


def settled_rounds(rounds: dict[str, Round], operator_id: str) -> dict[str, Round]:
    """`operator_id`'s rounds its wallet settled (one acknowledged win), by wager id: the stakes it kept a share of."""
    betting = betting_rounds(rounds, operator_id)
    return {wager_id: round_ for wager_id, round_ in betting.items() if len(wins_acknowledged(round_)) == 1}


def owed_rows(rounds: dict[str, Round], pools: Pools, config: PoolsConfig, operator_id: str) -> list[Row]:
    """One row per network and currency. `contributions`: Σ over the settled rounds of the stake × each pool's rate
    (`NetworkConfig.wager_contribution_micro`, exact in micro-units); `breakage`: what the pools took from those spins'
    sub-cent win remainders; `owed` = both; `pools_credited`: what jackpot.events credited for `operator_id`'s seamless
    rounds (any that bet), so a difference names a round counted on one side only or at another amount; the same for
    the pool shares (`jackpot_wins` in the acknowledged win calls, `pools_paid` by the pools). `payable`: `owed`
    rounded down to a minor unit, `carried` the sub-minor rest, payable once later rounds complete it (the report is
    cumulative, so a period's payable is the difference of two reports' and nothing is lost); `net` = payable − the
    pool shares the operator paid for reelstream (negative: reelstream owes the operator)."""
    settled = settled_rounds(rounds, operator_id)
    totals: dict[tuple[str, str], Row] = {}
    for wager_id, round_ in settled.items():
        bet, decided = round_.bet.data, round_.win_decided
        invariant(decided is not None, "an acknowledged win was decided")
        network = config.network_for_game(bet.game)
        row = _row(totals, network.network_id, bet.currency, operator_id)
        row["rounds"] += 1
        row["stakes_minor"] += bet.amount_minor
        row["contributions_micro"] += network.wager_contribution_micro(bet.amount_minor)
        applied = pools.applied.get(wager_id)
        row["breakage_micro"] += applied[0].breakage_micro if applied is not None else 0
        row["jackpot_wins_minor"] += decided.data.jackpot_win_minor
    betting = betting_rounds(rounds, operator_id)
    for wager_id, (applied, fact) in pools.applied.items():
        if wager_id in betting and applied.operator_id == operator_id:
            _row(totals, fact.data.network_id, fact.data.currency, operator_id)["pools_credited_micro"] += (
                applied.amount_micro
            )
    for fact in pools.wins.values():
        won = fact.data
        if str(won.request_id) in betting and won.operator_id == operator_id:
            _row(totals, won.network_id, won.currency, operator_id)["pools_paid_minor"] += won.amount_minor
    return [_closed(totals[key]) for key in sorted(totals)]


def owed_per_network(rounds: dict[str, Round], pools: Pools, config: PoolsConfig) -> dict[str, Row]:
    """Every seamless operator's `owed_micro` and `jackpot_wins_minor` (`owed_rows`), summed per network: what the
    pools credited and paid for rounds the operators' wallets settled, for the plain reconciliation beside the
    ledger's."""
    totals: dict[str, Row] = {}
    for operator_id in sorted({round_.bet.data.operator_id for round_ in held_at_operators(rounds).values()}):
        for row in owed_rows(rounds, pools, config, operator_id):
            total = totals.setdefault(row["network_id"], {"owed_micro": 0, "jackpot_wins_minor": 0})
            total["owed_micro"] += row["owed_micro"]
            total["jackpot_wins_minor"] += row["jackpot_wins_minor"]
    return totals


def differs(row: Row) -> bool:
    """Whether the pools credited or paid other amounts than the operator's settled rounds owe or carried."""
    return row["contributions_difference_micro"] != 0 or row["payouts_difference_minor"] != 0


def _row(totals: dict[tuple[str, str], Row], network_id: str, currency: str, operator_id: str) -> Row:
    return totals.setdefault(
        (network_id, currency),
        {
            "network_id": network_id,
            "currency": currency,
            "operator_id": operator_id,
            "rounds": 0,
            "stakes_minor": 0,
            "contributions_micro": 0,
            "breakage_micro": 0,
            "pools_credited_micro": 0,
            "jackpot_wins_minor": 0,
            "pools_paid_minor": 0,
        },
    )


def _closed(row: Row) -> Row:
    owed_micro = row["contributions_micro"] + row["breakage_micro"]
    payable_minor, carried_micro = micro_floor_to_minor(owed_micro)
    return {
        **{key: row[key] for key in ("network_id", "currency", "operator_id", "rounds", "stakes_minor")},
        **{key: row[key] for key in ("contributions_micro", "breakage_micro")},
        "owed_micro": owed_micro,
        "pools_credited_micro": row["pools_credited_micro"],
        "contributions_difference_micro": row["pools_credited_micro"] - owed_micro,
        "jackpot_wins_minor": row["jackpot_wins_minor"],
        "pools_paid_minor": row["pools_paid_minor"],
        "payouts_difference_minor": row["pools_paid_minor"] - row["jackpot_wins_minor"],
        "payable_minor": payable_minor,
        "carried_micro": carried_micro,
        "net_minor": payable_minor - row["jackpot_wins_minor"],
    }
