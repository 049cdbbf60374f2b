"""An operator's cashier sees a player's balance in the results copied to wallet.answers.<O>: per currency the one the
latest distinct result carries, in partition order; a repeat copied again later is the first answer and changes
nothing; results without a balance (limits, self-exclusions, refusals before the account) carry none. The CLI's
`wallet balance --operator` shows it with when and from which result, and says what it leaves out.
"""

from __future__ import annotations

import contextlib
import io
import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from reelstream.cashier_balance import CashierBalance, OperatorBalances, latest_balances
from reelstream.cli import run
from reelstream.commands import wallet
from shared.events import envelope
from shared.events.wallet import CommandRejected, Deposited, LimitSet, Posting, Withdrawn, player_account

T0 = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)
PLAYER = "p-1"


def _posted(model, minutes: int, amount_minor: int, balance_minor: int, currency: str = "EUR", player=PLAYER):
    sign = 1 if model is Deposited else -1
    at = T0 + timedelta(minutes=minutes)
    data = model(
        transaction_id=uuid.uuid4(),
        player_id=player,
        recorded_at=at,
        currency=currency,
        postings=(
            Posting(account=player_account(player), amount_micro=sign * amount_minor * 10**6),
            Posting(account="cashier", amount_micro=-sign * amount_minor * 10**6),
        ),
        balance_after_minor=balance_minor,
        amount_minor=amount_minor,
    )
    return envelope(data, source="wallet", time=at)


def _refused(minutes: int, balance_minor: int | None, currency: str | None = "EUR"):
    at = T0 + timedelta(minutes=minutes)
    data = CommandRejected(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        recorded_at=at,
        command_type="reelstream.wallet.withdraw.v1",
        code="INSUFFICIENT_FUNDS",
        message="not enough",
        currency=currency,
        balance_after_minor=balance_minor,
    )
    return envelope(data, source="wallet", time=at)


def _by_currency(balances: list[CashierBalance]) -> dict[str, int]:
    return {seen.currency: seen.balance_minor for seen in balances}


def test_each_currency_shows_the_balance_of_its_latest_result():
    deposited, withdrawn = _posted(Deposited, 0, 10_000, 10_000), _posted(Withdrawn, 1, 3_000, 7_000)
    kroner = _posted(Deposited, 2, 50_000, 50_000, "DKK")
    balances = latest_balances([deposited, kroner, withdrawn], PLAYER)
    assert _by_currency(balances) == {"DKK": 50_000, "EUR": 7_000}
    eur = next(seen for seen in balances if seen.currency == "EUR")
    assert (eur.as_of, eur.transaction_id) == (withdrawn.data.recorded_at, withdrawn.data.transaction_id)
    assert eur.event_type == Withdrawn.TYPE


def test_a_repeat_copied_later_keeps_the_balance_of_the_result_after_it():
    deposited = _posted(Deposited, 0, 10_000, 10_000)
    withdrawn = _posted(Withdrawn, 1, 3_000, 7_000)
    assert _by_currency(latest_balances([deposited, withdrawn, deposited], PLAYER)) == {"EUR": 7_000}


def test_a_refusal_carries_the_balance_it_left_and_one_without_a_balance_carries_none():
    deposited = _posted(Deposited, 0, 10_000, 10_000)
    assert _by_currency(latest_balances([deposited, _refused(1, 10_000)], PLAYER)) == {"EUR": 10_000}
    assert latest_balances([_refused(1, None, None)], PLAYER) == []
    limit = LimitSet(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        recorded_at=T0,
        currency="EUR",
        kind="deposit",
        period="day",
        amount_minor=100,
        effective_at=T0,
    )
    assert latest_balances([envelope(limit, source="wallet", time=T0)], PLAYER) == []


def test_another_players_results_are_not_this_ones():
    other = _posted(Deposited, 0, 10_000, 10_000, player="p-2")
    assert latest_balances([other], PLAYER) == []


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def answers(monkeypatch):
    """The CLI's reading of wallet.answers.<O>, replaced by what the test puts in `found` (asked: who and what)."""
    found: dict = {"balances": [], "untrusted": 0, "asked": []}

    def fake(bootstrap, prefix, operator_id, player_id, role=None):
        found["asked"].append((operator_id, player_id))
        return OperatorBalances(found["balances"], found["untrusted"])

    monkeypatch.setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
    monkeypatch.setattr(wallet, "cashier_balances", fake)
    monkeypatch.setattr(wallet, "_player_events", lambda player_id: pytest.fail("wallet.events must not be read"))
    return found


def test_the_cli_shows_an_operators_view_with_when_and_what_it_leaves_out(answers):
    withdrawn = _posted(Withdrawn, 1, 3_000, 7_000)
    answers["balances"] = latest_balances([withdrawn], PLAYER)
    code, out, err = _run(["wallet", "balance", PLAYER, "--operator", "demo-a", "--format", "json"])
    assert code == 0, err
    assert answers["asked"] == [("demo-a", PLAYER)]
    view = json.loads(out)
    (row,) = view["balances"]
    assert (row["player_id"], row["currency"], row["event"]) == (PLAYER, "EUR", "withdrawn")
    assert row["transaction_id"] == str(withdrawn.data.transaction_id)
    assert row["as_of"].startswith("2026-12-02T12:01:00")
    code, out, _ = _run(["wallet", "balance", PLAYER, "--operator", "demo-a"])
    assert code == 0 and "70.00" in out and "spins since are not in it" in out


def test_the_cli_says_when_the_operator_has_no_result_for_the_player_and_skipped_records(answers):
    answers["untrusted"] = 1
    code, out, err = _run(["wallet", "balance", PLAYER, "--operator", "demo-a"])
    assert code == 3 and out == ""
    assert "no cashier result of demo-a" in err and "wallet.answers.demo-a" in err
    assert "1 record(s)" in err


def test_an_unknown_operator_is_a_usage_error(answers):
    code, _, err = _run(["wallet", "balance", PLAYER, "--operator", "nope"])
    assert code == 2 and "unknown operator 'nope'" in err
    assert answers["asked"] == []
