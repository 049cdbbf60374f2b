"""evolve(book, fact) -> book: the one fold of the facts the spin service wrote, live (each fact `decide` decides, and
each jackpot answer it reads) and on rebuild (its journal, its answers, the jackpot's answers). In place, as every core
(shared/decision.py)."""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Container
from typing import Any

from services.spin.core.book import SPIN_RATE, ClaimAnswer, Fingerprint, Pending, SpinBook, SpinRecord
from services.spin.core.catalog import Catalog
from games.registry import UnknownGame, UnknownModel
from games.rng import SpinRng
from shared.config import CLOCK_SKEW_MS, DEDUP_WINDOW_MS
from shared.decision import Message
from shared.events import Envelope, epoch_ms
from shared.events.envelope import derived_id
from shared.events.jackpot import ClaimRejected, JackpotWon
from shared.events.spin import (
    BonusRingForfeited,
    RemainderStranded,
    SeedDrawn,
    SpinAccepted,
    SpinRejected,
    SpinSettled,
    SpinVoided,
    request_answer_id,
)
from shared.events.wallet import JackpotWonProof

# Rejections that answer one record, not the request id (they must not become "the" answer of that id).
PER_RECORD_CODES = frozenset({"DUPLICATE_CONFLICT", "REQUEST_EXPIRED", "INVALID_REQUEST", "WRONG_PARTITION"})


def claim_id(request_id: uuid.UUID, index: int, tier: str) -> uuid.UUID:
    return derived_id(request_id, "claim", index, tier)


def evolve(book: SpinBook, fact: Envelope[Any] | Message) -> SpinBook:
    """Fold one fact into the book and return it (unknown types are ignored: readers are tolerant). `fact`: one the
    core has just decided, or a consumed one as a Message, whose provenance comes with it (a JackpotWon's `proof`, the
    jackpot's signed record, kept for the settlement). An answer is kept by its id: its bytes are the adapter's."""
    if isinstance(fact, Message):
        event, proof = fact.payload, fact.proof
    else:
        event, proof = fact, None
    assert isinstance(event, Envelope), "only a decoded fact is folded"
    handler = _HANDLERS.get(type(event.data))
    if handler is not None:
        handler(book, event)
    if proof is not None and isinstance(event.data, JackpotWon):
        _proven(book, event.data, proof)
    return book


def seen(book: SpinBook, broker_ms: int) -> None:
    """The book has seen a record of this broker time: its clock, which the window and the rate's horizon read."""
    book.now_ms = max(book.now_ms, broker_ms)


def _record(book: SpinBook, request_id: uuid.UUID, fingerprint: Fingerprint, time_ms: int) -> SpinRecord:
    record = book.records.get(request_id)
    if record is None:
        record = SpinRecord(request_id=request_id, fingerprint=fingerprint, time_ms=time_ms)
        book.records[request_id] = record
    return record


def _accepted(book: SpinBook, message: Envelope[SpinAccepted]) -> None:
    data = message.data
    _accept(book, data, data.operator_id, data.forfeit_bonus_ring, data.requested_at, data.accepted_at)


def _accept(book: SpinBook, data: Any, operator_id, forfeit: bool, requested_at, accepted_at) -> SpinRecord:
    """A request accepted (a SpinAccepted, or a SeedDrawn that carries the acceptance)."""
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    record = _record(book, data.request_id, fingerprint, epoch_ms(accepted_at))
    record.operator_id = operator_id
    record.forfeit_bonus_ring = forfeit
    record.requested_at_ms = epoch_ms(requested_at)
    record.accepted = True
    recent = book.accepted_at.setdefault(data.player_id, deque(maxlen=SPIN_RATE.spins))
    recent.append(epoch_ms(accepted_at))
    if not record.answered:
        book.in_flight.setdefault((data.player_id, data.game), set()).add(data.request_id)
    return record


def _forfeited(book: SpinBook, message: Envelope[BonusRingForfeited]) -> None:
    data = message.data
    book.game_states[(data.player_id, data.game)] = dict(data.state_after)
    record = book.records.get(data.request_id)
    if record is not None:
        record.forfeit_state_before = dict(data.state_before)


