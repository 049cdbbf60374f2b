"""A spin book restored from a snapshot image taken at any point of a history, plus the fold of the facts written
after it, equals the book folded from the beginning (the restore rule of spin.snapshots, docs/snapshots.md)."""

import itertools
import json
import uuid

import pytest
from hypothesis import given, settings, strategies as st

from services.spin.core import evolve as fold
from services.spin.adapters import answers, image
from services.spin.adapters.answers import Partition, kept_answers
from services.spin.core.book import Pending, SpinBook
from shared.events import decode
from tests.support.spin import (
    answers_of,
    read_back,
    CLAIM,
    NOW_MS,
    Seeds,
    debit_refused_for,
    debited_for,
    placed_for,
    decoded,
    handle_event,
    handle_request,
    make_context,
    only,
    request_bytes,
    settled_for,
    claim_refused_for,
    won_for,
)

TOPICS = ("journal", "events", "jackpot")  # the rebuild's fold order
PLAYERS = ("p-1", "p-2", "p-3")


def normalized(held: Partition, ctx) -> bytes:
    """The book's image, with its answers as kept, with every pending game state computed and empty in-flight sets
    dropped: what two books that decide alike have in common (a live book computes states and outcomes lazily, a
    folded one at other times), in key order."""
    book = held.book
    for key, state in list(book.game_states.items()):
        if isinstance(state, Pending):
            fold.game_state(book, ctx.catalog, *key)
    book.in_flight = {key: ids for key, ids in sorted(book.in_flight.items()) if ids}
    book.records = dict(sorted(book.records.items()))  # the order facts were folded in is not state
    book.game_states = dict(sorted(book.game_states.items()))
    book.accepted_at = dict(sorted(book.accepted_at.items()))
    book.now_ms = NOW_MS
    return image.encode(book, held.answers)


def fold_fact(held: Partition, value: bytes) -> None:
    """One fact of the spin's topics folded as a restore folds it (rebuild._fold_one), keyed as the spin writes it."""
    event = decode(value)
    answers.read_back(held.book, held.answers, read_back(event), (event.key, value))


def folded(facts, ctx, start: Partition | None = None, positions=None) -> Partition:
    held = start if start is not None else Partition()
    for topic in TOPICS:
        for value in facts[topic][(positions or {}).get(topic, 0) :]:
            fold_fact(held, value)
    fold.finish_rebuild(held.book, ctx.catalog)
    return held


