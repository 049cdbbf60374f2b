"""Test-only hooks are off by default: crash points arm only with REELSTREAM_TEST_HOOKS=1, never in production."""

import pytest

from shared.crash import _targets
from shared.test_only import HookRefused


def test_crash_points_are_parsed_only_behind_the_test_flag():
    assert _targets({}) == {}
    assert _targets({"REELSTREAM_CRASH_AT": ""}) == {}
    assert _targets({"REELSTREAM_TEST_HOOKS": "1", "REELSTREAM_CRASH_AT": "wallet.after_produce:3,spin.x"}) == {
        "wallet.after_produce": 3,
        "spin.x": 1,
    }


@pytest.mark.parametrize(
    "environ",
    [
        {"REELSTREAM_CRASH_AT": "wallet.after_produce:3"},
        {"REELSTREAM_CRASH_AT": "a", "REELSTREAM_TEST_HOOKS": "yes"},
        {"REELSTREAM_CRASH_AT": "a", "REELSTREAM_TEST_HOOKS": "1", "REELSTREAM_ENV": "production"},
    ],
)
def test_an_armed_crash_point_without_the_flag_or_in_production_refuses_to_start(environ):
    with pytest.raises(HookRefused):
        _targets(environ)
