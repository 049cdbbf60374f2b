"""Render a read command's views as a table, JSON or CSV, with every amount and time in one representation."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rich.console import Console

from shared.display import amounts, times
from shared.display.cells import Column, Money
from reelstream.output.options import Format, Units
from reelstream.output.tables import fitted


@dataclass
class View:
    """One table of a command's answer: `name` is its stable key in JSON, `rows` map column keys to cell values
    (str, int, bool, Money, datetime, or None for "nothing here")."""

    name: str
    columns: list[Column]
    rows: list[dict[str, Any]]
    title: str | None = None
    notes: list[str] = field(default_factory=list)


def _header(column: Column, units: Units) -> str:
    if column.kind == "time":
        return f"{column.header} ({times.ZONE_NAME})"
    if column.kind == "money" and units is not Units.major:
        return f"{column.header} ({units.value})"
    return column.header


def _text(value: Any, units: Units, kind: str = "text") -> str:
    if value is None:
        return "-"
    if kind == "code":
        return str(value)
    if isinstance(value, Money):
        return amounts.cell_text(value, units)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return times.table_time(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _machine(value: Any, units: Units) -> Any:
    if isinstance(value, Money):
        return amounts.machine_value(value, units)
    if isinstance(value, datetime):
        return times.machine_time(value)
    return value


def _rows(view: View, units: Units) -> list[dict[str, Any]]:
    return [{c.key: _machine(row.get(c.key), units) for c in view.columns} for row in view.rows]


def as_json(views: list[View], units: Units) -> str:
    body: dict[str, Any] = {"units": units.value, "time_zone": times.ZONE_NAME}
    body |= {view.name: _rows(view, units) for view in views}
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def as_csv(views: list[View], units: Units) -> str:
    buffer = io.StringIO()
    for index, view in enumerate(views):
        if len(views) > 1:
            buffer.write(("\n" if index else "") + f"# {view.name}\n")
        writer = csv.DictWriter(buffer, fieldnames=[c.key for c in view.columns], lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: ("" if v is None else v) for k, v in row.items()} for row in _rows(view, units))
    return buffer.getvalue()


def print_tables(views: list[View], units: Units, console: Console) -> None:
    for view in views:
        columns = [Column(c.key, _header(c, units), c.kind, c.priority) for c in view.columns]
        cells = [[_text(row.get(c.key), units, c.kind) for c in view.columns] for row in view.rows]
        table, hidden, width = fitted(columns, cells, view.title, console.width)
        if view.rows:
            console.print(table, width=width)
        elif view.title:
            console.print(f"{view.title}: nothing yet", markup=False, highlight=False)
        if hidden:
            names = ", ".join(c.header for c in hidden)
            console.print(
                f"(not shown at {console.width} columns: {names}; see --format csv)",
                markup=False,
                highlight=False,
                style="dim",
            )
        for note in view.notes:
            console.print(note, markup=False, highlight=False)


def render_text(views: list[View], fmt: Format, units: Units, width: int = 80) -> str:
    """The whole output as a string (tests and files); tables at `width` columns."""
    if fmt is Format.json:
        return as_json(views, units)
    if fmt is Format.csv:
        return as_csv(views, units)
    console = Console(file=io.StringIO(), width=width, color_system=None, force_terminal=False, highlight=False)
    print_tables(views, units, console)
    return console.file.getvalue()


def emit(views: View | list[View], fmt: Format, units: Units, console: Console | None = None) -> None:
    """Write a command's answer to stdout in the chosen format."""
    views = [views] if isinstance(views, View) else views
    if fmt is Format.table:
        print_tables(views, units, console or Console(highlight=False))
    else:
        sys.stdout.write(render_text(views, fmt, units))
