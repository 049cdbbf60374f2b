"""`python -m reelstream.cli GROUP ...` (how every service process and every test's command starts) imports its own
group's module and no other group's; without a group, or with a word that names none, every group is there."""

from __future__ import annotations

import subprocess
import sys

# What `python -m reelstream.cli ARGS` runs, then the command groups it imported.
SCRIPT = """
import runpy, sys
sys.argv = ["reelstream", *sys.argv[1:]]
try:
    runpy.run_module("reelstream.cli", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
groups = sorted(name.split(".")[2] for name in sys.modules if name.startswith("reelstream.commands."))
print("groups:", " ".join(groups))
"""


def _imported_groups(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120)
    [line] = [line for line in done.stdout.splitlines() if line.startswith("groups:")]
    return set(line.split()[1:])


def test_a_groups_command_imports_that_group_only():
    assert _imported_groups("services", "--help") == {"services"}
    assert _imported_groups("refwallet", "--help") == {"refwallet"}


def test_the_root_help_and_a_word_that_names_no_group_have_every_group():
    every = _imported_groups("--help")
    assert {"services", "refwallet", "bench", "chaos", "wallet"} <= every
    assert _imported_groups("no-such-group") == every
