"""Game recall as a person reads it: each game as blocks of words and boards (the Rising Joker window as a 5×3 grid
with winning lines marked, the Stjernestøv rings as a labelled diagram), rendered for the terminal or as HTML."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any

from reelstream.output import Money, Units
from shared.display.amounts import cell_text, exact_major
from reelstream.output.boards import (
    STJERNESTOEV_RINGS,
    circle_text,
    rising_joker_grid,
    stjernestoev_positions,
    stjernestoev_rings,
    winning_cells,
)
from shared.display.times import table_time

_NOT_WORDS = {
    "board",
    "board_after",
    "board_after_replacement",
    "wins",
    "factor_hundredths",
    "win_hundredths",
    "fixed_factor_hundredths",
}


@dataclass(frozen=True)
class Block:
    kind: str  # "text" | "rj-grid" | "sn-rings"
    title: str
    payload: Any


def describe(value: Any, currency: str, key: str = "") -> str:
    """A step's details as words: amounts in major units with the currency, lists and dicts flattened."""
    if key.endswith("_minor") and isinstance(value, int):
        return cell_text(Money(value, currency), Units.major)
    if key.endswith("_micro") and isinstance(value, int):
        return exact_major(Money.micro(value, currency))
    if key in ("ring", "entered", "left"):
        return (
            " ".join(f"B{k} {circle_text(c)}" for k, c in enumerate(value))
            if isinstance(value, list)
            else circle_text(value)
        )
    if isinstance(value, dict):
        return ", ".join(
            f"{k.removesuffix('_minor').removesuffix('_micro').replace('_', ' ')} {describe(v, currency, k)}"
            for k, v in value.items()
            if v not in (None, [], {}) and k not in _NOT_WORDS
        )
    if isinstance(value, list):
        return "; ".join(describe(item, currency, key) for item in value) if value else "none"
    return str(value)


def heading(game: dict[str, Any]) -> str:
    when = table_time(datetime.fromisoformat(str(game["settled_at"]).replace("Z", "+00:00")))
    return (
        f"{game['game']} · request {game['request_id']} · {when} UTC · model {game['model_version']} · "
        f"seed {game['seed'][:16]}…"
    )


def game_blocks(game: dict[str, Any]) -> list[Block]:
    steps, currency = game["steps"], game["currency"]
    wins = next((step["wins"] for step in steps if step["step"] == "line wins"), [])
    expands = any(step["step"] == "joker expands" for step in steps)
    ring = next((s["ring"] for s in steps if s["step"] == "bonus ring moves"), None) or [None] * 5
    first = next((s for s in steps if s["step"].startswith("cascade")), None)
    paying = {p for cluster in (first or {}).get("clusters", []) for p in cluster.get("positions", [])}
    blocks = []
    for step in steps:
        name = step["step"]
        if game["game"] == "rising-joker" and isinstance(step.get("board"), list):
            shown = wins if (name == "joker expands" or not expands) else []
            blocks.append(Block("rj-grid", name, (step["board"], shown, currency)))
        elif game["game"] == "stjernestoev" and isinstance(step.get("board"), list):
            blocks.append(Block("sn-rings", name, (step["board"], ring, paying)))
        elif name != "line wins":
            blocks.append(Block("text", name, describe({k: v for k, v in step.items() if k != "step"}, currency)))
    return blocks


def terminal_lines(game: dict[str, Any]) -> list[str]:
    lines = [heading(game)]
    for block in game_blocks(game):
        if block.kind == "text":
            lines.append(f"  - {block.title}: {block.payload}")
            continue
        lines.append(f"  - {block.title}:")
        drawn = rising_joker_grid(*block.payload) if block.kind == "rj-grid" else stjernestoev_rings(*block.payload)
        lines += [f"      {line}" for line in drawn]
    return lines


