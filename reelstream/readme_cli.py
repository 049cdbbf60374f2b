"""The CLI table of docs/cli.md, generated from the typer app (a test fails when the page's copy is stale):
`python -m reelstream.readme_cli` rewrites it between its markers."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
START, END = "<!-- cli-table:start (python -m reelstream.readme_cli) -->", "<!-- cli-table:end -->"


def table() -> str:
    from reelstream.cli import leaf_commands

    rows = ["| command | what for |", "|---|---|"]
    for path, command in leaf_commands():
        summary = (command.help or "").strip().split("\n\n")[0].replace("\n", " ").replace("|", "\\|")
        rows.append(f"| `reelstream {' '.join(path)}` | {summary} |")
    return "\n".join(rows)


def with_table(readme: str) -> str:
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table()}\n{END}{tail}"


def main() -> None:
    README.write_text(with_table(README.read_text()))


if __name__ == "__main__":
    main()
