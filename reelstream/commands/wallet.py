"""`reelstream wallet deposit|withdraw|set-limit|self-exclude|balance|history`: cashier commands and read-backs.

Commands go to wallet.commands and the answer (the fact or the rejection) is read from the player's partition of
wallet.events; balance and history fold that partition's postings (the same fold an auditor runs).
"""
from __future__ import annotations

import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone

import typer
from kafka import TopicPartition
from kafka.partitioner.default import murmur2
from rich.console import Console
from rich.table import Table

from shared.config import load_settings
from shared import records
from shared.events import decode, encode, envelope
from shared.events.wallet import Deposit, SelfExclude, SetLimit, Withdraw, player_account
from shared.kafka import consumer, producer
from shared.money import MICRO_PER_MINOR, format_minor
from shared.topics import PLAYER_PARTITIONS, WALLET_COMMANDS, WALLET_EVENTS

app = typer.Typer(no_args_is_help=True)
console = Console()


def _partition(player_id: str) -> int:
    return (murmur2(player_id.encode()) & 0x7FFFFFFF) % PLAYER_PARTITIONS


def _reader(player_id: str, from_end: bool):
    settings = load_settings()
    reader = consumer(settings.kafka_bootstrap_servers, group_id=None)
    partition = TopicPartition(settings.topic(WALLET_EVENTS), _partition(player_id))
    reader.assign([partition])
    (reader.seek_to_end if from_end else reader.seek_to_beginning)(partition)
    reader.position(partition)
    return reader


def _player_events(player_id: str) -> list:
    """Every distinct event of the player, in partition order (a byte-identical redelivery is counted once)."""
    reader = _reader(player_id, from_end=False)
    partition = next(iter(reader.assignment()))
    end = reader.end_offsets([partition])[partition]
    events, seen = [], set()
    while reader.position(partition) < end:
        for batch in reader.poll(timeout_ms=1_000).values():
            for record in batch:
                event = decode(record.value, expect_kind="event")
                if record.key == player_id.encode() and event.id not in seen:
                    seen.add(event.id)
                    events.append(event)
    reader.close(autocommit=False)
    return events


def _send_and_wait(data, timeout_s: float) -> None:
    settings = load_settings()
    reader = _reader(data.player_id, from_end=True)
    message = envelope(data, source="reelstream-cli", time=datetime.now(timezone.utc))
    writer = producer(settings.kafka_bootstrap_servers, client_id="reelstream-cli")
    writer.send(settings.topic(WALLET_COMMANDS), key=message.key, value=encode(message), headers=records.headers_for("cashier")).get(30)
    writer.close(10)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for batch in reader.poll(timeout_ms=500).values():
            for record in batch:
                answer = decode(record.value, expect_kind="event")
                if answer.data.transaction_id == data.transaction_id:
                    reader.close(autocommit=False)
                    _show_answer(answer.data)
                    return
    reader.close(autocommit=False)
    raise typer.Exit(f"no answer to {data.transaction_id} within {timeout_s:.0f} s (is the wallet service running?)")


def _show_answer(data) -> None:
    code = getattr(data, "code", None)
    if code is not None:
        console.print(f"[red]rejected[/red] {code}: {data.message}")
        raise typer.Exit(2)
    balance = getattr(data, "balance_after_minor", None)
    suffix = f", balance {format_minor(balance, data.currency)}" if balance is not None else ""
    console.print(f"[green]{data.TYPE.split('.')[2]}[/green] {data.transaction_id}{suffix}")


def _tx(transaction_id: str | None) -> uuid.UUID:
    return uuid.UUID(transaction_id) if transaction_id else uuid.uuid4()


@app.command()
def deposit(player_id: str, amount_minor: int, currency: str = "EUR", transaction_id: str = typer.Option(None),
            timeout_s: float = 30.0) -> None:
    """Cashier deposit (the first one in a currency opens the account)."""
    _send_and_wait(Deposit(transaction_id=_tx(transaction_id), player_id=player_id, amount_minor=amount_minor, currency=currency), timeout_s)


@app.command()
def withdraw(player_id: str, amount_minor: int, currency: str = "EUR", transaction_id: str = typer.Option(None),
             timeout_s: float = 30.0) -> None:
    """Cashier withdrawal (never below zero)."""
    _send_and_wait(Withdraw(transaction_id=_tx(transaction_id), player_id=player_id, amount_minor=amount_minor, currency=currency), timeout_s)


@app.command("set-limit")
def set_limit(player_id: str, kind: str = typer.Argument(..., help="deposit | loss"),
              period: str = typer.Argument(..., help="day | week | month"),
              amount_minor: int = typer.Option(None, help="Omit to remove the limit (an increase: after 24 h)."),
              currency: str = "EUR", timeout_s: float = 30.0) -> None:
    """Set a deposit or loss limit: decreases apply at once, increases after 24 h."""
    _send_and_wait(SetLimit(transaction_id=uuid.uuid4(), player_id=player_id, currency=currency, kind=kind, period=period,
                            amount_minor=amount_minor), timeout_s)


@app.command("self-exclude")
def self_exclude(player_id: str, days: int = typer.Option(None, help="Omit for an indefinite exclusion."),
                 timeout_s: float = 30.0) -> None:
    """Self-exclusion: no wagers or deposits until it ends (it can be extended, never shortened)."""
    from datetime import timedelta

    until = datetime.now(timezone.utc) + timedelta(days=days) if days else None
    _send_and_wait(SelfExclude(transaction_id=uuid.uuid4(), player_id=player_id, until=until), timeout_s)


@app.command()
def balance(player_id: str) -> None:
    """The player's balance per currency, folded from the postings on wallet.events."""
    totals: dict[str, int] = defaultdict(int)
    account = player_account(player_id)
    for event in _player_events(player_id):
        for posting in getattr(event.data, "postings", ()):
            if posting.account == account:
                totals[event.data.currency] += posting.amount_micro
    if not totals:
        console.print(f"{player_id}: no account")
    for currency, amount_micro in sorted(totals.items()):
        console.print(f"{player_id}: {format_minor(amount_micro // MICRO_PER_MINOR, currency)}")


@app.command()
def history(player_id: str, last: int = typer.Option(20, help="How many of the latest events.")) -> None:
    """The player's latest wallet events: what happened, the amount and the balance after."""
    table = Table("recorded at", "event", "transaction", "amount", "balance after")
    for event in _player_events(player_id)[-last:]:
        data = event.data
        amount = getattr(data, "amount_minor", None) or getattr(data, "win_minor", None)
        kind = data.TYPE.split(".")[2] + (f" {data.code}" if hasattr(data, "code") else "")
        currency = getattr(data, "currency", None) or ""
        balance_after = getattr(data, "balance_after_minor", None)
        table.add_row(data.recorded_at.isoformat(timespec="seconds"), kind, str(data.transaction_id)[:8],
                      format_minor(amount, currency) if amount is not None and currency else "",
                      format_minor(balance_after, currency) if balance_after is not None and currency else "")
    console.print(table)
