"""`reelstream jackpot ...`: pools (levels, totals, last winners, liability per operator), live meters, admin commands."""
from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone

import typer
from rich.console import Console
from rich.table import Table

from shared.config import load_settings
from shared import records
from shared.events import broker_time, decode, encode, envelope
from shared.events import jackpot as jp
from shared.kafka import consumer, producer
from shared.money import MICRO_PER_MINOR, format_minor
from shared.pools import load_pools
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS

app = typer.Typer(no_args_is_help=True)
console = Console(highlight=False)


def _minor(amount_micro: int, currency: str) -> str:
    whole, rest = divmod(amount_micro, MICRO_PER_MINOR)
    return format_minor(whole, currency) + (f" +{rest:,}µ" if rest else "")


@app.command()
def pools() -> None:
    """Every pool's level, totals and last winner, and each operator's liability, folded from jackpot.events."""
    from services.jackpot.adapters.history import fold_events, read_all

    settings = load_settings()
    states = fold_events(read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS)))
    if not states:
        console.print("no jackpot events yet")
    for state in states.values():
        table = Table("pool", "status", "level", "contributions", "seeds", "paid", "wins", "last winner",
                      title=f"{state.network_id} ({state.currency}), as of {broker_time(state.last_recorded_ms):%Y-%m-%d %H:%M:%S}")
        for pool in state.pools.values():
            last = pool.last_win
            winner = f"{last.player_id} {format_minor(last.amount_minor, state.currency)} {broker_time(last.recorded_ms):%m-%d %H:%M}" if last else "-"
            table.add_row(pool.pool_id, pool.status, _minor(pool.level_micro, state.currency),
                          _minor(pool.contributions_micro, state.currency), _minor(pool.seeds_micro, state.currency),
                          _minor(pool.paid_micro, state.currency), str(pool.wins), winner)
        console.print(table)
        liability = Table("operator", "contributed", "paid to its players", "net", title=f"{state.network_id}: liability per operator")
        for operator_id, row in sorted(state.liability_by_operator.items()):
            liability.add_row(operator_id, _minor(row.contributed_micro, state.currency), _minor(row.paid_micro, state.currency),
                              ("-" if row.net_micro < 0 else "") + _minor(abs(row.net_micro), state.currency))
        console.print(liability)


@app.command()
def meters(follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing updates until Ctrl-C.")) -> None:
    """The live meters (jackpot.meters): the latest level of every pool, then every change with --follow."""
    from kafka import TopicPartition

    settings = load_settings()
    topic = settings.topic(JACKPOT_METERS)
    reader = consumer(settings.kafka_bootstrap_servers, group_id=None)
    partitions = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic) or ())]
    reader.assign(partitions)
    reader.seek_to_beginning(*partitions)
    ends = reader.end_offsets(partitions)
    latest: dict[str, jp.JackpotMeter] = {}
    try:
        while any(reader.position(tp) < ends[tp] for tp in partitions):
            for batch in reader.poll(timeout_ms=500).values():
                for record in batch:
                    meter = decode(record.value).data
                    latest[meter.pool_id] = meter
        for meter in sorted(latest.values(), key=lambda m: (m.network_id, m.pool_id)):
            _print_meter(meter)
        while follow:
            for batch in reader.poll(timeout_ms=500).values():
                for record in batch:
                    _print_meter(decode(record.value).data)
    except KeyboardInterrupt:
        pass
    finally:
        reader.close(autocommit=False)


def _print_meter(meter: jp.JackpotMeter) -> None:
    console.print(f"{meter.as_of:%H:%M:%S}  {meter.network_id:<16} {meter.pool_id:<14} {format_minor(meter.level_minor, meter.currency):>20}")


def _send_admin(command: jp._PoolCommand, wait_s: float) -> None:
    from services.jackpot.adapters.history import read_all

    settings = load_settings()
    message = envelope(command, source="reelstream-cli", time=datetime.now(timezone.utc))
    writer = producer(settings.kafka_bootstrap_servers, client_id="reelstream-cli")
    writer.send(settings.topic(JACKPOT_COMMANDS), key=message.key, value=encode(message), headers=records.headers_for("operator")).get(timeout=30)
    writer.close()
    console.print(f"sent {command.TYPE} {command.command_id} for {command.pool_id}")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        for record in read_all(settings.kafka_bootstrap_servers, settings.topic(JACKPOT_EVENTS)):
            event = decode(record.value).data
            if getattr(event, "command_id", None) == command.command_id:
                console.print(f"answer: {event.TYPE} " + (f"{event.code}: {event.message}" if hasattr(event, "code") else ""))
                if isinstance(event, jp.PoolCommandRejected):
                    raise typer.Exit(1)
                return
        time.sleep(1)
    console.print(f"no answer within {wait_s:.0f} s (is the jackpot service running?)")
    raise typer.Exit(2)


def _network_of(pool_id: str) -> str:
    for network in load_pools().networks:
        if any(pool.pool_id == pool_id for pool in network.pools):
            return network.network_id
    raise typer.BadParameter(f"no pool {pool_id!r} in the pool configuration")


_WAIT = typer.Option(30.0, help="Seconds to wait for the service's answer.")
_REASON = typer.Option("", help="Why (recorded in the event).")


@app.command("open")
def open_pool(pool_id: str, wait: float = _WAIT) -> None:
    """Open a configured pool at its seed before any wager reaches it."""
    _send_admin(jp.OpenPool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id), wait)


@app.command()
def disable(pool_id: str, reason: str = _REASON, wait: float = _WAIT) -> None:
    """Stop paying a pool (claims get POOL_DISABLED; contributions keep accruing)."""
    _send_admin(jp.DisablePool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id, reason=reason), wait)


@app.command()
def resume(pool_id: str, reason: str = _REASON, wait: float = _WAIT) -> None:
    """Pay a disabled pool again."""
    _send_admin(jp.ResumePool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id, reason=reason), wait)


@app.command()
def decommission(pool_id: str, to: str = typer.Option(..., "--to", help="Pool that receives the balance."),
                 reason: str = _REASON, wait: float = _WAIT) -> None:
    """Close a pool for good; its balance and later shares move to --to (same network)."""
    command = jp.DecommissionPool(network_id=_network_of(pool_id), command_id=uuid.uuid4(), pool_id=pool_id,
                                  transfer_to_pool_id=to, reason=reason)
    _send_admin(command, wait)