class History:
    """Drives a live book with requests and the wallet's and jackpot's answers, keeping what the spin service wrote
    per folded topic, and the live book's image with the positions after every step."""

    def __init__(self, seeds: list[bytes]) -> None:
        self.ctx = make_context(Seeds(*seeds))
        self.live = SpinBook()
        self.facts = {topic: [] for topic in TOPICS}
        self.waiting = {"debit": [], "claim": [], "settle": []}
        self.images = [(image.encode(self.live, answers_of(self.live)), {topic: 0 for topic in TOPICS})]
        self.sent = []

    def keep(self, effects, jackpot_raw: bytes | None = None) -> None:
        if jackpot_raw is not None:
            self.facts["jackpot"].append(jackpot_raw)
        for out in effects.journal:
            self.facts["journal"].append(out.value)
        for out in effects.outputs:
            if out.kind == "answer":
                self.facts["events"].append(out.value)
            elif out.kind in self.waiting or out.kind == "place":
                self.waiting["debit" if out.kind == "place" else out.kind].append(out)
        written = {topic: len(values) for topic, values in self.facts.items()}
        self.images.append((image.encode(self.live, answers_of(self.live)), written))

    def step(self, action: int, pick: int) -> None:
        kind = ("request", "repeat", "debit", "claim", "settle")[action]
        if kind == "request":
            game, currency, stakes = (("rising-joker", "EUR", (10, 100)), ("stjernestoev", "DKK", (50, 100)))[pick % 2]
            _, raw = request_bytes(
                player=PLAYERS[pick % 3],
                game=game,
                currency=currency,
                stake=stakes[pick // 2 % 2],
                token="good" if pick % 5 else "x",
                forfeit=pick % 7 == 0,
            )
            self.sent.append((raw, PLAYERS[pick % 3]))
            self.keep(handle_request(self.live, self.ctx, raw, PLAYERS[pick % 3].encode(), NOW_MS, 0, len(self.sent)))
        elif kind == "repeat" and self.sent:
            raw, player = self.sent[pick % len(self.sent)]
            self.keep(handle_request(self.live, self.ctx, raw, player.encode(), NOW_MS, 0, len(self.sent)))
        elif self.waiting.get(kind):
            out = self.waiting[kind].pop(pick % len(self.waiting[kind]))
            # The wallet and the jackpot de-duplicate by command id: a command sent again gets the same answer.
            if kind == "debit":  # a DebitWager, or a PlaceWager whose acceptance is its debit and settlement
                taken = decoded(out).transaction_id.int % 4
                events = (placed_for(out) if out.kind == "place" else (debited_for(out),)) if taken else ()
                for event in events or (debit_refused_for(out),):
                    self.keep(handle_event(self.live, self.ctx, event))
            elif kind == "claim":
                event, raw = won_for(out) if decoded(out).claim_id.int % 3 else claim_refused_for(out)
                self.keep(handle_event(self.live, self.ctx, event), raw)
            else:
                self.keep(handle_event(self.live, self.ctx, settled_for(out)))


steps = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 1000)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(steps=steps, seeds=st.lists(st.sampled_from([CLAIM, bytes(32)]), max_size=20), cut=st.integers(0, 1000))
def test_a_restore_from_any_snapshot_equals_a_fold_from_the_beginning(steps, seeds, cut):
    history = History(seeds)
    for action, pick in steps:
        history.step(action, pick)
    snapshot, positions = history.images[cut % len(history.images)]
    restored = folded(history.facts, history.ctx, image.decode(snapshot), positions)
    fresh = folded(history.facts, history.ctx)
    assert normalized(restored, history.ctx) == normalized(fresh, history.ctx)


@settings(max_examples=80, deadline=None)
@given(
    steps=steps,
    seeds=st.lists(st.sampled_from([CLAIM, bytes(32)]), max_size=20),
    cuts=st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 1000)), max_size=8),
)
def test_a_book_kept_warm_in_steps_with_its_journal_ahead_equals_a_fold_from_the_beginning(steps, seeds, cuts):
    # A warm spare (services/spin/adapters/warm.py) folds the topics in steps: each step's events and jackpot answers
    # end where some transaction of the writer left them, its journal at or past where that transaction left it.
    history = History(seeds)
    for action, pick in steps:
        history.step(action, pick)
    held, at = Partition(), {topic: 0 for topic in TOPICS}
    for index, ahead in sorted(cuts, key=lambda cut: cut[0] % len(history.images)):
        _, positions = history.images[index % len(history.images)]
        journal = positions["journal"] + ahead % (len(history.facts["journal"]) - positions["journal"] + 1)
        cut = {**positions, "journal": journal}
        for topic in TOPICS:
            end = max(at[topic], cut[topic])
            for value in history.facts[topic][at[topic] : end]:
                fold_fact(held, value)
            at[topic] = end
        if ahead % 2:  # a step that also prunes, as the warm books do every PRUNE_EVERY_STEPS; the outcomes of
            # spins in flight are worked out only once the book is taken (finish_rebuild, at a consistent cut): a
            # journal ahead can hold a SpinVoided whose answer is not folded yet
            fold.prune(held.book, history.ctx.catalog, fold.window_start(held.book.now_ms))
            answers.trimmed(held.book, held.answers)
    warm = folded(history.facts, history.ctx, held, at)
    fresh = folded(history.facts, history.ctx)
    assert normalized(warm, history.ctx) == normalized(fresh, history.ctx)


