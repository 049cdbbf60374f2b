"""Tables that fit the terminal: numbers and times are never cut or wrapped; words may wrap; when even that does not
fit, the columns of lowest priority are dropped (and named under the table)."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from reelstream.output.cells import Column


def _table(columns: list[Column], cells: list[list[str]], title: str | None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    for index, column in enumerate(columns):
        rigid = column.kind != "text"
        longest = max((len(row[index]) for row in cells), default=0)
        table.add_column(column.header, justify="right" if column.right_aligned else "left", no_wrap=rigid,
                         overflow="fold", min_width=longest if rigid else None)
    for row in cells:
        table.add_row(*row)
    return table


def fitted(columns: list[Column], cells: list[list[str]], title: str | None, console: Console,
           width: int) -> tuple[Table, list[Column], int]:
    """The table at `width`, the columns it had to drop, and the width to print it at (wider than `width` only when
    the columns that are never dropped cannot fit: then it overflows rather than cut a number)."""
    shown = list(range(len(columns)))
    droppable = sorted((i for i, c in enumerate(columns) if c.priority is not None),
                       key=lambda i: (columns[i].priority, -i))
    while True:
        table = _table([columns[i] for i in shown], [[row[i] for i in shown] for row in cells], title)
        need = Measurement.get(console, console.options.update_width(10_000), table).minimum
        if need <= width or not droppable:
            hidden = [c for i, c in enumerate(columns) if i not in shown]
            return table, hidden, max(width, need)
        shown.remove(droppable.pop(0))
