"""The projection, checked row by row against an independent fold of the same events (never the projector's code); a row
the projector has not reached yet is lag, not a discrepancy (docs/audit.md)."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from services.audit.core.audit import AuditResult
from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy
from services.audit.core.rederive import as_json
from shared.events import jackpot as jp
from shared.events import spin as sp
from shared.events import wallet as wl

Key = tuple[Any, ...]
Table = dict[Key, dict[str, Any]]
# The key columns of each compared table (the other columns compared are those the expected row names).
KEYS: dict[str, tuple[str, ...]] = {
    "events": ("event_id",),
    "spins": ("event_id",),
    "wallet_transactions": ("event_id",),
    "ledger_postings": ("event_id", "seq"),
    "account_balances": ("account", "currency"),
    "pool_movements": ("event_id", "seq"),
    "pools": ("pool_id",),
    "contributions": ("event_id", "seq"),
    "jackpot_wins": ("event_id",),
    "pool_reseeds": ("event_id",),
}
AGGREGATES = {"account_balances": "wallet.events", "pools": "jackpot.events"}
_MOVEMENT_KIND = {jp.ContributionsApplied: "contributions", jp.JackpotWon: "won", jp.PoolReseeded: "reseeded"}


def normal(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, (dict, list, tuple)):
        return as_json(value)
    return value


def _row(**columns: Any) -> dict[str, Any]:
    return {name: normal(value) for name, value in columns.items()}


@dataclass
class Expected:
    tables: dict[str, Table] = field(default_factory=lambda: {name: {} for name in KEYS})
    owner: dict[tuple[str, Key], Fact] = field(default_factory=dict)  # (table, key) -> the fact that made the row

    def add(self, table: str, fact: Fact | None, row: dict[str, Any]) -> None:
        key = tuple(row[name] for name in KEYS[table])
        self.tables[table][key] = row
        if fact is not None:
            self.owner[(table, key)] = fact


def expected_rows(result: AuditResult) -> Expected:
    """Every row the read events imply, in the projection's documented shape (docs/projection.md)."""
    expected = Expected()
    for fact in result.facts.facts:
        expected.add(
            "events",
            fact,
            _row(
                event_id=fact.envelope.id,
                type=fact.envelope.type,
                subject=fact.envelope.subject,
                partition=fact.partition,
                offset=fact.offset,
            ),
        )
        data = fact.data
        if isinstance(data, sp.SpinSettled):
            _spin(expected, fact, data)
        elif isinstance(data, wl.POSTED_EVENTS):
            _posted(expected, fact, data)
        elif fact.topic == "jackpot.events":
            _jackpot(expected, fact, data)
    balances = Counter()
    for (account, currency), amount in result.ledger.balances_micro.items():
        balances[(account, currency)] = amount
    postings = Counter((row["account"], row["currency"]) for row in expected.tables["ledger_postings"].values())
    for (account, currency), count in postings.items():
        expected.add(
            "account_balances",
            None,
            _row(account=account, currency=currency, balance_micro=balances[(account, currency)], postings=count),
        )
    for pool in result.pools.pools.values():
        expected.add(
            "pools",
            None,
            _row(
                pool_id=pool.pool_id, network_id=pool.network_id, currency=pool.currency, level_micro=pool.level_micro
            ),
        )
    return expected


def _spin(expected: Expected, fact: Fact, d: sp.SpinSettled) -> None:
    expected.add(
        "spins",
        fact,
        _row(
            event_id=fact.envelope.id,
            request_id=d.request_id,
            player_id=d.player_id,
            game=d.game,
            currency=d.currency,
            operator_id=d.operator_id,
            stake_minor=d.stake_minor,
            win_minor=d.win_minor,
            house_win_minor=d.house_win_minor,
            jackpot_win_minor=d.jackpot_win_minor,
            breakage_micro=d.breakage_micro,
            contribution_micro=d.contribution_micro,
            balance_after_minor=d.balance_after_minor,
            model_version=d.model_version,
            seed=d.seed,
            state_before=d.state_before,
            state_after=d.state_after,
            outcome=d.outcome,
            jackpot_awards=[a.model_dump(mode="json") for a in d.jackpot_awards],
            settled_at=d.settled_at,
        ),
    )


def _posted(expected: Expected, fact: Fact, d: Any) -> None:
    expected.add(
        "wallet_transactions",
        fact,
        _row(
            event_id=fact.envelope.id,
            type=fact.envelope.type,
            transaction_id=d.transaction_id,
            player_id=d.player_id,
            currency=d.currency,
            amount_minor=getattr(d, "amount_minor", None),
            win_minor=getattr(d, "win_minor", None),
            house_win_minor=getattr(d, "house_win_minor", None),
            jackpot_win_minor=getattr(d, "jackpot_win_minor", None),
            breakage_micro=getattr(d, "breakage_micro", None),
            contribution_micro=getattr(d, "contribution_micro", None),
            wager_id=getattr(d, "wager_id", None),
            network_id=getattr(d, "network_id", None),
            balance_after_minor=d.balance_after_minor,
            recorded_at=d.recorded_at,
        ),
    )
    for seq, posting in enumerate(d.postings):
        expected.add(
            "ledger_postings",
            fact,
            _row(
                event_id=fact.envelope.id,
                seq=seq,
                account=posting.account,
                currency=d.currency,
                amount_micro=posting.amount_micro,
                player_id=d.player_id,
            ),
        )


