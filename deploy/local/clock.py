"""One local process's wall clock set off by a fixed offset with libfaketime (Debian `faketime libfaketime`): LD_PRELOAD
and FAKETIME in that process's environment only, the monotonic clock left real (the JVM times its waits with it)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from deploy.local.exceptions import InfraError

# Where Debian's libfaketime package puts the library, per architecture.
LIBRARY_CANDIDATES = (
    Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
    Path("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"),
    Path("/usr/lib/faketime/libfaketime.so.1"),
)


def faketime_library(candidates: tuple[Path, ...] = LIBRARY_CANDIDATES) -> Path:
    """The libfaketime shared object; InfraError naming the package when none is installed."""
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise InfraError("libfaketime is not installed (Debian: apt-get install faketime libfaketime)")


def skewed_environ(environ: Mapping[str, str], offset_s: int, library: Path) -> dict[str, str]:
    """`environ` with the wall clock `offset_s` seconds off (positive: ahead). Only the wall clock moves: a faked
    monotonic clock makes the JVM's timed waits misfire; with the monotonic clock real, the library's fix-up of
    condition waits has nothing to correct and, left on, slows every clock read of a JVM about tenfold (a broker does
    not finish starting). A preload another tool set is kept after ours."""
    preload = " ".join(filter(None, (str(library), environ.get("LD_PRELOAD", ""))))
    return {
        **environ,
        "LD_PRELOAD": preload,
        "FAKETIME": f"{offset_s:+d}",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        "FAKETIME_FORCE_MONOTONIC_FIX": "0",
    }
