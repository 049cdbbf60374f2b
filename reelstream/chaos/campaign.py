"""A hostile-record campaign planned (pure): the records a seed draws, their batches, when every service restarts, and
the bisection that narrows a failing batch down to the record that broke something."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from hypothesis import HealthCheck, Phase, given, seed, settings

from reelstream.chaos.fuzz import INPUT_TOPICS, PRINCIPALS, Hostile, hostile
from reelstream.chaos.fuzz_signed import Signer
from shared import operators
from shared.invariant import invariant

BATCH_MAX = 500
PROBE_OPERATOR = operators.OPERATORS[0]
# The probes' players: the operator's front end spins for the first, the public SDK client for the second.
PROBE_PLAYERS = ("fz-probe-1", "fz-probe-2")
# Named by hostile records and never by a probe: it must end the campaign with no money at all.
BYSTANDER = "fz-bystander"
PLAYERS = (*PROBE_PLAYERS, BYSTANDER)
T = TypeVar("T")


@dataclass(frozen=True)
class CampaignPlan:
    seed: int
    records: int
    batch: int = BATCH_MAX
    restart_every: int = 4  # batches between two restarts of every service (0: none)
    skip: tuple[str, ...] = ()  # record classes left out (see `classes`), e.g. "header:name-not-utf8"
    bisect: bool = True
    bisect_max_s: float = 1800.0
    probe_timeout_s: float = 60.0

    def __post_init__(self) -> None:
        invariant(1 <= self.batch <= BATCH_MAX, f"a batch holds 1 to {BATCH_MAX} records, not {self.batch}")
        invariant(self.records >= 1, "a campaign writes at least one record")
        invariant(self.restart_every >= 0, "restart_every is a count of batches")


def draw_records(
    seed_: int,
    count: int,
    now: datetime,
    signer: Signer,
    players: tuple[str, ...] = PLAYERS,
    topics: tuple[str, ...] = INPUT_TOPICS,
) -> list[Hostile]:
    """`count` records about `players` on `topics`, the same again for the same arguments, signing keys and hypothesis
    version.

    Hypothesis's own engine draws them (its strategies, its bias towards edge cases and its mutation of earlier
    examples): one test run of `records` examples under `@seed`, with no database, no shrinking and no time-based
    health checks, whose only source of randomness is the seeded generator. `strategy.example()` is not seedable
    and `find` stops at the first match; hypothesis internals stay private."""
    drawn: list[Hostile] = []
    rounds = 0
    while len(drawn) < count:
        wanted = count - len(drawn)

        @settings(
            max_examples=wanted,
            database=None,
            phases=[Phase.generate],
            deadline=None,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
        )
        @seed(seed_ + rounds * 1_000_003)  # another round only when hypothesis ended a run early
        @given(hostile(topics, players, now, signer))
        def collect(item: Hostile) -> None:
            drawn.append(item)

        collect()
        rounds += 1
        invariant(rounds < 100, "hypothesis keeps ending its runs without examples")
    return drawn[:count]


def classes(item: Hostile) -> tuple[str, ...]:
    """The classes a record belongs to, by what makes it hostile (what `CampaignPlan.skip` names)."""
    shape = item.shape.split("/")[0]
    return (
        f"topic:{item.topic}",
        f"value:{shape}",
        f"value:{item.shape}",
        f"key:{item.key_shape}",
        f"header:{item.header_shape}",
        f"codec:{item.codec or 'none'}",
    )


def kept(items: Sequence[Hostile], skip: Sequence[str]) -> list[Hostile]:
    return [item for item in items if not set(classes(item)) & set(skip)]


def batches(count: int, size: int) -> list[range]:
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def restart_after(plan: CampaignPlan, index: int) -> str | None:
    """How every service is restarted after batch `index` (0-based), if it is: SIGTERM and SIGKILL in turn."""
    if not plan.restart_every or (index + 1) % plan.restart_every:
        return None
    return "SIGTERM" if ((index + 1) // plan.restart_every) % 2 else "SIGKILL"


@dataclass(frozen=True)
class Narrowed:
    items: list  # the smallest part found that still fails alone
    failures: list  # what that part made fail (empty when no part failed alone)
    tries: int


def bisect(
    items: Sequence[T], fails: Callable[[list[T]], list], more_time: Callable[[], bool], context: Sequence[T] = ()
) -> Narrowed:
    """The smallest part of `items` that still fails with `context` beside it (`fails(records)`: what failed on a
    fresh deployment, empty if nothing), given that all of them together fail: halved while a half fails alone; when
    neither does (records that fail only together), each half is narrowed with the other beside it. Stops at one
    record or out of time."""
    current, failures, tries = list(items), [], 0
    while len(current) > 1 and more_time():
        first, second = current[: len(current) // 2], current[len(current) // 2 :]
        for part in (first, second):
            tries += 1
            found = fails([*context, *part])
            if found:
                current, failures = part, found
                break
        else:
            right = bisect(second, fails, more_time, [*context, *first])
            left = bisect(first, fails, more_time, [*context, *right.items])
            return Narrowed(left.items + right.items, left.failures or right.failures, tries + left.tries + right.tries)
    return Narrowed(current, failures, tries)


def _shown(raw: bytes | None, limit: int) -> str:
    if raw is None:
        return "None"
    more = f" … ({len(raw):,} bytes)" if len(raw) > limit else ""
    return repr(raw[:limit]) + more


def describe(item: Hostile, headers_shown: int = 12) -> dict:
    """A record as a report shows it: where and as whom it was written, and the start of its key, value and headers."""
    return {
        "topic": item.topic,
        "principal": PRINCIPALS[item.topic],
        "codec": item.codec or "none",
        "partition": item.partition,
        "shape": item.shape,
        "key_shape": item.key_shape,
        "header_shape": item.header_shape,
        "key": _shown(item.key, 64),
        "value": _shown(item.value, 160),
        "header_count": len(item.headers),
        "headers": [[_shown(raw_name(name), 48), _shown(value, 48)] for name, value in item.headers[:headers_shown]],
    }


def raw_name(name: str) -> bytes:
    """A header name's bytes on the wire (a `RawName` carries bytes that are not UTF-8)."""
    return getattr(name, "raw", None) or name.encode()
