"""A spin restore streams its three topics (services/spin/adapters/rebuild.py: fold_streams): read a chunk a topic at a
time, merged by broker time, each topic in its own order, pruned as the live path prunes. Whatever the chunk size,
every record is folded once, in the stable merge's order; and the book equals the whole history folded topic after
topic then pruned (the rebuild as it was), while holding only a window's records on the way."""

from __future__ import annotations

import asyncio
import heapq
import json
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from services.spin.adapters import answers, rebuild
from services.spin.core import evolve as fold
from services.spin.adapters import image
from services.spin.core.book import SpinBook
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Message
from shared.events import decode
from shared.topics import SPIN_EVENTS, SPIN_JACKPOT_ANSWERS, SPIN_JOURNAL
from tests.support.spin import (
    NO_CLAIM,
    CLAIM,
    NOW_MS,
    Seeds,
    answers_of,
    debit_refused_for,
    debited_for,
    handle_event,
    handle_request,
    make_context,
    placed_for,
    request_bytes,
    settled_for,
    won_for,
)

TOPIC_OF = {"journal": SPIN_JOURNAL, "seed": SPIN_JOURNAL, "answer": SPIN_EVENTS}


def _record(name: str, offset: int, timestamp: int, value: bytes = b"") -> SimpleNamespace:
    return SimpleNamespace(
        topic=name, partition=0, offset=offset, key=b"p", value=value, headers=[], timestamp=timestamp
    )


def _stream(books, logs: dict[str, list], chunk: int, fold_one, prune_every: int = 5000) -> int:
    """fold_streams over in-memory logs (logical name -> records, offset = index), `chunk` offsets a read."""
    names = {name: (name, 0) for name in logs}
    ends = {name: len(records) for name, records in logs.items()}

    async def read(chunks):
        return {name: logs[name][start:end] for name, (start, end) in chunks.items()}

    catalog, first = make_context().catalog, dict.fromkeys(logs, 0)
    return asyncio.run(rebuild.fold_streams(books, catalog, names, first, ends, read, chunk, prune_every, fold_one))


def _evolve(book, catalog, name, record):  # the fold without the provenance check (unsigned test records)
    message = decode(record.value)
    answers.read_back(book, answers_of(book), Message(message, record.timestamp), (record.key, record.value))
    return getattr(message.data, "request_id", None)  # as rebuild._fold_one: the request id the fact names


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.tuples(st.sampled_from(rebuild.FOLD_ORDER), st.integers(-3, 5)), max_size=60),
    chunk=st.integers(1, 7),
)
def test_every_record_is_folded_once_in_the_stable_merge_of_the_topics_by_broker_time(gaps, chunk):
    # Timestamps mostly rise within a topic but may step back (a leader's clock): each topic keeps its own order.
    logs: dict[str, list] = {name: [] for name in rebuild.FOLD_ORDER}
    clock = dict.fromkeys(rebuild.FOLD_ORDER, 1_000)
    for name, step in gaps:
        clock[name] += step
        logs[name].append(_record(name, len(logs[name]), clock[name]))
    folded = []
    record_it = lambda book, catalog, name, record: folded.append((name, record.offset))  # noqa: E731
    assert _stream({0: SpinBook()}, logs, chunk, record_it) == len(gaps)
    tagged = [[(r.timestamp, i, r.offset) for r in logs[name]] for i, name in enumerate(rebuild.FOLD_ORDER)]
    expected = [(rebuild.FOLD_ORDER[i], offset) for _, i, offset in heapq.merge(*tagged, key=lambda t: t[:2])]
    assert folded == expected


def _played(
    spins: list[tuple[str, int]], broker_after_ms: int = 0, journal_late_ms: int = 0
) -> tuple[dict[str, list], SpinBook]:
    """What the spin service writes for each (kind, minutes after NOW) spin, with the broker time it was written at:
    journal and seeds on spin.journal, answers on spin.events, the jackpot's answers on spin.jackpot-answers.
    `broker_after_ms`: broker times that much after the messages' own times (a history written long after its
    spins); `journal_late_ms`: journal records stamped that much after the answers of the same step."""
    logs: dict[str, list] = {name: [] for name in rebuild.FOLD_ORDER}
    live = SpinBook()

    def write(name: str, value: bytes, at: int) -> None:
        late = journal_late_ms if name == SPIN_JOURNAL else 0
        logs[name].append(_record(name, len(logs[name]), at + broker_after_ms + late, value))

    for index, (kind, minutes) in enumerate(spins):
        at = NOW_MS + minutes * 60_000
        seeds = Seeds(CLAIM if kind == "claim" else NO_CLAIM)
        ctx = make_context(seeds)
        player = f"p-{index % 3}"
        token = "forged" if kind == "forged" else "good"
        _, raw = request_bytes(player=player, stake=100, token=token, time_ms=at)
        steps = [handle_request(live, ctx, raw, player.encode(), at, 0, index)]
        wager = [out for out in steps[0].outputs if out.kind in ("place", "debit")]
        if wager and kind == "refused":
            steps.append(handle_event(live, ctx, debit_refused_for(wager[0], "SELF_EXCLUDED"), at + 1))
        elif wager and wager[0].kind == "place":
            steps += [handle_event(live, ctx, fact, at + 1) for fact in placed_for(wager[0])]
        elif wager:
            steps.append(handle_event(live, ctx, debited_for(wager[0]), at + 1))
            settle = []
            for claim in [out for out in steps[-1].outputs if out.kind == "claim"]:
                won, won_raw = won_for(claim)
                write(SPIN_JACKPOT_ANSWERS, won_raw, at + 2)
                steps.append(handle_event(live, ctx, won, at + 2))
                settle += [out for out in steps[-1].outputs if out.kind == "settle"]
            steps.append(handle_event(live, ctx, settled_for(settle[-1]), at + 3))
        for step, effects in enumerate(steps):
            for out in effects.journal + effects.outputs:
                if out.kind in TOPIC_OF:
                    write(TOPIC_OF[out.kind], out.value, at + step)
    return logs, live