@settings(max_examples=60, deadline=None)
@given(
    before=steps,
    after=steps,
    seeds=st.lists(st.sampled_from([CLAIM, bytes(32)]), max_size=20),
    rows_per_piece=st.integers(1, 5),
    prune=st.booleans(),
)
def test_an_image_in_pieces_is_the_book_as_it_was_when_they_were_asked_for(before, after, seeds, rows_per_piece, prune):
    # The loop draws an image's pieces one per turn while the book goes on changing (shared/snapshots.drawn).
    history = History(seeds)
    for action, pick in before:
        history.step(action, pick)
    expected, _ = history.images[-1]
    pieces = image.pieces(history.live, answers_of(history.live), rows_per_piece)
    drawn = [next(pieces)]
    for action, pick in after:
        history.step(action, pick)
        drawn.extend(itertools.islice(pieces, 1))
    for key, state in list(history.live.game_states.items()):  # outcomes worked out, answered requests forgotten
        if isinstance(state, Pending):
            fold.game_state(history.live, history.ctx.catalog, *key)
    if prune:
        fold.prune(history.live, history.ctx.catalog, NOW_MS + 10**9)
    again = image.decode(expected)
    assert b"".join(drawn + list(pieces)) == expected == image.encode(again.book, again.answers)


def test_an_image_is_never_asked_for_in_pieces_of_no_request():
    with pytest.raises(ValueError, match="positive"):
        image.pieces(SpinBook(), None, 0)


def test_an_image_keeps_an_answer_byte_for_byte_and_a_spin_in_flight_resumes_with_its_seed():
    history = History([CLAIM])
    history.step(0, 6)  # a Rising Joker request with a good token
    history.keep(handle_event(history.live, history.ctx, debited_for(history.waiting["debit"].pop())))  # claims sent
    request_id = next(iter(history.live.records))
    kept = answers_of(history.live)
    book = image.decode(image.encode(history.live, kept)).book
    fold.finish_rebuild(book, history.ctx.catalog)
    assert book.records[request_id].status == "claiming"
    assert book.records[request_id].seed_hex == history.live.records[request_id].seed_hex
    assert book.records[request_id].result == history.live.records[request_id].result
    history.step(0, 5)  # a forged token: answered at once
    answered = [str(r.answer_id) for r in history.live.records.values() if r.answered]
    again = image.decode(image.encode(history.live, kept))
    assert answered and [again.answers.again(name) for name in answered] == [kept.again(name) for name in answered]


def test_an_answer_an_older_build_wrote_is_restored_from_an_image_as_written_and_a_repeat_is_those_bytes():
    # Other spacing, as an older codec might write it: the image and the repeat keep those very bytes, never this
    # build's encoding of the same answer.
    live, ctx = SpinBook(), make_context()
    _, raw = request_bytes(token="forged")
    first = only(handle_request(live, ctx, raw, b"p-1", NOW_MS, 0, 0).outputs, "answer")
    older = json.dumps(json.loads(first.value), indent=1).encode()
    (answer_id,) = [str(record.answer_id) for record in live.records.values()]
    kept = kept_answers()
    kept.kept(answer_id, (first.key, older), NOW_MS)
    held = image.decode(image.encode(live, kept))
    for name, where in held.answers.places():  # the runner's answers of the restored partition
        answers_of(held.book).kept(name, where, NOW_MS)
    again = only(handle_request(held.book, ctx, raw, b"p-1", NOW_MS, 0, 1).outputs, "answer")
    assert older != first.value and (again.key, again.value) == (first.key, older)


@pytest.mark.parametrize(
    "raw", [b"[]", b'{"v": 2}', b'{"v": 1}', b"not json", b'{"v": 1, "now_ms": 0, "records": [[1]], "game_states": []}']
)
def test_an_image_this_code_cannot_read_is_refused(raw):
    with pytest.raises(image.ImageError):
        image.decode(raw)


def test_an_empty_book_round_trips():
    book = image.decode(image.encode(SpinBook(now_ms=5))).book
    assert book.now_ms == 5 and not book.records and not book.game_states
    assert uuid.UUID(int=0) not in book.records


def test_an_image_that_also_names_the_inputs_positions_still_reads():
    # Images of 2026-12-03 17:50-21:32 kept them; the snapshot's manifest names them (Restoration.inputs).
    kept = b'{"v":1,"now_ms":5,"records":[],"game_states":[],"in_flight":[],"accepted_at":[],"inputs":{"x":4}}'
    assert image.decode(kept).book.now_ms == 5