def _stranded(book: SpinBook, message: Envelope[RemainderStranded]) -> None:
    """A carried remainder credited. For a stake change, as a forfeit: the spin plays from the state without it, and
    a refused wager restores it. For a credit the wallet made (self-exclusion, closure): the player's state loses it;
    when a spin that carried it in is in flight (`request_id`), that spin will be refused, and restores the state
    without it."""
    data = message.data
    key = (data.player_id, data.game)
    record = book.records.get(data.request_id) if data.request_id is not None else None
    if data.reason == "stake-change":
        book.game_states[key] = dict(data.state_after)
        if record is not None and record.forfeit_state_before is None:
            record.forfeit_state_before = dict(data.state_before)
    elif record is not None:
        record.forfeit_state_before = dict(data.state_after)
    else:
        book.game_states[key] = dict(data.state_after)


def _voided(book: SpinBook, message: Envelope[SpinVoided]) -> None:
    """The wallet refused the wager: the drawn outcome never happened, so the player's state is the one before the
    spin, and before the forfeit of a ring the spin asked for (a refused wager never costs the player the ring)."""
    data = message.data
    record = book.records.get(data.request_id)
    if record is None:
        return
    record.claims.clear()  # the voided outcome's claims are never sent
    key = (data.player_id, data.game)
    pending = book.game_states.get(key)
    if not (isinstance(pending, Pending) and pending.request_id == data.request_id):
        return
    book.game_states[key] = dict(record.restored_state or {})


def _seed_drawn(book: SpinBook, message: Envelope[SeedDrawn]) -> None:
    data = message.data
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    record = book.records.get(data.request_id)
    if data.requested_at is not None and (record is None or not record.accepted):  # the acceptance travels with it
        record = _accept(book, data, data.operator_id, False, data.requested_at, data.drawn_at)
    elif record is None:
        record = _record(book, data.request_id, fingerprint, epoch_ms(data.drawn_at))
    record.drawn_at_acceptance = data.requested_at is not None
    record.accepted = True
    record.seed_hex = data.seed
    record.model_version = data.model_version
    record.state_before = dict(data.state_before)
    record.remainder_before_micro = data.remainder_before_micro
    record.remainder_stranded = bool(data.remainder_stranded)
    book.game_states[(data.player_id, data.game)] = Pending(data.request_id)


def _answered(book: SpinBook, record: SpinRecord, message: Envelope[Any], code: str) -> None:
    record.answer_id = message.id
    record.answer_code = code
    key = (record.player_id, record.game)
    flying = book.in_flight.get(key)
    if flying is not None:
        flying.discard(record.request_id)
        if not flying:
            del book.in_flight[key]  # a player's game with nothing in flight holds nothing (every player ever, else)


def _settled(book: SpinBook, message: Envelope[SpinSettled]) -> None:
    data = message.data
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    record = _record(book, data.request_id, fingerprint, epoch_ms(message.time))
    record.settled_state_after = dict(data.state_after)
    # Settled, the spin is a de-duplication entry: its outcome (the answer holds it) would only weigh on the book
    # for the window, and the state after it is kept above.
    record.result = None
    _answered(book, record, message, "SETTLED")


def _rejected(book: SpinBook, message: Envelope[SpinRejected]) -> None:
    data = message.data
    if data.request_id is None:
        return
    # The wallet's refusal of an accepted wager (by age, a conflict) is answered with its code under the request's own
    # answer id: that is the request's one answer, and the game it held in flight is free again.
    if data.code in PER_RECORD_CODES and message.id != request_answer_id(data.request_id):
        return
    fingerprint = Fingerprint(data.player_id, data.game, data.stake_minor, data.currency)
    record = _record(book, data.request_id, fingerprint, epoch_ms(message.time))
    _answered(book, record, message, data.code)


def _won(book: SpinBook, message: Envelope[JackpotWon]) -> None:
    data = message.data
    record = book.records.get(data.request_id)
    if record is None:
        return
    award = {
        "claim_id": str(data.claim_id),
        "network_id": data.network_id,
        "pool_id": data.pool_id,
        "tier": data.tier,
        "amount_minor": data.amount_minor,
        "share_ppm": data.share_ppm,
    }
    record.claims[data.claim_id] = ClaimAnswer(data.tier, data.amount_minor, award)


