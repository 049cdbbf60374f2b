"""The deposit cap per currency: above it a deposit is refused with DEPOSIT_ABOVE_CAP unless an operator overrides
it; the caps come from the environment with safe defaults, and a nonsense cap stops the process at start."""

from __future__ import annotations

import pytest

from shared.config import DEFAULT_DEPOSIT_CAPS_MINOR, load_settings
from shared.deposit_cap import DEPOSIT_ABOVE_CAP, deposit_refusal

CAPS = {"EUR": 1_000_000, "DKK": 7_500_000}


def test_a_deposit_up_to_the_cap_goes_through():
    assert deposit_refusal(1_000_000, "EUR", CAPS) is None


def test_a_deposit_above_the_cap_is_refused_with_a_code_and_both_amounts():
    refusal = deposit_refusal(1_000_000_000_000, "EUR", CAPS)
    assert refusal is not None and refusal.code == DEPOSIT_ABOVE_CAP
    assert "10,000,000,000.00 EUR" in refusal.message and "10,000.00 EUR" in refusal.message


def test_an_operator_override_lets_it_through():
    assert deposit_refusal(1_000_000_000_000, "EUR", CAPS, override=True) is None


def test_caps_come_from_the_environment_per_currency():
    assert load_settings({}).deposit_caps_minor == DEFAULT_DEPOSIT_CAPS_MINOR
    assert load_settings({"REELSTREAM_DEPOSIT_CAP_MINOR_DKK": "500"}).deposit_caps_minor["DKK"] == 500


@pytest.mark.parametrize("value", ["0", "-5", "lots"])
def test_a_nonsense_cap_stops_the_process(value):
    with pytest.raises(ValueError):
        load_settings({"REELSTREAM_DEPOSIT_CAP_MINOR_EUR": value})
