"""Money helpers: exact micro-units, floors with remainders, splits that never lose a unit."""

import pytest
from hypothesis import given, strategies as st

from shared.invariant import InvariantViolation
from shared.money import contribution_micro, format_minor, micro_floor_to_minor, split_by_weights


def test_a_contribution_in_ppm_of_a_stake_is_exact_in_micro_units():
    # 0.47 % of 50 øre is 0.235 øre.
    assert contribution_micro(50, 4700) == 235_000


def test_a_million_tiny_contributions_sum_exactly():
    assert sum(contribution_micro(50, 4700) for _ in range(1_000_000)) == 235_000_000_000


def test_rounding_down_keeps_the_remainder():
    assert micro_floor_to_minor(2_500_001) == (2, 500_001)


@given(
    st.integers(min_value=0, max_value=10**15),
    st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=8),
)
def test_a_split_by_weights_always_sums_to_the_amount(amount, weights):
    if sum(weights) == 0:
        with pytest.raises(InvariantViolation):
            split_by_weights(amount, weights)
        return
    parts = split_by_weights(amount, weights)
    assert sum(parts) == amount
    assert all(part >= 0 for part in parts)
    total = sum(weights)
    assert all(abs(part * total - amount * w) < total for part, w in zip(parts, weights))


def test_display_of_minor_units():
    assert format_minor(195_000, "DKK") == "1,950.00 DKK"
    assert format_minor(-5, "EUR") == "-0.05 EUR"
