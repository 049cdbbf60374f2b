"""shared/forked.py: bytes computed in a forked child from the memory as it was at the fork, whatever the parent does
next; a child that raises or dies half way is an error where the bytes are awaited, never bytes; without fork, at
once in the caller."""

from __future__ import annotations

import os

import pytest

from shared import forked


def test_the_child_sees_the_state_as_it_was_at_the_fork_while_the_parent_changes_it():
    state = {"n": 1}
    pending = forked.start(lambda: b"%d in %d" % (state["n"], os.getpid()), fork=True)
    state["n"] = 2  # the parent goes on at once
    n, _, pid = pending.result(timeout=30).partition(b" in ")
    assert n == b"1" and int(pid) != os.getpid()


def test_the_child_works_at_the_lowest_priority_and_the_parent_keeps_its_own():
    before = os.nice(0)
    child = int(forked.start(lambda: b"%d" % os.nice(0), fork=True).result(timeout=30))
    assert child == min(19, before + forked.CHILD_NICENESS) and os.nice(0) == before


def test_bytes_larger_than_a_pipe_buffer_arrive_whole():
    data = os.urandom(5 * 1024 * 1024)
    assert forked.start(lambda: data, fork=True).result(timeout=30) == data


def test_a_child_that_raises_is_an_error_where_the_bytes_are_awaited():
    def broken() -> bytes:
        raise ValueError("no image")

    with pytest.raises(forked.ForkedWorkFailed):
        forked.start(broken, fork=True).result(timeout=30)


def test_a_child_that_dies_half_way_is_an_error_not_a_short_image():
    def dies() -> bytes:
        os._exit(0)  # leaves before writing anything, with a clean exit code

    with pytest.raises(forked.ForkedWorkFailed):
        forked.start(dies, fork=True).result(timeout=30)


def test_without_fork_the_work_runs_at_once_in_the_caller():
    state = {"n": 1}
    pending = forked.start(lambda: b"%d in %d" % (state["n"], os.getpid()), fork=False)
    state["n"] = 2
    assert pending.result(timeout=1) == b"1 in %d" % os.getpid()


def test_the_environment_can_turn_the_fork_off():
    assert forked.enabled({}) and not forked.enabled({forked.FORK_ENV: "0"})
