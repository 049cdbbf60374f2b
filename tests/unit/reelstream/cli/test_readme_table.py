"""docs/cli.md's CLI table lists every command of the typer app, as generated (python -m reelstream.readme_cli)."""

from __future__ import annotations

from reelstream.cli import leaf_commands
from reelstream.readme_cli import README, table, with_table


def test_the_cli_page_table_is_current():
    readme = README.read_text()
    assert with_table(readme) == readme, "stale: run python -m reelstream.readme_cli"


def test_the_table_names_every_command():
    generated = table()
    for path, _ in leaf_commands():
        assert f"| `reelstream {' '.join(path)}` |" in generated
