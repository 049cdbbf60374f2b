"""`reelstream wallet deposit|withdraw|set-limit|self-exclude|close-account|balance|history|players`: cashier commands
and read-backs folded from wallet.events; `--operator O` acts as that operator's cashier (docs/cli.md)."""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import typer
from kafka import TopicPartition
from rich.console import Console

from reelstream import arguments
from reelstream.cashier_balance import CashierBalance, cashier_balances, player_records
from reelstream.output import FORMAT, UNITS, Column, Format, Money, Units, View, emit
from shared.config import load_settings
from shared import records, signing
from shared.deposit_cap import deposit_refusal
from shared.events import decode, encode, envelope
from shared.events.wallet import CloseAccount, Deposit, SelfExclude, SetLimit, Withdraw, player_account
from shared.kafka import consumer, producer
from shared.money import format_minor
from shared.operators import cashier_role, wallet_answers_topic
from shared.partitioning import partition_for
from shared.topics import PLAYER_PARTITIONS, WALLET_COMMANDS, WALLET_EVENTS

app = typer.Typer(no_args_is_help=True)
console = Console(highlight=False)
EXIT_NOT_FOUND = 3
EXIT_USAGE = 2  # as the CLI's own usage errors

_PLAYER = typer.Argument(..., parser=arguments.player_id, metavar="PLAYER_ID", help="The pseudonymous player id.")
_AMOUNT = typer.Argument(
    ..., parser=arguments.amount_minor, metavar="AMOUNT_MINOR", help="In minor units (cents, øre): 1050 is 10.50."
)
_CURRENCY = typer.Option("EUR", parser=arguments.currency, metavar="EUR|DKK", help="Currency of the account.")
_TRANSACTION = typer.Option(
    None,
    parser=arguments.a_uuid,
    metavar="UUID",
    help="Idempotency key (default: a fresh one); a repeat returns the first answer.",
)
_TIMEOUT = typer.Option(30.0, min=0.1, max=600.0, help="Seconds to wait for the wallet's answer.")
_OPERATOR = typer.Option(
    None,
    "--operator",
    parser=arguments.operator_id,
    metavar="OPERATOR",
    help="Act as this operator's cashier (cashier.<O>: its key and principal); answers come from wallet.answers.<O>.",
)


@dataclass(frozen=True)
class Cashier:
    """Who signs and sends a cashier command, the principal it connects as, and the topic its answer is read from."""

    role: str
    answers_topic: str
    operator_id: str | None = None


PLAIN_CASHIER = Cashier("cashier", WALLET_EVENTS)


def cashier_for(operator_id: str | None) -> Cashier:
    """The plain cashier (wallet.events), or operator O's own (cashier.<O>, wallet.answers.<O>), as the SDK does."""
    if operator_id is None:
        return PLAIN_CASHIER
    return Cashier(cashier_role(operator_id), wallet_answers_topic(operator_id), operator_id)


def _check_key(cashier: Cashier) -> None:
    """One line before anything is sent when the environment names a signing directory without this cashier's key."""
    try:
        signing.signer(cashier.role)
    except signing.SigningError as error:
        raise typer.Exit(
            f"no signing key for {cashier.role}: {error} (`reelstream infra up` makes every writer's key; "
            "`reelstream signing keys` lists them)"
        ) from None


def _partition(player_id: str) -> int:
    return partition_for(player_id.encode(), PLAYER_PARTITIONS)


def _reader(player_id: str, cashier: Cashier):
    """A reader of the player's partition of the cashier's answer topic, from its end (what comes after the send)."""
    settings = load_settings()
    reader = consumer(settings.kafka_bootstrap_servers, group_id=None, role=cashier.role)
    partition = TopicPartition(settings.topic(cashier.answers_topic), _partition(player_id))
    reader.assign([partition])
    reader.seek_to_end(partition)
    reader.position(partition)
    return reader


def _player_events(player_id: str) -> list:
    """Every distinct event of the player, in partition order (a byte-identical redelivery is counted once)."""
    settings = load_settings()
    found = player_records(settings.kafka_bootstrap_servers, "cashier", settings.topic(WALLET_EVENTS), player_id)
    events, seen = [], set()
    for record in found:
        event = decode(record.value, expect_kind="event")
        if event.id not in seen:
            seen.add(event.id)
            events.append(event)
    return events


