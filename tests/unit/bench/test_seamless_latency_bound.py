"""Issue 47's latency criterion: the bound is ledger p99 + calls × the wallet's p99 a call + extra commits × commit
p99 over the stated paths, a seamless p99 at the bound passes and one above it fails."""

from __future__ import annotations

import pytest

from bench.seamless_bound import (
    LEDGER_PATH,
    SEAMLESS_PATH,
    AnswerPath,
    Measured,
    bound_ms,
    extra_commits,
    markdown,
    run_problems,
    verdict,
)

RUN = Measured(ledger_p99_ms=40.0, seamless_p99_ms=120.0, wallet_call_p99_ms=22.0, commit_p99_ms=15.0)


def test_the_seamless_answer_waits_for_a_bet_and_a_win_and_two_more_commits_than_the_ledgers():
    assert (LEDGER_PATH.wallet_calls, LEDGER_PATH.commits, LEDGER_PATH.plain_writes) == (0, 3, 0)
    assert (SEAMLESS_PATH.wallet_calls, SEAMLESS_PATH.commits, SEAMLESS_PATH.plain_writes) == (2, 5, 2)
    assert extra_commits(SEAMLESS_PATH, LEDGER_PATH) == 2
    assert sum("calls the wallet" in step for step in SEAMLESS_PATH.steps) == SEAMLESS_PATH.wallet_calls
    assert sum("commits" in step for step in SEAMLESS_PATH.steps) == SEAMLESS_PATH.commits
    assert sum("commits" in step for step in LEDGER_PATH.steps) == LEDGER_PATH.commits


def test_the_bound_is_the_ledger_p99_plus_each_call_and_each_extra_commit_at_their_p99():
    assert bound_ms(RUN) == 40.0 + 2 * 22.0 + 2 * 15.0


def test_a_seamless_p99_at_the_bound_passes_and_one_just_above_it_fails():
    at = Measured(40.0, 114.0, 22.0, 15.0)
    above = Measured(40.0, 114.001, 22.0, 15.0)
    assert verdict(at)["passed"] is True and verdict(at)["margin_ms"] == 0
    assert verdict(above)["passed"] is False and verdict(above)["margin_ms"] < 0


def test_a_seamless_p99_below_the_bound_passes_with_its_margin():
    judged = verdict(Measured(40.0, 100.0, 22.0, 15.0))
    assert judged["passed"] is True
    assert (judged["bound_ms"], judged["margin_ms"]) == (114.0, 14.0)
    assert (judged["wallet_calls_on_path"], judged["extra_commits_on_path"]) == (2, 2)
    assert judged["formula"] == "40.0 + 2 × 22.0 + 2 × 15.0"


def test_a_seamless_path_with_fewer_commits_than_the_ledgers_is_a_miscount():
    short = AnswerPath("seamless", ("spin: commits the answer",), wallet_calls=2, commits=1)
    with pytest.raises(AssertionError):
        extra_commits(short, LEDGER_PATH)


def _document(judged: dict) -> dict:
    mode = {"requests": 10, "settled": 10, "rejected": {}, "p50_ms": 1.0, "p99_ms": 2.0, "max_ms": 3.0}
    paths = {path.mode: {**path.__dict__, "steps": list(path.steps)} for path in (LEDGER_PATH, SEAMLESS_PATH)}
    return {
        "plan": {
            "stake_minor": 100,
            "rate_per_mode_per_s": 50.0,
            "ledger_operator": "demo-a",
            "seamless_operator": "demo-b",
            "wallet_latency_ms": 20,
            "seconds": 60.0,
            "warmup_s": 10.0,
            "players_per_mode": 500,
        },
        "started_at": "2026-12-07T14:00:00+00:00",
        "verdict": judged,
        "modes": {"ledger": mode, "seamless": mode},
        "wallet_calls": {"measured_by": "wallet", "calls": 20, "p50_ms": 21.0, "p99_ms": 22.0},
        "commits": {"commits": 30, "p99_ms": 15.0, "by_service": {"spin": {"p99_ms": 15.0}}},
        "machine": {"cpus": 2, "load_before_1_5_15min": [1.0, 1.0, 1.0], "load_after_1_5_15min": [2.0, 1.0, 1.0]},
        "answers": {"requests": 20, "once": 20, "more": 0, "none": 0},
        "paths": paths,
        "problems": [],
    }


def test_the_page_states_the_verdict_the_formula_and_both_paths():
    passed = markdown(_document(verdict(Measured(40.0, 100.0, 22.0, 15.0))))
    failed = markdown(_document(verdict(Measured(40.0, 200.0, 22.0, 15.0))))
    assert "**PASS**" in passed and "40.0 + 2 × 22.0 + 2 × 15.0" in passed
    assert "**FAIL**" in failed and "200.0 ms > bound 114.0 ms" in failed
    assert "**seamless**: 2 wallet calls, 5 transactional commits" in passed
    assert "**ledger**: 0 wallet calls, 3 transactional commits" in passed


def _mode(requests: int, answered: int, rejected: dict[str, int] | None = None) -> dict:
    return {"requests": requests, "answered": answered, "rejected": rejected or {}}


ONCE = {"requests": 20, "once": 20, "more": 0, "none": 0}


def test_a_run_whose_every_spin_settled_and_was_answered_once_has_no_problem():
    assert run_problems({"ledger": _mode(10, 10), "seamless": _mode(10, 10)}, ONCE) == []


def test_a_spin_unanswered_when_the_load_stopped_waiting_makes_the_run_unfit_to_judge():
    found = run_problems({"ledger": _mode(10, 10), "seamless": _mode(10, 9)}, ONCE)
    assert found == ["seamless: 1 of 10 unanswered"]


def test_a_refused_spin_or_an_answer_given_twice_makes_the_run_unfit_to_judge():
    twice = {"requests": 20, "once": 19, "more": 1, "none": 0}
    found = run_problems({"ledger": _mode(10, 10, {"SPIN_IN_PROGRESS": 2}), "seamless": _mode(10, 10)}, twice)
    assert found == [
        "ledger: refused {'SPIN_IN_PROGRESS': 2}",
        "answers: 1 requests answered more than once, 0 never",
    ]


def test_the_page_of_a_run_with_problems_says_it_is_not_valid():
    document = _document(verdict(Measured(40.0, 100.0, 22.0, 15.0))) | {"problems": ["seamless: 1 of 10 unanswered"]}
    assert "**Not a valid run**: seamless: 1 of 10 unanswered." in markdown(document)


def test_the_page_says_when_the_machine_had_more_work_than_cpus_before_the_run():
    quiet = _document(verdict(Measured(40.0, 100.0, 22.0, 15.0)))
    busy = quiet | {"machine": quiet["machine"] | {"load_before_1_5_15min": [9.5, 3.0, 1.0]}}
    assert "not final" not in markdown(quiet)
    assert "these timings are not final" in markdown(busy)
