"""The output layer's rules: amounts in major units with the sign and currency, exact integers in minor and micro
units, one UTC time format, times parsed as people write them, and tables that drop columns instead of cutting."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pydantic_core import PydanticCustomError

from reelstream import arguments
from reelstream.output import Column, Format, Money, Units, View, render_text
from shared.display.amounts import cell_text, exact_major, machine_value
from shared.display.times import machine_time, table_time

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "money, units, shown, machine",
    [
        (Money(18981, "EUR"), Units.major, "189.81 EUR", "189.81"),
        (Money(-200, "EUR"), Units.major, "-2.00 EUR", "-2.00"),
        (Money.micro(18_981_200_000, "EUR"), Units.major, "189.81 EUR", "189.812"),
        (Money.micro(18_981_200_000, "EUR"), Units.minor, "18,981.2 EUR", "18981.2"),
        (Money.micro(18_981_200_000, "EUR"), Units.micro, "18,981,200,000 EUR", 18_981_200_000),
        (Money(1_000_000_000_000, "DKK"), Units.major, "10,000,000,000.00 DKK", "10000000000.00"),
        (Money.micro(500_000, "EUR"), Units.major, "0.01 EUR", "0.005"),
        (Money.micro(-500_000, "EUR"), Units.major, "-0.01 EUR", "-0.005"),
    ],
)
def test_amounts(money, units, shown, machine):
    assert cell_text(money, units) == shown
    assert machine_value(money, units) == machine


def test_exact_major_keeps_every_digit():
    assert exact_major(Money.micro(500_000, "EUR")) == "0.005 EUR"


def test_one_time_format_in_utc():
    moment = datetime(2026, 11, 30, 8, 40, 51, 123000, tzinfo=timezone.utc)
    assert table_time(moment) == "2026-11-30 08:40:51"
    assert machine_time(moment) == "2026-11-30T08:40:51.123Z"
    assert table_time(int(moment.timestamp() * 1000)) == "2026-11-30 08:40:51"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-11-30", datetime(2026, 11, 30, tzinfo=timezone.utc)),
        ("2026-11-30T07:40:00Z", datetime(2026, 11, 30, 7, 40, tzinfo=timezone.utc)),
        ("2026-11-30 07:40", datetime(2026, 11, 30, 7, 40, tzinfo=timezone.utc)),
        ("-1d", datetime(2026, 11, 30, 10, 0, tzinfo=timezone.utc)),
        ("-6h", datetime(2026, 12, 1, 4, 0, tzinfo=timezone.utc)),
        ("yesterday", datetime(2026, 11, 30, tzinfo=timezone.utc)),
        ("now", NOW),
    ],
)
def test_times_as_people_write_them(text, expected):
    assert arguments.moment(text, NOW) == expected


@pytest.mark.parametrize("text", ["soon", "2026-13-01", "-1y", "30/11/2026", ""])
def test_a_time_nobody_can_read_is_refused_with_the_formats(text):
    with pytest.raises(PydanticCustomError) as refused:
        arguments.moment(text, NOW)
    assert "2026-11-30" in str(refused.value) and "-1d" in str(refused.value)


COLUMNS = [
    Column("player", "player"),
    Column("at", "time", "time", priority=3),
    Column("reason", "reason", priority=None),
    Column("note", "note", priority=1),
    Column("amount", "amount", "money"),
    Column("after", "balance after", "money", priority=2),
]
ROW = {
    "player": "player-with-a-long-id",
    "at": NOW,
    "reason": "a reason that takes a few words to say",
    "note": "low value",
    "amount": Money(-1_000_000_000_000, "EUR"),
    "after": Money(123_456, "EUR"),
}


@pytest.mark.parametrize("width", [60, 80, 100, 160])
def test_tables_fit_and_never_cut_a_number(width):
    text = render_text([View("rows", COLUMNS, [ROW])], Format.table, Units.major, width)
    lines = text.rstrip("\n").splitlines()
    assert all(len(line.rstrip()) <= width for line in lines), text
    assert "-10,000,000,000.00 EUR" in text
    dropped = [c.header for c in COLUMNS if c.header not in lines[0] and c.header.split()[0] not in lines[0]]
    priorities = {c.header: c.priority for c in COLUMNS}
    kept = [c.header for c in COLUMNS if c.header not in dropped]
    assert all(priorities[d] is not None for d in dropped)  # essential columns are never dropped
    assert all(priorities[d] <= min(priorities[k] if priorities[k] is not None else 99 for k in kept) for d in dropped)
    if dropped:
        assert "not shown at" in text


def test_json_and_csv_carry_exact_values_under_stable_names():
    view = View("rows", COLUMNS, [ROW])
    assert '"amount": "-10000000000.00"' in render_text([view], Format.json, Units.major)
    assert '"amount": -1000000000000' in render_text([view], Format.json, Units.minor)
    csv = render_text([view], Format.csv, Units.micro).splitlines()
    assert csv[0] == "player,at,reason,note,amount,after"
    assert csv[1].endswith(",-1000000000000000000,123456000000")
