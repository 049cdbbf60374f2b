"""The jackpot process imports every game's engine before it follows or restores anything: its decisions read the
games' stakes, and an import in its first batch after a takeover held its event loop for over a second."""

from __future__ import annotations

import subprocess
import sys

# In a fresh interpreter: this test process has imported the games long ago.
SCRIPT = """
import asyncio, sys
import services.jackpot.app as app
from games.registry import GAMES
modules = ["games.rising_joker.model", "games.stjernestoev.engine"]
assert not any(m in sys.modules for m in modules), "imported before serve: the check proves nothing"

class Stop(Exception):
    pass

def load_pools():
    missing = [m for m in modules if m not in sys.modules]
    assert not missing, f"serve reached its pools before importing {missing}"
    raise Stop

app.load_pools = load_pools
try:
    asyncio.run(app.serve(None))
except Stop:
    print("games imported first")
"""


def test_serve_imports_every_game_before_anything_else():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "games imported first" in done.stdout