def _jackpot(expected: Expected, fact: Fact, d: Any) -> None:
    movements = tuple(getattr(d, "movements", ())) or ((d.movement,) if getattr(d, "movement", None) else ())
    kind = _MOVEMENT_KIND.get(type(d))
    for seq, m in enumerate(movements):
        row = _row(
            event_id=fact.envelope.id,
            seq=seq,
            pool_id=m.pool_id,
            network_id=d.network_id,
            opening_micro=m.opening_micro,
            contributions_micro=m.contributions_micro,
            seeds_micro=m.seeds_micro,
            paid_micro=m.paid_micro,
            closing_micro=m.closing_micro,
            transferred_in_micro=m.transferred_in_micro,
            transferred_out_micro=m.transferred_out_micro,
        )
        if kind:
            row["kind"] = kind
        expected.add("pool_movements", fact, row)
    if isinstance(d, jp.ContributionsApplied):
        for seq, c in enumerate(d.contributions):
            expected.add(
                "contributions",
                fact,
                _row(
                    event_id=fact.envelope.id,
                    seq=seq,
                    contribution_id=c.contribution_id,
                    network_id=d.network_id,
                    currency=d.currency,
                    game=c.game,
                    player_id=c.player_id,
                    operator_id=c.operator_id,
                    stake_minor=c.stake_minor,
                    amount_micro=c.amount_micro,
                ),
            )
    elif isinstance(d, jp.JackpotWon):
        expected.add(
            "jackpot_wins",
            fact,
            _row(
                event_id=fact.envelope.id,
                claim_id=d.claim_id,
                request_id=d.request_id,
                network_id=d.network_id,
                pool_id=d.pool_id,
                tier=d.tier,
                player_id=d.player_id,
                operator_id=d.operator_id,
                currency=d.currency,
                stake_minor=d.stake_minor,
                share_ppm=d.share_ppm,
                amount_minor=d.amount_minor,
                level_before_micro=d.level_before_micro,
                level_after_micro=d.level_after_micro,
            ),
        )
    elif isinstance(d, jp.PoolReseeded):
        expected.add(
            "pool_reseeds",
            fact,
            _row(
                event_id=fact.envelope.id,
                pool_id=d.pool_id,
                network_id=d.network_id,
                currency=d.currency,
                seed_micro=d.seed_micro,
                cause_claim_id=d.cause_claim_id,
            ),
        )


@dataclass(frozen=True)
class Snapshot:
    """What the adapter read from Postgres: rows per table (normalized), the projector's positions, and which
    event (contract topic, partition, offset) each projected event id came from."""

    tables: dict[str, list[dict[str, Any]]]
    positions: dict[tuple[str, int], int]  # (contract topic, partition) -> next offset
    event_sources: dict[str, tuple[str, int, int]]  # event id -> (contract topic, partition, offset)


def compare_projection(
    result: AuditResult, snapshot: Snapshot, end_offsets: dict[tuple[str, int], int]
) -> list[Discrepancy]:
    """Row-by-row differences between the fold and the projection, inside the audit's scope."""
    expected = expected_rows(result)
    found: list[Discrepancy] = []
    for table, keys in KEYS.items():
        if table in AGGREGATES and not _caught_up(AGGREGATES[table], snapshot.positions, end_offsets):
            continue
        actual = {tuple(normal(row.get(name)) for name in keys): row for row in snapshot.tables.get(table, [])}
        found += _compare_table(table, expected, actual, snapshot, end_offsets, result)
    return [finding for finding in found if result.scope.keeps(finding)]


def _caught_up(topic: str, positions: dict, end_offsets: dict) -> bool:
    ends = {key: offset for key, offset in end_offsets.items() if key[0] == topic}
    return all(positions.get(key, 0) == offset for key, offset in ends.items())


def _compare_table(
    table: str, expected: Expected, actual: dict[Key, dict], snapshot: Snapshot, end_offsets: dict, result: AuditResult
) -> Iterable[Discrepancy]:
    for key, row in expected.tables[table].items():
        fact = expected.owner.get((table, key))
        if fact is not None and snapshot.positions.get((fact.topic, fact.partition), 0) <= fact.offset:
            continue  # the projector has not reached this event yet
        projected = actual.get(key)
        if projected is None:
            yield _finding("projection-row-missing", table, key, "no such row", row, fact)
            continue
        differing = [name for name in row if normal(projected.get(name)) != row[name]]
        if differing:
            detail = "; ".join(
                f"{name}: projection {normal(projected.get(name))!r}, events {row[name]!r}" for name in differing
            )
            yield _finding("projection-row-differs", table, key, detail, row, fact)
    for key, row in actual.items():
        if key in expected.tables[table] or _beyond_read(row, snapshot, end_offsets):
            continue
        yield _finding(
            "projection-row-extra",
            table,
            key,
            "no event read implies this row",
            {k: normal(v) for k, v in row.items()},
            None,
        )


def _beyond_read(row: dict, snapshot: Snapshot, end_offsets: dict) -> bool:
    """A row of an event stored after the audit's captured end offsets is the projector being ahead, not a fault."""
    source = snapshot.event_sources.get(normal(row.get("event_id")))
    if source is None:
        return False
    topic, partition, offset = source
    return offset >= end_offsets.get((topic, partition), 0)


def _finding(check: str, table: str, key: Key, detail: str, row: dict, fact: Fact | None) -> Discrepancy:
    return Discrepancy(
        check,
        f"{table} {'/'.join(str(part) for part in key)}",
        detail,
        event_id=fact.id if fact else row.get("event_id"),
        where=fact.where if fact else f"projection.{table}",
        at_ms=fact.timestamp_ms if fact else None,
        player_id=row.get("player_id"),
        network_id=row.get("network_id"),
    )
