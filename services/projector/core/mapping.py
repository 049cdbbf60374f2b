"""Pure row mapping: one decoded event and where it was read → the rows it adds to each projected table."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

import orjson

from shared.events import Envelope
from shared.events import jackpot as jp
from shared.events import monitor, seamless, spin, wallet
from shared.invariant import invariant
from services.projector.core.tables import COLUMNS

Row = tuple[Any, ...]


class RecordMeta(NamedTuple):
    """Where a record was read: its topic, partition, offset and broker time (LogAppendTime). A named tuple: one is
    made per record (a frozen dataclass costs ~3x as much to construct)."""

    topic: str
    partition: int
    offset: int
    broker_time: datetime


def _json(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _data_json(data: Any) -> str:
    return _json(data.model_dump(mode="json"))


def event_row(env: Envelope[Any], meta: RecordMeta) -> Row:
    return (
        env.id,
        env.type,
        env.source,
        env.subject,
        env.time,
        meta.topic,
        meta.partition,
        meta.offset,
        meta.broker_time,
        env.correlationid,
        env.causationid,
    )


def _spin_settled(env: Envelope[Any], d: spin.SpinSettled, bt: datetime) -> list[tuple[str, Row]]:
    awards = _json([award.model_dump(mode="json") for award in d.jackpot_awards])
    return [
        (
            "spins",
            (
                env.id,
                d.request_id,
                d.player_id,
                d.game,
                d.currency,
                d.operator_id,
                d.stake_minor,
                d.win_minor,
                d.house_win_minor,
                d.jackpot_win_minor,
                d.breakage_micro,
                d.contribution_micro,
                d.balance_after_minor,
                d.model_version,
                d.seed,
                _json(d.state_before),
                _json(d.state_after),
                _json(d.outcome),
                awards,
                d.settled_at,
                bt,
            ),
        )
    ]


def _spin_rejected(env: Envelope[Any], d: spin.SpinRejected, bt: datetime) -> list[tuple[str, Row]]:
    return [("spin_rejections", (env.id, d.request_id, d.player_id, d.code, d.message, d.game, d.stake_minor, bt))]


def _journal(env: Envelope[Any], d: Any, bt: datetime) -> list[tuple[str, Row]]:
    return [
        (
            "spin_journal",
            (
                env.id,
                env.type,
                getattr(d, "request_id", None),
                env.subject,
                getattr(d, "game", None),
                _data_json(d),
                bt,
            ),
        )
    ]


def _posted(env: Envelope[Any], d: Any, bt: datetime) -> list[tuple[str, Row]]:
    get = d.__dict__.get  # the optional columns of the five posting events (a missing pydantic attribute is slow)
    transaction = (
        env.id,
        env.type,
        d.transaction_id,
        d.player_id,
        d.currency,
        get("amount_minor"),
        get("win_minor"),
        get("house_win_minor"),
        get("jackpot_win_minor"),
        get("breakage_micro"),
        get("contribution_micro"),
        get("wager_id"),
        get("game"),
        get("operator_id"),
        get("network_id"),
        get("reason"),
        d.balance_after_minor,
        d.recorded_at,
        bt,
    )
    postings = [
        ("ledger_postings", (env.id, seq, p.account, d.currency, p.amount_micro, d.player_id, d.recorded_at, bt))
        for seq, p in enumerate(d.postings)
    ]
    return [("wallet_transactions", transaction), *postings]


def _wallet_rejected(env: Envelope[Any], d: wallet.CommandRejected, bt: datetime) -> list[tuple[str, Row]]:
    return [
        (
            "wallet_rejections",
            (
                env.id,
                d.transaction_id,
                d.player_id,
                d.command_type,
                d.code,
                d.message,
                d.currency,
                d.wager_id,
                d.recorded_at,
                bt,
            ),
        )
    ]


def _player_control(env: Envelope[Any], d: Any, bt: datetime) -> list[tuple[str, Row]]:
    return [("player_controls", (env.id, env.type, d.player_id, _data_json(d), d.recorded_at, bt))]


def _movement(env: Envelope[Any], seq: int, kind: str, d: Any, m: jp.PoolMovement, bt: datetime) -> tuple[str, Row]:
    return (
        "pool_movements",
        (
            env.id,
            seq,
            kind,
            m.pool_id,
            d.network_id,
            getattr(d, "currency", None),
            m.opening_micro,
            m.contributions_micro,
            m.seeds_micro,
            m.paid_micro,
            m.closing_micro,
            d.recorded_at,
            bt,
            m.transferred_in_micro,
            m.transferred_out_micro,
        ),
    )


def _contributions(env: Envelope[Any], d: jp.ContributionsApplied, bt: datetime) -> list[tuple[str, Row]]:
    rows = [_movement(env, seq, "contributions", d, m, bt) for seq, m in enumerate(d.movements)]
    rows += [
        (
            "contributions",
            (
                env.id,
                seq,
                c.contribution_id,
                d.network_id,
                d.currency,
                c.game,
                c.player_id,
                c.operator_id,
                c.stake_minor,
                c.amount_micro,
                d.recorded_at,
                bt,
            ),
        )
        for seq, c in enumerate(d.contributions)
    ]
    return rows


def _won(env: Envelope[Any], d: jp.JackpotWon, bt: datetime) -> list[tuple[str, Row]]:
    return [
        _movement(env, 0, "won", d, d.movement, bt),
        (
            "jackpot_wins",
            (
                env.id,
                d.claim_id,
                d.request_id,
                d.network_id,
                d.pool_id,
                d.tier,
                d.player_id,
                d.operator_id,
                d.currency,
                d.stake_minor,
                d.share_ppm,
                d.amount_minor,
                d.level_before_micro,
                d.level_after_micro,
                d.recorded_at,
                bt,
            ),
        ),
    ]


def _reseeded(env: Envelope[Any], d: jp.PoolReseeded, bt: datetime) -> list[tuple[str, Row]]:
    return [
        _movement(env, 0, "reseeded", d, d.movement, bt),
        (
            "pool_reseeds",
            (
                env.id,
                d.pool_id,
                d.network_id,
                d.currency,
                d.seed_micro,
                d.cause_claim_id,
                d.recorded_at,
                bt,
            ),
        ),
    ]


def _claim_rejected(env: Envelope[Any], d: jp.ClaimRejected, bt: datetime) -> list[tuple[str, Row]]:
    return [
        (
            "claim_rejections",
            (
                env.id,
                d.claim_id,
                d.request_id,
                d.network_id,
                d.player_id,
                d.tier,
                d.code,
                d.message,
                d.recorded_at,
                bt,
            ),
        )
    ]


def _pool_admin(env: Envelope[Any], d: Any, bt: datetime) -> list[tuple[str, Row]]:
    movements = (d.movement,) if hasattr(d, "movement") else getattr(d, "movements", ())
    kind = _ADMIN_KIND.get(env.type, "status-changed")
    rows = [_movement(env, seq, kind, d, m, bt) for seq, m in enumerate(movements)]
    return rows + [("pool_admin", (env.id, env.type, d.pool_id, d.network_id, _data_json(d), d.recorded_at, bt))]


def _meter(env: Envelope[Any], d: jp.JackpotMeter, bt: datetime) -> list[tuple[str, Row]]:
    row = (
        env.id,
        d.pool_id,
        d.network_id,
        d.currency,
        d.level_minor,
        d.as_of,
        bt,
        d.kind or "random",
        d.ceiling_minor,
        d.commitment,
    )
    return [("meters", row)]


def _drop_committed(env: Envelope[Any], d: jp.DropPointCommitted, bt: datetime) -> list[tuple[str, Row]]:
    row = (env.id, d.pool_id, d.network_id, d.kind, d.cycle, d.commitment, d.ceiling_micro)
    return [("pool_commitments", (*row, d.window_start, d.window_end, d.recorded_at, bt))]


def _drop_revealed(env: Envelope[Any], d: jp.DropRevealed, bt: datetime) -> list[tuple[str, Row]]:
    row = (env.id, d.pool_id, d.network_id, d.kind, d.cycle, d.commitment, d.drop_value, d.salt, d.claim_id)
    return [("pool_drops", (*row, d.contribution_id, d.level_micro, d.recorded_at, bt))]


_ADMIN_KIND = {jp.PoolOpened.TYPE: "opened", jp.PoolFundedFromReserve.TYPE: "funded-from-reserve"}
_Mapper = Callable[[Envelope[Any], Any, datetime], list[tuple[str, Row]]]
_BY_TYPE: dict[str, _Mapper] = {
    spin.SpinSettled.TYPE: _spin_settled,
    spin.SpinRejected.TYPE: _spin_rejected,
    spin.SeedDrawn.TYPE: _journal,
    spin.BonusRingForfeited.TYPE: _journal,
    spin.RemainderStranded.TYPE: _journal,
    spin.SpinVoided.TYPE: _journal,
    wallet.Deposited.TYPE: _posted,
    wallet.Withdrawn.TYPE: _posted,
    wallet.WagerDebited.TYPE: _posted,
    wallet.WagerSettled.TYPE: _posted,
    wallet.WagerRefunded.TYPE: _posted,
    wallet.RemainderCredited.TYPE: _posted,
    wallet.CommandRejected.TYPE: _wallet_rejected,
    wallet.LimitSet.TYPE: _player_control,
    wallet.SelfExcluded.TYPE: _player_control,
    wallet.AccountClosed.TYPE: _player_control,
    jp.ContributionsApplied.TYPE: _contributions,
    jp.JackpotWon.TYPE: _won,
    jp.PoolReseeded.TYPE: _reseeded,
    jp.ClaimRejected.TYPE: _claim_rejected,
    jp.JackpotMeter.TYPE: _meter,
    jp.PoolOpened.TYPE: _pool_admin,
    jp.PoolStatusChanged.TYPE: _pool_admin,
    jp.PoolCommandRejected.TYPE: _pool_admin,
    jp.PoolFundedFromReserve.TYPE: _pool_admin,
    jp.DropPointCommitted.TYPE: _drop_committed,
    jp.DropRevealed.TYPE: _drop_revealed,
    spin.SpinAccepted.TYPE: _journal,
    # The monitor's alerts have no typed table: an `events` row only (the projector does not read monitor.alerts).
    monitor.RtpOutOfBand.TYPE: lambda env, d, bt: [],
    monitor.PoolDrifted.TYPE: lambda env, d, bt: [],
    # The seamless rounds' record has no typed table yet: an `events` row only (the projector does not read
    # wallet.seamless; reconciliation reads it).
    **{event.TYPE: lambda env, d, bt: [] for event in seamless.SEAMLESS_EVENTS},
}


def rows_of(env: Envelope[Any], meta: RecordMeta) -> list[tuple[str, Row]]:
    """The (table, row) pairs one event adds: its `events` row first, then its typed rows (none for unknown types).

    Rows say what the event says, even when it breaks a business identity (unbalanced postings, a pool movement that
    does not add up): the projection mirrors the log and the audit names the discrepancy; the projector never stops.

    A decodable event of a type this projector has no table for still lands in `events`, so nothing is lost and a later
    migration can fill its table from a rebuild.
    """
    mapper = _BY_TYPE.get(env.type)
    typed = mapper(env, env.data, meta.broker_time) if mapper else []
    if mapper is None and env.subject and _is_journal(meta.topic):
        typed = _journal(env, env.data, meta.broker_time)
    for table, row in typed:
        if (env.type, table) not in _WIDTH_CHECKED:  # one mapper per table writes fixed-width rows: check once
            invariant(
                len(row) == len(COLUMNS[table]), f"{table}: row has {len(row)} values, {len(COLUMNS[table])} columns"
            )
            _WIDTH_CHECKED.add((env.type, table))
    return [("events", event_row(env, meta)), *typed]


_WIDTH_CHECKED: set[tuple[str, str]] = set()


def _is_journal(topic: str) -> bool:
    return topic.endswith("spin.journal")


def mapped_types() -> tuple[str, ...]:
    return tuple(_BY_TYPE)