def _send_and_wait(data, timeout_s: float, cashier: Cashier = PLAIN_CASHIER) -> None:
    _check_key(cashier)
    settings = load_settings()
    reader = _reader(data.player_id, cashier)
    message = envelope(data, source="reelstream-cli", time=datetime.now(timezone.utc))
    writer = producer(settings.kafka_bootstrap_servers, client_id="reelstream-cli", role=cashier.role)
    value = encode(message)
    headers = records.signed_headers(cashier.role, WALLET_COMMANDS, message.key, value)
    writer.send(settings.topic(WALLET_COMMANDS), key=message.key, value=value, headers=headers).get(30)
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
        raise typer.Exit(1)
    balance = getattr(data, "balance_after_minor", None)
    suffix = f", balance {format_minor(balance, data.currency)}" if balance is not None else ""
    console.print(f"[green]{data.TYPE.split('.')[2]}[/green] {data.transaction_id}{suffix}")


@app.command()
def deposit(
    player_id: str = _PLAYER,
    amount_minor: int = _AMOUNT,
    currency: str = _CURRENCY,
    transaction_id: uuid.UUID = _TRANSACTION,
    timeout_s: float = _TIMEOUT,
    confirm: bool = typer.Option(False, "--confirm", help="Operator override of the deposit cap."),
    operator_id: str = _OPERATOR,
) -> None:
    """Cashier deposit (the first one in a currency opens the account); above the currency's cap only with --confirm."""
    settings = load_settings()
    refusal = deposit_refusal(amount_minor, currency, settings.deposit_caps_minor, override=confirm)
    if refusal is not None:
        raise typer.BadParameter(
            f"{refusal.code}: {refusal.message} (REELSTREAM_DEPOSIT_CAP_MINOR_{currency}); "
            "add --confirm to send it as an operator override",
            param_hint="AMOUNT_MINOR",
        )
    cashier = cashier_for(operator_id)
    _send_and_wait(
        Deposit(
            transaction_id=transaction_id or uuid.uuid4(),
            player_id=player_id,
            amount_minor=amount_minor,
            currency=currency,
            operator_id=cashier.operator_id,
        ),
        timeout_s,
        cashier,
    )


@app.command()
def withdraw(
    player_id: str = _PLAYER,
    amount_minor: int = _AMOUNT,
    currency: str = _CURRENCY,
    transaction_id: uuid.UUID = _TRANSACTION,
    timeout_s: float = _TIMEOUT,
    operator_id: str = _OPERATOR,
) -> None:
    """Cashier withdrawal (never below zero)."""
    cashier = cashier_for(operator_id)
    _send_and_wait(
        Withdraw(
            transaction_id=transaction_id or uuid.uuid4(),
            player_id=player_id,
            amount_minor=amount_minor,
            currency=currency,
            operator_id=cashier.operator_id,
        ),
        timeout_s,
        cashier,
    )


@app.command("set-limit")
def set_limit(
    player_id: str = _PLAYER,
    kind: str = typer.Argument(..., parser=lambda v: arguments.one_of(v, ("deposit", "loss")), metavar="deposit|loss"),
    period: str = typer.Argument(
        ..., parser=lambda v: arguments.one_of(v, ("day", "week", "month")), metavar="day|week|month"
    ),
    amount_minor: int = typer.Option(
        None,
        parser=arguments.amount_minor,
        metavar="AMOUNT_MINOR",
        help="In minor units; omit to remove the limit (an increase: after 24 h).",
    ),
    currency: str = _CURRENCY,
    timeout_s: float = _TIMEOUT,
    operator_id: str = _OPERATOR,
) -> None:
    """Set a deposit or loss limit: decreases apply at once, increases after 24 h."""
    cashier = cashier_for(operator_id)
    _send_and_wait(
        SetLimit(
            transaction_id=uuid.uuid4(),
            player_id=player_id,
            currency=currency,
            kind=kind,
            period=period,
            amount_minor=amount_minor,
            operator_id=cashier.operator_id,
        ),
        timeout_s,
        cashier,
    )


