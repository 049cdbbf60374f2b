"""`reelstream jackpot ...`: pools (levels, totals, last winners, liability per operator), wins, live meters, and
the admin commands."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import typer
from rich.console import Console

from shared.config import load_settings
from shared import records as records_module
from shared.events import broker_time, encode, envelope
from shared.events import jackpot as jp
from shared.kafka import consumer, producer
from reelstream import arguments
from reelstream.output import FORMAT, UNITS, Column, Format, Money, Units, View, emit
from shared.pools import load_pools
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS

app = typer.Typer(no_args_is_help=True)
console = Console(highlight=False)

POOL_COLUMNS = [
    Column("network_id", "network", priority=6),
    Column("pool_id", "pool"),
    Column("status", "status", priority=3),
    Column("currency", "currency", priority=0),
    Column("level", "level", "money"),
    Column("contributions", "contributions", "money", priority=5),
    Column("seeds", "seeds", "money", priority=1),
    Column("paid", "paid", "money", priority=4),
    Column("wins", "wins", "number", priority=2),
    Column("last_winner", "last winner", priority=2),
    Column("last_win", "last win", "money", priority=2),
    Column("as_of", "as of", "time", priority=0),
]
LIABILITY_COLUMNS = [
    Column("network_id", "network"),
    Column("operator_id", "operator"),
    Column("currency", "currency", priority=0),
    Column("contributed", "contributed", "money"),
    Column("paid", "paid to its players", "money"),
    Column("net", "net", "money"),
]


def pool_views(states: dict) -> list[View]:
    """Every pool's level, totals and last win, and each operator's liability per network (amounts exact)."""
    pools, liabilities = [], []
    for state in states.values():
        currency = state.currency
        for pool in state.pools.values():
            last = pool.last_win
            pools.append(
                {
                    "network_id": state.network_id,
                    "pool_id": pool.pool_id,
                    "status": pool.status,
                    "currency": currency,
                    "level": Money.micro(pool.level_micro, currency),
                    "contributions": Money.micro(pool.contributions_micro, currency),
                    "seeds": Money.micro(pool.seeds_micro, currency),
                    "paid": Money.micro(pool.paid_micro, currency),
                    "wins": pool.wins,
                    "last_winner": last.player_id if last else None,
                    "last_win": Money(last.amount_minor, currency) if last else None,
                    "as_of": broker_time(state.last_recorded_ms),
                }
            )
        for operator_id, row in sorted(state.liability_by_operator.items()):
            liabilities.append(
                {
                    "network_id": state.network_id,
                    "operator_id": operator_id,
                    "currency": currency,
                    "contributed": Money.micro(row.contributed_micro, currency),
                    "paid": Money.micro(row.paid_micro, currency),
                    "net": Money.micro(row.net_micro, currency),
                }
            )
    return [
        View("pools", POOL_COLUMNS, pools, title="jackpot pools"),
        View("liability", LIABILITY_COLUMNS, liabilities, title="liability per operator"),
    ]


@app.command()
def pools(format: Format = FORMAT, units: Units = UNITS) -> None:
    """Every pool's level, totals and last winner, and each operator's liability, folded from jackpot.events."""
    from services.jackpot.adapters.history import fold_events, read_all

    settings = load_settings()
    states = fold_events(read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS), role="operator"))
    if not states:
        typer.echo("no jackpot events yet", err=True)
        raise typer.Exit(3)
    emit(pool_views(states), format, units, console)


WIN_COLUMNS = [
    Column("won_at", "won at", "time"),
    Column("player_id", "player"),
    Column("pool_id", "pool", priority=4),
    Column("tier", "tier", priority=2),
    Column("amount", "amount", "money"),
    Column("share_ppm", "share ppm", "number", priority=1),
    Column("level_before", "level before", "money", priority=3),
    Column("request_id", "spin request", "code", priority=0),
    Column("proof", "proof (record)", "code", priority=5),
]


def _events_of(records: list) -> Iterator[tuple[Any, Any]]:
    """(record, event) of every event the jackpot wrote on jackpot.events, a batch envelope's in order."""
    for record in records:
        events, _ = records_module.trusted_events(JACKPOT_EVENTS, record)
        for event in events:
            yield record, event


def win_rows(records: list) -> list[dict]:
    """Every JackpotWon, with the record that proves it (topic/partition/offset) and the spin it paid."""
    rows, seen = [], set()
    for record, event in _events_of(records):
        data = event.data
        if not isinstance(data, jp.JackpotWon) or event.id in seen:
            continue
        seen.add(event.id)
        rows.append(
            {
                "won_at": broker_time(record.timestamp),
                "player_id": data.player_id,
                "pool_id": data.pool_id,
                "tier": data.tier,
                "currency": data.currency,
                "amount": Money(data.amount_minor, data.currency),
                "share_ppm": data.share_ppm,
                "level_before": Money.micro(data.level_before_micro, data.currency),
                "request_id": str(data.request_id),
                "proof": f"{JACKPOT_EVENTS}/{record.partition}/{record.offset}",
            }
        )
    return rows


