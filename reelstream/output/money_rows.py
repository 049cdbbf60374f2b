"""Rows of exact integers as a view of amounts, for the reports (`reelstream reports`)."""

from __future__ import annotations

from typing import Any

from reelstream.output.render import View
from shared.display.cells import Column, Money


def as_view(name: str, rows: list[dict[str, Any]], essential: tuple[str, ...], title: str) -> View:
    """Rows of exact integers as a view of amounts: `x_minor` / `x_micro` become the amount `x` in the row's currency;
    columns not in `essential` may be dropped on a narrow terminal, the later ones first."""
    if not rows:
        return View(name, [], [], title=title)
    columns, converted = [], []
    for index, key in enumerate(rows[0]):
        base, kind = key, "text"
        if key.endswith(("_minor", "_micro")):
            base, kind = key.rsplit("_", 1)[0], "money"
        elif isinstance(rows[0][key], bool):
            kind = "flag"
        elif isinstance(rows[0][key], int):
            kind = "number"
        priority = None if base in essential else len(rows[0]) - index
        columns.append(Column(base, base.removesuffix("_id").replace("_", " "), kind, priority))
    for row in rows:
        out = {}
        for key, value in row.items():
            if key.endswith("_minor"):
                out[key.rsplit("_", 1)[0]] = Money(value, row["currency"])
            elif key.endswith("_micro"):
                out[key.rsplit("_", 1)[0]] = Money.micro(value, row["currency"])
            else:
                out[key] = None if value == "" else value
        converted.append(out)
    return View(name, columns, converted, title=title)
