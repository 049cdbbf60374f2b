"""One output layer for every read command: amounts and times as shared/display/ writes them, tables that fit the
terminal, and JSON/CSV with stable field names for scripts."""

from shared.display.cells import Column, Money
from reelstream.output.options import FORMAT, UNITS, Format, Units
from reelstream.output.render import View, emit, render_text

__all__ = ["Column", "Money", "FORMAT", "UNITS", "Format", "Units", "View", "emit", "render_text"]
