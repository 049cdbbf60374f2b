"""Tables that fit the terminal: numbers and times are never cut or wrapped (their columns get their full width),
headers and words may wrap; when even that does not fit, the columns of lowest priority are dropped (and named
under the table)."""

from __future__ import annotations

import textwrap

from rich import box
from rich.table import Table

from shared.display.cells import Column

GAP = 3  # between two columns: one space of padding on each side and the (blank) separator
TEXT_MIN = 16  # a word longer than this (a long id) may be folded rather than push numbers out
COMFORT = 24  # a column of words narrower than this (and than its text) costs a low-priority column


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def min_width(column: Column, cells: list[str]) -> int:
    header = _longest_word(column.header)
    if column.kind != "text":
        return max(header, *(len(cell) for cell in cells)) if cells else header
    return max(header, min(TEXT_MIN, max((_longest_word(cell) for cell in cells), default=0)))


def natural_width(column: Column, cells: list[str]) -> int:
    return max(len(column.header), *(len(cell) for cell in cells)) if cells else len(column.header)


def _table(columns: list[Column], cells: list[list[str]], widths: list[int], title: str | None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", show_edge=False, pad_edge=False)
    for column, width in zip(columns, widths):
        header = "\n".join(textwrap.wrap(column.header, width, break_long_words=True))
        table.add_column(
            header,
            justify="right" if column.right_aligned else "left",
            no_wrap=column.kind != "text",
            overflow="fold",
            width=width,
        )
    for row in cells:
        table.add_row(*row)
    return table


def fitted(
    columns: list[Column], cells: list[list[str]], title: str | None, width: int
) -> tuple[Table, list[Column], int]:
    """The table at `width`, the columns it had to drop, and the width to print it at (wider than `width` only when
    the columns that are never dropped cannot fit: then it overflows rather than cut a number).

    Columns are dropped, lowest priority first, while the rest cannot fit even with words wrapped, and also while a
    column of words would be squeezed below COMFORT characters (a reason wrapped one word per line reads worse than
    a missing low-value column)."""
    natural = [natural_width(column, [row[i] for row in cells]) for i, column in enumerate(columns)]
    least = [min_width(column, [row[i] for row in cells]) for i, column in enumerate(columns)]
    shown = list(range(len(columns)))
    droppable = sorted(
        (i for i, c in enumerate(columns) if c.priority is not None), key=lambda i: (columns[i].priority, -i)
    )
    while sum(least[i] for i in shown) + GAP * (len(shown) - 1) > width and droppable:
        shown.remove(droppable.pop(0))
    widths = _widths(columns, shown, natural, least, width)
    while droppable and any(columns[i].kind == "text" and widths[i] < min(natural[i], COMFORT) for i in shown):
        shown.remove(droppable.pop(0))
        widths = _widths(columns, shown, natural, least, width)
    need = sum(widths.values()) + GAP * (len(shown) - 1)
    table = _table(
        [columns[i] for i in shown], [[row[i] for i in shown] for row in cells], [widths[i] for i in shown], title
    )
    hidden = [c for i, c in enumerate(columns) if i not in shown]
    return table, hidden, max(width, need)


def _widths(
    columns: list[Column], shown: list[int], natural: list[int], least: list[int], width: int
) -> dict[int, int]:
    widths = {i: least[i] if columns[i].kind != "text" else natural[i] for i in shown}
    room = width - GAP * (len(shown) - 1)
    _narrow_words(widths, {i: least[i] for i in shown}, room)
    for i in shown:  # spare room first unwraps the headers of number columns
        widths[i] += max(0, min(room - sum(widths.values()), len(columns[i].header) - widths[i]))
    return widths


def _narrow_words(widths: dict[int, int], least: dict[int, int], room: int) -> None:
    """Narrow the widest wrappable column, one character at a time, until the table fits or none can narrow."""
    while sum(widths.values()) > room:
        narrowable = [i for i in widths if widths[i] > least[i]]
        if not narrowable:
            return
        widest = max(narrowable, key=lambda i: (widths[i], -i))
        widths[widest] -= 1