@app.command("self-exclude")
def self_exclude(
    player_id: str = _PLAYER,
    days: int = typer.Option(None, min=1, max=36_500, help="Omit for an indefinite exclusion."),
    timeout_s: float = _TIMEOUT,
    operator_id: str = _OPERATOR,
) -> None:
    """Self-exclusion: no wagers or deposits until it ends (it can be extended, never shortened)."""
    until = datetime.now(timezone.utc) + timedelta(days=days) if days else None
    cashier = cashier_for(operator_id)
    command = SelfExclude(
        transaction_id=uuid.uuid4(), player_id=player_id, until=until, operator_id=cashier.operator_id
    )
    _send_and_wait(command, timeout_s, cashier)


@app.command("close-account")
def close_account(
    player_id: str = _PLAYER,
    yes: bool = typer.Option(False, "--yes", help="Confirm: closing an account cannot be undone."),
    timeout_s: float = _TIMEOUT,
    operator_id: str = _OPERATOR,
) -> None:
    """Close an account for good: no wagers or deposits from then on, withdrawals still; an outstanding sub-cent
    remainder is credited, rounded up to a cent, with the closure."""
    if not yes:
        typer.echo(f"closing {player_id}'s account cannot be undone: repeat with --yes", err=True)
        raise typer.Exit(EXIT_USAGE)
    cashier = cashier_for(operator_id)
    command = CloseAccount(transaction_id=uuid.uuid4(), player_id=player_id, operator_id=cashier.operator_id)
    _send_and_wait(command, timeout_s, cashier)


def _net_micro(data, account: str) -> int | None:
    """What an event moved on `account`, signed (a debit is negative), or None when it carries no postings."""
    postings = getattr(data, "postings", None)
    if not postings:
        return None
    return sum(posting.amount_micro for posting in postings if posting.account == account)


OPERATOR_BALANCE_COLUMNS = [
    Column("player_id", "player"),
    Column("currency", "currency"),
    Column("balance", "balance", "money"),
    Column("as_of", "as of", "time"),
    Column("transaction_id", "from transaction", "code", priority=1),
    Column("event", "event", priority=2),
]


def operator_balance_rows(balances: list[CashierBalance]) -> list[dict]:
    """One row per currency: the balance a cashier result carried, when, and which result."""
    return [
        {
            "player_id": seen.player_id,
            "currency": seen.currency,
            "balance": Money(seen.balance_minor, seen.currency),
            "as_of": seen.as_of,
            "transaction_id": str(seen.transaction_id),
            "event": seen.event_type.split(".")[2],
        }
        for seen in balances
    ]


def _operator_balance(player_id: str, operator_id: str, format: Format, units: Units) -> None:
    settings = load_settings()
    topic = wallet_answers_topic(operator_id)
    seen = cashier_balances(settings.kafka_bootstrap_servers, settings.topic_prefix, operator_id, player_id)
    if seen.untrusted:
        typer.echo(f"warning: {seen.untrusted} record(s) of {player_id} on {topic} not the wallet's: skipped", err=True)
    if not seen.balances:
        typer.echo(f"{player_id}: no cashier result of {operator_id} with a balance on {topic} (kept 7 days)", err=True)
        raise typer.Exit(EXIT_NOT_FOUND)
    note = f"as of each currency's latest cashier result of {operator_id} ({topic}): spins since are not in it"
    emit(
        View("balances", OPERATOR_BALANCE_COLUMNS, operator_balance_rows(seen.balances), notes=[note]),
        format,
        units,
        console,
    )


