"""The audit report as one self-contained HTML page (inline style, plots embedded as data URIs): it opens anywhere,
offline, and can be archived as a single file."""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path

from services.audit.adapters.report_sections import Section

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #1d232a; }
h1 { font-size: 1.6em; border-bottom: 3px solid #2c7a4b; padding-bottom: .3em; }
h1.findings { border-color: #b3261e; }
h2 { font-size: 1.2em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: .6em 0; font-variant-numeric: tabular-nums; }
th, td { padding: .25em .7em; border-bottom: 1px solid #d8dde3; text-align: left; vertical-align: top; }
td.n { text-align: right; white-space: nowrap; }
th { background: #f0f3f6; }
img { max-width: 100%; border: 1px solid #d8dde3; margin: .5em 0; }
"""


def _numeric(cell: str) -> bool:
    return bool(cell) and (cell[0].isdigit() or cell[0] == "-") and any(ch.isdigit() for ch in cell)


def _table(rows: list[list[str]]) -> str:
    header, *body = rows
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    lines = [
        "".join(f'<td class="n">{escape(c)}</td>' if _numeric(c) else f"<td>{escape(c)}</td>" for c in row)
        for row in body
    ]
    body_rows = "".join(f"<tr>{r}</tr>" for r in lines)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>"


def _image(path: Path, alt: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def page(parts: list[Section], plots: dict[str, Path]) -> str:
    html = []
    for part in parts:
        if part.level == 1:
            found = "" if part.verdict == "0 discrepancies" else ' class="findings"'
            html.append(f"<h1{found}>{escape(part.title)}: {escape(part.verdict)}</h1>")
        else:
            html.append(f"<h2>{escape(part.title)}</h2>")
        html += [f"<p>{escape(text)}</p>" for text in part.paragraphs]
        if part.table:
            html.append(_table(part.table))
        html += [_image(plots[name], part.title) for name in part.plots if name in plots]
    title = escape(parts[0].title) if parts else "Audit report"
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        f"<style>{STYLE}</style></head><body>" + "\n".join(html) + "</body></html>\n"
    )
