"""The --format and --units options every read command takes (one definition, so help and names never drift)."""

from __future__ import annotations

from enum import Enum

import typer

from shared.display.units import Units


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


FORMAT = typer.Option(Format.table, "--format", help="table for people; json or csv with stable field names.")
UNITS = typer.Option(
    Units.major,
    "--units",
    help="major: 189.81 EUR (default); minor or micro: exact integers (1 minor = 1,000,000 micro).",
)
