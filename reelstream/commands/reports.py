"""`reelstream reports ggr|liability|reconciliation`: operator and regulator reports from the raw topics, CSV or JSON."""
from __future__ import annotations

import csv
import io
import json
import sys
from enum import Enum
from pathlib import Path

import typer

app = typer.Typer(no_args_is_help=True)


class Format(str, Enum):
    csv = "csv"
    json = "json"


def render(rows: list[dict], fmt: Format) -> str:
    if fmt is Format.json:
        return json.dumps(rows, indent=2, sort_keys=False) + "\n"
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return buffer.getvalue()


def _folds(until: str | None):
    from reelstream.commands.audit import parse_moment
    from services.audit.adapters.topics import read_topics
    from services.audit.core.collect import collect
    from services.audit.core.ledger import fold_ledger
    from services.audit.core.pools import fold_pools
    from shared.config import load_settings
    from shared.pools import load_pools

    settings = load_settings()
    records, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=("wallet.events", "jackpot.events"))
    facts = collect(records, until_ms=parse_moment(until))
    config = load_pools()
    ledger = fold_ledger([f for f in facts.facts if f.topic == "wallet.events"])
    pools = fold_pools([f for f in facts.facts if f.topic == "jackpot.events"], config)
    return ledger, pools, config


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text)
        typer.echo(f"wrote {out}", err=True)


_FORMAT = typer.Option(Format.csv, "--format", help="csv or json.")
_OUT = typer.Option(None, help="Write to this file instead of stdout.")
_UNTIL = typer.Option(None, help="As of this ISO time (records stored later are ignored).")


@app.command()
def ggr(format: Format = _FORMAT, out: Path = _OUT, until: str = _UNTIL) -> None:
    """Daily gross gaming revenue per game, currency and operator: stakes - house wins - jackpot contributions (micro)."""
    from services.audit.core.reports import ggr_rows

    ledger, _, _ = _folds(until)
    _emit(render(ggr_rows(ledger), format), out)


@app.command()
def liability(format: Format = _FORMAT, out: Path = _OUT, until: str = _UNTIL) -> None:
    """Jackpot liability per pool (its level) and per operator (its players' contributions minus their wins)."""
    from services.audit.core.reports import liability_rows

    _, pools, _ = _folds(until)
    _emit(render(liability_rows(pools), format), out)


@app.command()
def reconciliation(format: Format = _FORMAT, out: Path = _OUT, until: str = _UNTIL) -> None:
    """Contributions, seeds and payouts per network, as the pools saw them and as the wallet moved them."""
    from services.audit.core.reports import reconciliation_rows

    ledger, pools, config = _folds(until)
    _emit(render(reconciliation_rows(ledger, pools, config), format), out)