def _canonical(book: SpinBook) -> dict:
    """The book's image with its lists in a fixed order (a merged fold inserts records in another order)."""
    data = json.loads(image.encode(book, answers_of(book)))
    for name in ("records", "game_states", "in_flight", "accepted_at"):
        data[name] = sorted(data[name], key=json.dumps)
    return data


@settings(max_examples=40, deadline=None)
@given(
    spins=st.lists(
        st.tuples(st.sampled_from(["plain", "claim", "refused", "forged"]), st.integers(0, 4 * 60)),
        min_size=1,
        max_size=25,
    ).map(lambda spins: sorted(spins, key=lambda spin: spin[1])),
    chunk=st.integers(1, 9),
)
def test_a_streamed_restore_equals_the_whole_history_folded_topic_after_topic(spins, chunk):
    logs, _ = _played(spins)
    whole = _whole(logs)
    streamed = SpinBook()
    _stream({0: streamed}, logs, chunk, _evolve, prune_every=3)  # pruned often on the way, as a long history is
    fold.finish_rebuild(streamed, make_context().catalog)
    assert _canonical(streamed) == _canonical(whole)


def _whole(logs: dict[str, list]) -> SpinBook:
    """The rebuild as it was: each topic whole, in FOLD_ORDER, then pruned once."""
    whole = SpinBook()
    for name in rebuild.FOLD_ORDER:
        for record in logs[name]:
            _evolve(whole, None, name, record)
            whole.now_ms = max(whole.now_ms, record.timestamp)
    fold.finish_rebuild(whole, make_context().catalog)
    return whole


@settings(max_examples=30, deadline=None)
@given(
    spins=st.lists(
        st.tuples(st.sampled_from(["plain", "claim", "refused"]), st.integers(0, 30)), min_size=1, max_size=20
    ).map(lambda spins: sorted(spins, key=lambda spin: spin[1])),
    journal_late_ms=st.integers(1, 5_000),
    chunk=st.integers(1, 9),
)
def test_a_history_written_months_later_with_answers_stamped_before_their_seeds_restores_as_a_whole_fold(
    spins, journal_late_ms, chunk
):
    # The bench's synthetic history: message times months before the broker's, so every answered request is past the
    # window as soon as it is folded; and a seed stamped after its answer. Pruned on message time alone, a request
    # was dropped between its answer and its seed and came back seeded but unanswered (a settled wager re-played).
    logs, _ = _played(spins, broker_after_ms=90 * 86_400_000, journal_late_ms=journal_late_ms)
    streamed = SpinBook()
    _stream({0: streamed}, logs, chunk, _evolve, prune_every=1)
    fold.finish_rebuild(streamed, make_context().catalog)
    assert _canonical(streamed) == _canonical(_whole(logs))
    assert all(r.answered for r in streamed.records.values()), "no request came back unanswered"


def test_the_streamed_restore_holds_only_a_window_of_answered_spins_on_the_way():
    # Four hours of answered spins, one a minute: the book never holds much more than the last hour's.
    logs, _ = _played([("plain", minute) for minute in range(0, 240)])
    held = []

    def fold_one(book, catalog, name, record):
        _evolve(book, catalog, name, record)
        held.append(len(book.records))

    chunk, prune_every = 10, 20  # offsets a topic read at a time; records folded between two prunes (at the least)
    _stream({0: SpinBook()}, logs, chunk, fold_one, prune_every)
    window_spins = (DEDUP_WINDOW_MS + CLOCK_SKEW_MS) // 60_000 + 1  # what a repeat can still come for, a spin a minute
    # Between two prunes: at most `prune_every` records and one chunk of each topic, two records a spin.
    assert max(held) <= window_spins + (prune_every + 2 * chunk) // 2 < 240, max(held)
    assert len(held) == sum(len(records) for records in logs.values())