@app.command()
def balance(
    player_id: str = _PLAYER,
    format: Format = FORMAT,
    units: Units = UNITS,
    operator_id: str = typer.Option(
        None,
        "--operator",
        parser=arguments.operator_id,
        metavar="OPERATOR",
        help="Read as this operator's cashier (cashier.<O>) from wallet.answers.<O>: the balance of the player's "
        "latest cashier result there, as of that result (spins since are not in it).",
    ),
) -> None:
    """The player's balance per currency, folded from the postings on wallet.events; exit 3 when it has no account."""
    if operator_id is not None:
        _operator_balance(player_id, operator_id, format, units)
        return
    totals: dict[str, int] = defaultdict(int)
    account = player_account(player_id)
    for event in _player_events(player_id):
        moved = _net_micro(event.data, account)
        if moved is not None:
            totals[event.data.currency] += moved
    if not totals:
        typer.echo(f"{player_id}: no account (no wallet event for this player)", err=True)
        raise typer.Exit(EXIT_NOT_FOUND)
    rows = [
        {"player_id": player_id, "currency": currency, "balance": Money.micro(amount, currency)}
        for currency, amount in sorted(totals.items())
    ]
    emit(
        View(
            "balances",
            [Column("player_id", "player"), Column("currency", "currency"), Column("balance", "balance", "money")],
            rows,
        ),
        format,
        units,
        console,
    )


HISTORY_COLUMNS = [
    Column("recorded_at", "recorded at", "time"),
    Column("event", "event", priority=5),
    Column("transaction_id", "transaction", "code", priority=1),
    Column("currency", "currency", priority=2),
    Column("amount", "amount", "money"),
    Column("balance_after", "balance after", "money", priority=4),
]


def history_rows(events: list, player_id: str) -> list[dict]:
    """One row per wallet event: the signed amount it moved on the player's account and the balance after."""
    account, rows = player_account(player_id), []
    for event in events:
        data = event.data
        currency = getattr(data, "currency", None)
        moved = _net_micro(data, account)
        after = getattr(data, "balance_after_minor", None)
        rows.append(
            {
                "recorded_at": data.recorded_at,
                "event": data.TYPE.split(".")[2] + (f" {data.code}" if hasattr(data, "code") else ""),
                "transaction_id": str(data.transaction_id),
                "currency": currency,
                "amount": Money.micro(moved, currency) if moved is not None and currency else None,
                "balance_after": Money(after, currency) if after is not None and currency else None,
            }
        )
    return rows


@app.command()
def history(
    player_id: str = _PLAYER,
    last: int = typer.Option(20, min=1, max=10_000, help="How many of the latest."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """The player's latest wallet events: what happened, the signed amount and the balance after."""
    events = _player_events(player_id)
    if not events:
        typer.echo(f"{player_id}: no wallet events", err=True)
        raise typer.Exit(EXIT_NOT_FOUND)
    view = View(
        "history", HISTORY_COLUMNS, history_rows(events[-last:], player_id), title=f"{player_id}: wallet history"
    )
    emit(view, format, units, console)


PLAYERS_COLUMNS = [Column("player_id", "player"), Column("currency", "currency"), Column("balance", "balance", "money")]


def player_rows(balances_micro: dict[tuple[str, str], int], prefix: str, limit: int) -> list[dict]:
    """Players whose id starts with `prefix`, with their balance per currency, sorted by id."""
    marker = player_account("")
    rows = [
        {"player_id": account[len(marker) :], "currency": currency, "balance": Money.micro(amount, currency)}
        for (account, currency), amount in balances_micro.items()
        if account.startswith(marker + prefix)
    ]
    return sorted(rows, key=lambda row: (row["player_id"], row["currency"]))[:limit]


@app.command()
def players(
    prefix: str = typer.Argument(
        "", parser=arguments.id_prefix, metavar="[PREFIX]", help="Only players whose id starts with this."
    ),
    limit: int = typer.Option(200, min=1, max=100_000, help="Show at most this many rows."),
    format: Format = FORMAT,
    units: Units = UNITS,
) -> None:
    """Players and their balances (folded from every partition of wallet.events); exit 3 when none matches."""
    from services.audit.adapters.topics import read_topics
    from services.audit.core.collect import collect
    from services.audit.core.ledger import fold_ledger

    settings = load_settings()
    records, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=(WALLET_EVENTS,))
    ledger = fold_ledger(collect(records).facts)
    rows = player_rows(ledger.balances_micro, prefix, limit)
    if not rows:
        typer.echo(f"no player id starts with {prefix!r}", err=True)
        raise typer.Exit(EXIT_NOT_FOUND)
    emit(View("players", PLAYERS_COLUMNS, rows), format, units, console)
