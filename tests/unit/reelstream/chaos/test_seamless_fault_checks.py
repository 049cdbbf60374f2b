"""The seamless fault run's checks over the operator's ledger rows and the clients' answers: a clean run finds
nothing, and each way a round can go wrong at the operator (a bet left open, closed twice, a win paid twice or of the
wrong amount, money moved for a refused spin, a round nobody asked, a balance its rows do not explain) is named."""

from __future__ import annotations

import dataclasses

from reelstream.chaos.seamless_checks import (
    Answer,
    Row,
    Rounds,
    accounting_problems,
    answer_problems,
    balance_problems,
    fault_accounting,
    ledger_problems,
    markdown,
    round_counts,
)


def _won(n: int, stake: int = 100, win: int = 40) -> list[Row]:
    bet = Row(f"bet-{n}", "bet", "p", stake, f"r{n}", "OK", won=True)
    return [bet, Row(f"win-{n}", "win", "p", win, f"r{n}", "OK", bet_transaction_id=bet.transaction_id)]


def _rolled_back(n: int, stake: int = 100) -> list[Row]:
    bet = Row(f"bet-{n}", "bet", "p", stake, f"r{n}", "OK", rolled_back=True)
    return [bet, Row(f"rb-{n}", "rollback", "p", stake, f"r{n}", "OK", bet_transaction_id=bet.transaction_id)]


def _clean() -> tuple[list[Row], list[Answer]]:
    refused_bet = Row("bet-3", "bet", "p", 100, "r3", "INSUFFICIENT_FUNDS")
    rows = [*_won(1), *_rolled_back(2), refused_bet]
    answers = [
        Answer("r1", True, 100, 40),
        Answer("r2", False, 100, code="WALLET_UNAVAILABLE"),
        Answer("r3", False, 100, code="INSUFFICIENT_FUNDS"),
        Answer("r4", False, 100, code="WALLET_UNAVAILABLE"),  # its bet never reached the operator
    ]
    return rows, answers


def test_a_clean_run_finds_nothing_and_counts_its_rounds():
    rows, answers = _clean()
    assert ledger_problems(rows, answers) == []
    assert round_counts(rows) == Rounds(bet=2, won=1, rolled_back=1, refused=1)
    assert balance_problems({"p": 1_000}, rows, {"p": 1_000 - 100 + 40}) == []


def test_a_bet_left_open_is_named():
    rows, answers = _clean()
    rows = [row for row in rows if row.transaction_id != "rb-2"]
    assert ledger_problems(rows, answers) == ["bet bet-2 (round r2) ends in 0: nothing"]


def test_a_bet_both_won_and_rolled_back_is_named():
    rows, answers = _clean()
    rows.append(Row("rb-1", "rollback", "p", 100, "r1", "OK", bet_transaction_id="bet-1"))
    assert ledger_problems(rows, answers) == ["bet bet-1 (round r1) ends in 2: rollback, win"]


def test_a_win_paid_twice_is_named_for_the_bet_and_for_the_request():
    rows, answers = _clean()
    rows.append(Row("win-1b", "win", "p", 40, "r1", "OK", bet_transaction_id="bet-1"))
    assert ledger_problems(rows, answers) == [
        "bet bet-1 (round r1) ends in 2: win, win",
        "request r1 settled winning 40, the operator paid [40, 40]",
    ]


def test_a_win_of_another_amount_than_answered_is_named():
    rows, answers = _clean()
    answers[0] = dataclasses.replace(answers[0], win_minor=41)
    assert ledger_problems(rows, answers) == ["request r1 settled winning 41, the operator paid [40]"]


def test_a_refused_spin_whose_win_was_paid_is_named():
    rows, answers = _clean()
    answers[0] = Answer("r1", False, 100, code="WALLET_UNAVAILABLE")
    assert ledger_problems(rows, answers) == ["request r1 refused WALLET_UNAVAILABLE, but the operator paid its win"]


def test_a_rollback_of_another_amount_a_stray_win_and_an_unasked_round_are_named():
    rows, answers = _clean()
    rows[3] = dataclasses.replace(rows[3], amount_minor=99)
    rows.append(Row("win-x", "win", "p", 5, "r9", "OK", bet_transaction_id="bet-9"))
    assert ledger_problems(rows, answers) == [
        "win win-x closes no accepted bet (bet-9)",
        "bet bet-2 of 100 rolled back with 99",
        "round r9 at the operator, asked by no request",
    ]


def test_two_accepted_bets_in_one_round_are_named():
    rows, answers = _clean()
    rows += [dataclasses.replace(row, transaction_id=row.transaction_id + "b") for row in _rolled_back(2)]
    rows[-1] = dataclasses.replace(rows[-1], bet_transaction_id="bet-2b")
    assert ledger_problems(rows, answers) == ["round r2 holds 2 accepted bets"]


def test_a_balance_the_rows_do_not_explain_is_named():
    rows, _ = _clean()
    assert balance_problems({"p": 1_000}, rows, {"p": 1_000}) == ["player p holds 1000, its rows say 940"]


def test_a_request_unanswered_or_answered_twice_is_named():
    answers = [Answer("a", True, 10), Answer("b", True, 10), Answer("b", True, 10)]
    assert answer_problems(["a", "b", "c"], answers) == [
        "request b: 2 answers to its client",
        "request c: 0 answers to its client",
    ]


def test_the_fault_accounting_gives_each_kinds_share_and_names_a_likely_kind_never_met():
    accounted = fault_accounting({"timeout": 50_000, "lost": 50_000, "http_500": 0}, 1_000, {"timeout": 48})
    assert accounted == {
        "timeout": {"planned_ppm": 50_000, "injected": 48, "share_ppm": 48_000},
        "lost": {"planned_ppm": 50_000, "injected": 0, "share_ppm": 0},
        "http_500": {"planned_ppm": 0, "injected": 0, "share_ppm": 0},
    }
    assert accounting_problems(accounted, 1_000) == ["lost: planned 50000 ppm of 1000 calls, none injected"]
    assert accounting_problems(fault_accounting({"lost": 50_000}, 100, {}), 100) == []  # 5 expected: may miss


def test_the_page_says_passed_or_failed_and_lists_the_problems():
    document = {
        "started_at": "t",
        "passed": False,
        "duration_s": 1.0,
        "requests": 2,
        "settled": 1,
        "rejected": {"WALLET_UNAVAILABLE": 1},
        "client_retries": 0,
        "wallet_calls": 4,
        "faults": fault_accounting({"lost": 50_000}, 4, {"lost": 1}),
        "restarts": [{"service": "wallet", "signal": "SIGKILL", "at_s": 1.0, "back_s": 2.0}],
        "rounds": {"bet": 2, "won": 1, "rolled_back": 1, "refused": 0},
        "latency": {"p50_s": 0.1, "p99_s": 0.2, "max_s": 0.2},
        "saga_open": 0,
        "saga_reported": 0,
        "unanswered": 0,
        "answers_per_request_max": 1,
        "reconciliation": {"exit": 0, "differences": 0},
        "audit": {"exit": 1, "discrepancies": 3},
        "problems": ["bet x ends in 0: nothing"],
    }
    page = markdown(document)
    assert "**FAILED**" in page and "| audit discrepancies | 3 (exit 1) |" in page
    assert "| wallet | SIGKILL | 1.0 | 2.0 |" in page and page.endswith("- bet x ends in 0: nothing\n")
    assert "**PASSED**" in markdown(document | {"passed": True, "problems": []})
