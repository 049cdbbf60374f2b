"""Where the monitor's pages are (no faust import: the demo and the CLI print it)."""

from __future__ import annotations

import os
from collections.abc import Mapping

PORT_ENV = "REELSTREAM_MONITOR_PORT"
BIND_ENV = "REELSTREAM_MONITOR_BIND"
DEFAULT_PORT = 8088


def monitor_port(environ: Mapping[str, str] | None = None) -> int:
    return int((os.environ if environ is None else environ).get(PORT_ENV, DEFAULT_PORT))


def monitor_url(environ: Mapping[str, str] | None = None) -> str:
    return f"http://127.0.0.1:{monitor_port(environ)}/"
