"""`reelstream reports ggr|liability|reconciliation`: operator and regulator reports from the raw topics, exact
`*_minor` / `*_micro` integers shown in major units by default (`--units minor|micro` for exact integers)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import typer

from reelstream import arguments
from reelstream.output import FORMAT, UNITS, Format, Units, View, emit, render_text
from reelstream.output.money_rows import as_view

app = typer.Typer(no_args_is_help=True)


def _folds(until: datetime | None, seamless: bool = False):
    """The ledger, the pools, their configuration and, with `seamless`, the seamless operators' rounds (else none)."""
    from services.audit.adapters.topics import read_topics
    from services.audit.core.collect import collect
    from services.audit.core.ledger import fold_ledger
    from services.audit.core.pools import fold_pools
    from services.audit.core.seamless import fold_rounds
    from shared.config import load_settings
    from shared.events import epoch_ms
    from shared.pools import load_pools
    from shared.topics import WALLET_SEAMLESS

    settings = load_settings()
    topics = ("wallet.events", "jackpot.events") + ((WALLET_SEAMLESS,) if seamless else ())
    records, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=topics)
    facts = collect(records, until_ms=epoch_ms(until) if until else None)
    config = load_pools()
    ledger = fold_ledger([f for f in facts.facts if f.topic == "wallet.events"])
    pools = fold_pools([f for f in facts.facts if f.topic == "jackpot.events"], config)
    rounds = fold_rounds([f for f in facts.facts if f.topic == WALLET_SEAMLESS])
    return ledger, pools, config, rounds


def _emit(views: View | list[View], fmt: Format, units: Units, out: Path | None) -> None:
    views = views if isinstance(views, list) else [views]
    if out is None:
        emit(views, fmt, units)
        return
    out.write_text(render_text(views, fmt, units, width=160))
    typer.echo(f"wrote {out}", err=True)


_OUT = typer.Option(None, parser=arguments.output_file, metavar="FILE", help="Write to this file instead of stdout.")
_UNTIL = typer.Option(
    None,
    parser=arguments.moment_now,
    metavar="TIME",
    help=f"As of this time (records stored later are ignored): {arguments.TIME_HINT}.",
)


@app.command()
def ggr(format: Format = FORMAT, units: Units = UNITS, out: Path = _OUT, until: datetime = _UNTIL) -> None:
    """Daily gross gaming revenue per game, currency and operator: stakes - house wins - breakage - contributions."""
    from services.audit.core.reports import ggr_rows

    ledger, _, _, _ = _folds(until)
    view = as_view("ggr", ggr_rows(ledger), ("day", "game", "currency", "ggr"), "gross gaming revenue per day")
    _emit(view, format, units, out)


@app.command()
def liability(
    format: Format = FORMAT,
    units: Units = UNITS,
    out: Path = _OUT,
    until: datetime = _UNTIL,
    by_kind: bool = typer.Option(False, "--by-kind", help="Sum the pools per kind (random, must-drop-*, reserve)."),
) -> None:
    """Jackpot liability per pool (its level, kind, reserve in and overflow out) and per operator (its players'
    contributions minus their wins), and the players' outstanding sub-cent remainders per currency; --by-kind sums the
    pools per network and pool kind."""
    from services.audit.core.reports import liability_by_pool_kind, liability_rows

    ledger, pools, config, _ = _folds(until)
    rows = liability_rows(pools, config, ledger)
    if by_kind:
        view = as_view("liability", liability_by_pool_kind(rows), ("pool_kind", "level"), "liability by pool kind")
    else:
        view = as_view("liability", rows, ("kind", "pool_id", "operator_id", "level"), "jackpot liability")
    _emit(view, format, units, out)


@app.command()
def reconciliation(
    format: Format = FORMAT,
    units: Units = UNITS,
    out: Path = _OUT,
    until: datetime = _UNTIL,
    operator: str = typer.Option(
        None, "--operator", metavar="OPERATOR", help="A seamless operator: its wallet's transactions against ours."
    ),
) -> None:
    """Contributions, seeds and payouts per network, as the pools saw them and as the wallets moved them (the ledger's
    and the seamless operators' settled rounds); with
    --operator, every difference between reelstream's record of a seamless operator and its wallet's transaction list,
    and what it owes the jackpot networks per network and currency against what the pools credited and paid for its
    rounds (exit 1 when there is a difference)."""
    if operator is not None:
        if until is not None:
            raise typer.BadParameter("reconciles the record as it is now", param_hint="--until with --operator")
        from reelstream.commands.seamless_reconciliation import seamless_reconciliation

        views, found = seamless_reconciliation(operator)
        _emit(views, format, units, out)
        raise typer.Exit(1 if found else 0)
    from services.audit.core.reports import reconciliation_rows

    ledger, pools, config, rounds = _folds(until, seamless=True)
    view = as_view(
        "reconciliation",
        reconciliation_rows(ledger, pools, config, rounds),
        ("network_id", "levels_identity_holds", "contributions_difference", "payouts_difference"),
        "jackpot reconciliation",
    )
    _emit(view, format, units, out)