@app.command()
def wins(
    player: str = typer.Option(
        None, parser=arguments.id_prefix, metavar="PREFIX", help="Only players whose id starts with this."
    ),
    last: int = typer.Option(50, min=1, max=100_000, help="The newest N wins."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """Jackpot wins: who, when, how much, the share of which level, and the record that proves it."""
    from services.jackpot.adapters.history import read_all

    settings = load_settings()
    rows = win_rows(read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS)))
    rows = sorted((r for r in rows if not player or r["player_id"].startswith(player)), key=lambda r: r["won_at"])
    if not rows:
        typer.echo("no jackpot win yet" + (f" for players starting with {player!r}" if player else ""), err=True)
        raise typer.Exit(3)
    notes = [f"re-check one: reelstream recall --player {rows[-1]['player_id']} (the spin's seed, board and award)"]
    emit(View("wins", WIN_COLUMNS, rows[-last:], title="jackpot wins", notes=notes), format, units, console)


DROP_COLUMNS = [
    Column("dropped_at", "dropped at", "time"),
    Column("pool_id", "pool"),
    Column("cycle", "cycle", "number", priority=1),
    Column("drop_point", "drop point"),
    Column("paid", "paid", "money"),
    Column("verified", "reveal = commitment"),
    Column("commitment", "commitment", "code", priority=2),
    Column("proof", "proof (record)", "code", priority=0),
]


def drop_rows(records: list) -> list[dict]:
    """Every must-drop reveal, checked against the commitment its cycle published before play (on this log)."""
    from shared.money import format_minor
    from shared.pools.commitment import reveal_matches

    committed: dict[tuple[str, int], str] = {}
    paid: dict[str, jp.JackpotWon] = {}
    reveals = []
    for record, event in _events_of(records):
        data = event.data
        if isinstance(data, jp.DropPointCommitted):
            committed.setdefault((data.pool_id, data.cycle), data.commitment)
        elif isinstance(data, jp.JackpotWon):
            paid.setdefault(str(data.claim_id), data)
        elif isinstance(data, jp.DropRevealed):
            reveals.append((record, data))
    rows = []
    for record, data in reveals:
        published = committed.get((data.pool_id, data.cycle))
        won = paid.get(str(data.claim_id))
        currency = won.currency if won else ""
        ok = published == data.commitment and reveal_matches(data.commitment, data.drop_value, data.salt)
        if data.kind == "must-drop-by-amount":
            point = format_minor(data.drop_value, currency) if currency else str(data.drop_value)
        else:
            point = broker_time(data.drop_value).isoformat(timespec="milliseconds")
        rows.append(
            {
                "dropped_at": broker_time(record.timestamp),
                "pool_id": data.pool_id,
                "cycle": data.cycle,
                "currency": currency,
                "drop_point": point,
                "paid": Money(won.amount_minor if won else 0, currency),
                "verified": "yes" if ok else "NO",
                "commitment": data.commitment,
                "proof": f"{JACKPOT_EVENTS}/{record.partition}/{record.offset}",
            }
        )
    return rows


@app.command()
def drops(format: Format = FORMAT, units: Units = UNITS) -> None:
    """Must-drop reveals, each checked against the commitment published before its cycle (exit 1 on a mismatch)."""
    from services.jackpot.adapters.history import read_all

    settings = load_settings()
    rows = drop_rows(read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS)))
    if not rows:
        typer.echo("no must-drop pool has dropped yet", err=True)
        raise typer.Exit(3)
    notes = [
        "anyone can re-check a row: SHA-256(drop value as 8 bytes big-endian || salt) = commitment "
        "(docs/drop-verifier.html)"
    ]
    emit(View("drops", DROP_COLUMNS, rows, title="must-drop reveals", notes=notes), format, units, console)
    if any(row["verified"] != "yes" for row in rows):
        raise typer.Exit(1)


METER_COLUMNS = [
    Column("as_of", "as of", "time"),
    Column("network_id", "network", priority=1),
    Column("pool_id", "pool"),
    Column("level", "level", "money"),
]


def _meter_row(meter: jp.JackpotMeter) -> dict:
    return {
        "as_of": meter.as_of,
        "network_id": meter.network_id,
        "pool_id": meter.pool_id,
        "currency": meter.currency,
        "level": Money(meter.level_minor, meter.currency),
    }


