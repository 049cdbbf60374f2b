"""A local node's skewed wall clock (pure): libfaketime in that node's environment only, the monotonic clock real."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy.local.clock import faketime_library, skewed_environ
from deploy.local.exceptions import InfraError

LIBRARY = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")


def test_a_skewed_environment_preloads_the_library_and_moves_only_the_wall_clock():
    environ = skewed_environ({"PATH": "/bin"}, 3660, LIBRARY)
    assert environ["LD_PRELOAD"] == str(LIBRARY)
    assert environ["FAKETIME"] == "+3660"
    assert environ["FAKETIME_DONT_FAKE_MONOTONIC"] == "1"
    assert environ["FAKETIME_FORCE_MONOTONIC_FIX"] == "0"
    assert environ["PATH"] == "/bin"


def test_a_clock_behind_is_written_with_its_sign_and_another_preload_is_kept_after_ours():
    environ = skewed_environ({"LD_PRELOAD": "/opt/other.so"}, -30, LIBRARY)
    assert environ["FAKETIME"] == "-30"
    assert environ["LD_PRELOAD"] == f"{LIBRARY} /opt/other.so"


def test_the_given_environment_is_left_as_it_was():
    given = {"PATH": "/bin"}
    skewed_environ(given, 60, LIBRARY)
    assert given == {"PATH": "/bin"}


def test_the_library_is_the_first_installed_candidate(tmp_path: Path):
    present = tmp_path / "libfaketime.so.1"
    present.write_bytes(b"")
    assert faketime_library((tmp_path / "absent.so.1", present)) == present


def test_no_library_installed_names_the_packages(tmp_path: Path):
    with pytest.raises(InfraError, match="faketime libfaketime"):
        faketime_library((tmp_path / "absent.so.1",))