def _proven(book: SpinBook, data: JackpotWon, proof: JackpotWonProof) -> None:
    record = book.records.get(data.request_id)
    answer = record.claims.get(data.claim_id) if record is not None else None
    if answer is not None:
        answer.proof = proof


def _claim_rejected(book: SpinBook, message: Envelope[ClaimRejected]) -> None:
    data = message.data
    record = book.records.get(data.request_id)
    if record is None:
        return
    record.claims[data.claim_id] = ClaimAnswer(data.tier, 0, None, data.code)


_HANDLERS = {
    SpinAccepted: _accepted,
    BonusRingForfeited: _forfeited,
    RemainderStranded: _stranded,
    SeedDrawn: _seed_drawn,
    SpinVoided: _voided,
    SpinSettled: _settled,
    SpinRejected: _rejected,
    JackpotWon: _won,
    ClaimRejected: _claim_rejected,
}


def ensure_result(record: SpinRecord, catalog: Catalog) -> None:
    """Compute the outcome of a seeded spin (a pure function of model, seed and state before) once."""
    if record.seed_hex is None or record.result is not None or record.play_error is not None:
        return
    try:
        engine = catalog.engine_for_model(record.game, record.model_version or "")
    except (UnknownGame, UnknownModel) as error:  # a spin that cannot be played is refunded, never retried forever
        record.play_error = f"{type(error).__name__}: {error}"
        return
    # A failure inside play is a broken invariant of the engine (the inputs were validated): it stops the service.
    record.result = engine.play(dict(record.state_before or {}), record.stake_minor, SpinRng.from_hex(record.seed_hex))
    for index, tier in enumerate(record.result.claims):
        record.claims.setdefault(claim_id(record.request_id, index, tier), None)
    for drop_id, _tier in catalog.network_for_game(record.game).drop_claims(record.request_id):
        record.claims.setdefault(drop_id, None)  # a must-drop pool: wait for the jackpot's answer (won or NO_DROP)


def game_state(book: SpinBook, catalog: Catalog, player_id: str, game: str) -> dict[str, Any]:
    """The player's state in `game` now: after their last seeded spin (or forfeit), else the game's initial state."""
    key = (player_id, game)
    state = book.game_states.get(key)
    if isinstance(state, Pending):
        state = _state_after(book.records[state.request_id], catalog)
        book.game_states[key] = state
    if state is None:
        return catalog.engine(game).initial_state()
    return dict(state)


def _state_after(record: SpinRecord, catalog: Catalog) -> dict[str, Any]:
    if record.settled_state_after is not None:
        return record.settled_state_after
    ensure_result(record, catalog)
    if record.result is None:
        return dict(record.state_before or {})  # refunded: the spin never happened
    return dict(record.result.state_after)


def finish_rebuild(book: SpinBook, catalog: Catalog) -> None:
    """After folding a partition's history: only what the live book keeps (the de-duplication window, as `prune`
    leaves it), and the outcomes of interrupted spins, so their pending steps can resume."""
    prune(book, catalog, window_start(book.now_ms))
    for record in book.records.values():
        if not record.answered and record.seed_hex is not None:
            ensure_result(record, catalog)


def window_start(now_ms: int) -> int:
    """The oldest broker time a repeat of a request can still come at (older ones are refused by age)."""
    return now_ms - DEDUP_WINDOW_MS - CLOCK_SKEW_MS


def prune(book: SpinBook, catalog: Catalog, older_than_ms: int, keep: Container[uuid.UUID] = ()) -> int:
    """Forget answered requests older than the window (a repeat is then refused by age), but those in `keep`; returns
    how many."""
    doomed = [
        rid
        for rid, r in book.records.items()
        if r.answered and r.time_ms < older_than_ms and r.requested_at_ms < older_than_ms and rid not in keep
    ]
    horizon = book.now_ms - SPIN_RATE.window_ms
    for player_id, times in list(book.accepted_at.items()):
        while times and times[0] < horizon:  # older than the rate's window: it limits nothing (validate.rate_limited)
            times.popleft()
        if not times:
            del book.accepted_at[player_id]
    for request_id in doomed:
        record = book.records[request_id]
        key = (record.player_id, record.game)
        if isinstance(book.game_states.get(key), Pending) and book.game_states[key].request_id == request_id:
            game_state(book, catalog, *key)
        del book.records[request_id]
    return len(doomed)
