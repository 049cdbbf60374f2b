"""Bounded waits: poll a predicate until it holds or a deadline passes (no bare sleeps anywhere)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    """The awaited condition did not hold before the deadline."""


def wait_until(predicate: Callable[[], T], timeout_s: float, interval_s: float = 0.1, what: str = "condition") -> T:
    """Return the first truthy value of `predicate()`; raise WaitTimeout after `timeout_s` seconds."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"{what} did not hold within {timeout_s:.1f} s")
        time.sleep(interval_s)


async def wait_until_async(
    predicate: Callable[[], Awaitable[T]], timeout_s: float, interval_s: float = 0.1, what: str = "condition"
) -> T:
    """Async twin of `wait_until` for coroutine predicates."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = await predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"{what} did not hold within {timeout_s:.1f} s")
        await asyncio.sleep(interval_s)