@app.command()
def meters(
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing updates until Ctrl-C."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """The live meters (jackpot.meters): the latest level of every pool, then every change with --follow."""
    from kafka import TopicPartition

    settings = load_settings()
    topic = settings.topic(JACKPOT_METERS)
    reader = consumer(settings.kafka_bootstrap_servers, group_id=None, role="operator")
    partitions = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic) or ())]
    reader.assign(partitions)
    reader.seek_to_beginning(*partitions)
    ends = reader.end_offsets(partitions)
    latest: dict[str, jp.JackpotMeter] = {}
    try:
        while any(reader.position(tp) < ends[tp] for tp in partitions):
            for batch in reader.poll(timeout_ms=500).values():
                for record in batch:
                    meter = _meter(record)
                    if meter is not None:
                        latest[meter.pool_id] = meter
        rows = [_meter_row(m) for m in sorted(latest.values(), key=lambda m: (m.network_id, m.pool_id))]
        emit(View("meters", METER_COLUMNS, rows), format, units, console)
        while follow:
            for batch in reader.poll(timeout_ms=500).values():
                changes = [_meter_row(meter) for meter in map(_meter, batch) if meter is not None]
                emit(View("meters", METER_COLUMNS, changes), format, units, console)
    except KeyboardInterrupt:
        pass
    finally:
        reader.close(autocommit=False)


def _meter(record) -> jp.JackpotMeter | None:
    """A meter the jackpot wrote, or None: what anyone else put on the topic (ops may) is not shown."""
    event, _ = records_module.trusted_event(JACKPOT_METERS, record)
    return event.data if event is not None and isinstance(event.data, jp.JackpotMeter) else None


def _send_admin(command: jp._PoolCommand, wait_s: float) -> None:
    from services.jackpot.adapters.history import read_all

    settings = load_settings()
    message = envelope(command, source="reelstream-cli", time=datetime.now(timezone.utc))
    writer = producer(settings.kafka_bootstrap_servers, client_id="reelstream-cli", role="operator")
    value = encode(message)
    headers = records_module.signed_headers("operator", JACKPOT_COMMANDS, message.key, value)
    writer.send(settings.topic(JACKPOT_COMMANDS), key=message.key, value=value, headers=headers).get(timeout=30)
    writer.close()
    console.print(f"sent {command.TYPE} {command.command_id} for {command.pool_id}")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        found = read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS), role="operator")
        for _, trusted in _events_of(found):
            event = trusted.data
            if getattr(event, "command_id", None) == command.command_id:
                refusal = f"{event.code}: {event.message}" if hasattr(event, "code") else ""
                console.print(f"answer: {event.TYPE} {refusal}")
                if isinstance(event, jp.PoolCommandRejected):
                    raise typer.Exit(1)
                return
        time.sleep(1)
    console.print(f"no answer within {wait_s:.0f} s (is the jackpot service running?)")
    raise typer.Exit(1)


def _network_of(pool_id: str) -> str:
    for network in load_pools().networks:
        if any(pool.pool_id == pool_id for pool in network.pools):
            return network.network_id
    raise AssertionError(f"pool {pool_id!r} passed the argument check but is not configured")


def _configured_pool(text: str) -> str:
    known = [pool.pool_id for network in load_pools().networks for pool in network.pools]
    return arguments.one_of(text, tuple(known))


_POOL = typer.Argument(..., parser=_configured_pool, metavar="POOL_ID", help="A configured pool id.")
_WAIT = typer.Option(30.0, min=0.1, max=600.0, help="Seconds to wait for the service's answer.")
_REASON = typer.Option("", parser=lambda text: arguments.bounded_text(text, 500), help="Why (recorded in the event).")


@app.command("open")
def open_pool(pool_id: str = _POOL, wait: float = _WAIT) -> None:
    """Open a configured pool at its seed before any wager reaches it."""
    _send_admin(jp.OpenPool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id), wait)


@app.command()
def disable(pool_id: str = _POOL, reason: str = _REASON, wait: float = _WAIT) -> None:
    """Stop paying a pool (claims get POOL_DISABLED; contributions keep accruing)."""
    _send_admin(
        jp.DisablePool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id, reason=reason), wait
    )


@app.command()
def resume(pool_id: str = _POOL, reason: str = _REASON, wait: float = _WAIT) -> None:
    """Pay a disabled pool again."""
    _send_admin(
        jp.ResumePool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id, reason=reason), wait
    )


@app.command()
def decommission(
    pool_id: str = _POOL,
    to: str = typer.Option(
        ..., "--to", parser=_configured_pool, metavar="POOL_ID", help="Pool that receives the balance (same network)."
    ),
    reason: str = _REASON,
    wait: float = _WAIT,
) -> None:
    """Close a pool for good; its balance and later shares move to --to (same network)."""
    if _network_of(to) != _network_of(pool_id) or to == pool_id:
        raise typer.BadParameter(f"{to!r} is not another pool of {pool_id}'s network", param_hint="--to")
    command = jp.DecommissionPool(
        network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id, transfer_to_pool_id=to, reason=reason
    )
    _send_admin(command, wait)