def _grid_html(window: list[list[str]], wins: list[dict[str, Any]], currency: str) -> str:
    marked = winning_cells(wins)
    rows = "".join(
        "<tr>"
        + "".join(
            f'<td class="{"win" if (r, c) in marked else ""}">{escape(symbol)}</td>' for c, symbol in enumerate(row)
        )
        + "</tr>"
        for r, row in enumerate(window)
    )
    notes = "".join(f"<li>{escape(line.strip())}</li>" for line in rising_joker_grid(window, wins, currency)[4:])
    return f'<table class="grid">{rows}</table>' + (f"<ul>{notes}</ul>" if notes else "")


def _rings_svg(board: list[str], ring: list[dict[str, Any] | None], paying: set[str]) -> str:
    """Concentric rings around the sun, each position a labelled dot; the bonus circles in an arc above."""
    symbols, size, centre = stjernestoev_positions(board), 420, 210
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + 70}" class="rings">',
        f'<circle cx="{centre}" cy="{centre + 70}" r="22" fill="#f6c945"/>',
        f'<text x="{centre}" y="{centre + 74}" text-anchor="middle" font-size="10">sun</text>',
    ]
    radii = {"I": 60, "M": 120, "O": 180}
    for _, prefix, count in STJERNESTOEV_RINGS:
        parts.append(f'<circle cx="{centre}" cy="{centre + 70}" r="{radii[prefix]}" fill="none" stroke="#ccd"/>')
        for k in range(count):
            angle = 2 * math.pi * k / count - math.pi / 2
            x, y = centre + radii[prefix] * math.cos(angle), centre + 70 + radii[prefix] * math.sin(angle)
            name = f"{prefix}{k}"
            stroke = ' stroke="#b3261e" stroke-width="3"' if name in paying else ""
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="17" fill="#eef2f6"{stroke}/>'
                f'<text x="{x:.1f}" y="{y - 1:.1f}" text-anchor="middle" font-size="9">'
                f"{escape(symbols[name])}</text>"
                f'<text x="{x:.1f}" y="{y + 9:.1f}" text-anchor="middle" font-size="7" fill="#667">'
                f"{name}</text>"
            )
    for k, circle in enumerate(ring):
        x = 50 + k * 80
        parts.append(
            f'<circle cx="{x}" cy="30" r="26" fill="#fff6d8" stroke="#c9a227"/>'
            f'<text x="{x}" y="28" text-anchor="middle" font-size="9">{escape(circle_text(circle))}</text>'
            f'<text x="{x}" y="40" text-anchor="middle" font-size="7" fill="#667">B{k}</text>'
        )
    return "".join(parts) + "</svg>"


STYLE = """body { font: 14px/1.4 system-ui, sans-serif; max-width: 1000px; margin: 2em auto; color: #1d232a; }
table.grid td { border: 1px solid #ccd; padding: .4em .8em; text-align: center; min-width: 5em; }
table.grid td.win { background: #fde2df; border: 2px solid #b3261e; font-weight: bold; }
h2 { font-size: 1.05em; margin-top: 2em; } li { margin: .15em 0; }"""


def page(player_id: str, games: list[dict[str, Any]]) -> str:
    html = [f"<h1>Game recall: {escape(player_id)}, last {len(games)} games</h1>"]
    for game in games:
        html.append(f"<h2>{escape(heading(game))}</h2><ul>")
        for block in game_blocks(game):
            if block.kind == "text":
                html.append(f"<li><b>{escape(block.title)}</b>: {escape(block.payload)}</li>")
            elif block.kind == "rj-grid":
                html.append(f"<li><b>{escape(block.title)}</b>{_grid_html(*block.payload)}</li>")
            else:
                html.append(f"<li><b>{escape(block.title)}</b><br>{_rings_svg(*block.payload)}</li>")
        html.append("</ul>")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Game recall {escape(player_id)}'
        f"</title><style>{STYLE}</style></head><body>" + "\n".join(html) + "</body></html>\n"
    )
