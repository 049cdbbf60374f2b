"""A SpinBook and its answers as bytes and back, for snapshots on spin.snapshots (docs/snapshots.md): every field the
fold sets, nothing it derives (outcomes are recomputed from model, seed and state before), and each answered request's
answer as first written, from the adapter's answers (services/spin/adapters/answers.py), in the request's row."""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Iterator
from typing import Any

import orjson

from shared.events.wallet import JackpotWonProof
from shared.repeats import Repeats
from services.spin.adapters.answers import Partition
from services.spin.core.book import SPIN_RATE, ClaimAnswer, Fingerprint, Pending, SpinBook, SpinRecord

FORMAT_VERSION = 1


class ImageError(ValueError):
    """An image this code cannot read (another format, or not a spin book)."""


ROWS_PER_PIECE = 250  # requests a piece of an image encodes: a few ms of the event loop (docs/snapshots.md)
_ANSWER = 12  # a row's answer (`_record_row`): its bytes when captured, their UTF-8 text in the image


def encode(book: SpinBook, answers: Repeats | None = None) -> bytes:
    """The book's image (orjson: UUIDs as strings; answers as their UTF-8 JSON text, byte for byte)."""
    return b"".join(pieces(book, answers))


def pieces(book: SpinBook, answers: Repeats | None = None, rows_per_piece: int = ROWS_PER_PIECE) -> Iterator[bytes]:
    """The bytes of the book's image with each answered request's answer as `answers` keep it (None: the book alone,
    what two books are compared by; a snapshot always has them), in pieces: the book is captured now (each request's
    row; game states are replaced, never changed in place), and the rows are encoded `rows_per_piece` at a time as
    the pieces are drawn, so the book may change meanwhile and a caller may draw one piece per turn of its event
    loop."""
    if rows_per_piece < 1:
        raise ValueError(f"rows_per_piece must be positive, not {rows_per_piece}")
    rows = [_record_row(record, _answer(record, answers)) for record in book.records.values()]
    rest = {
        "game_states": [
            [player, game, {"pending": state.request_id} if isinstance(state, Pending) else state]
            for (player, game), state in book.game_states.items()
        ],
        "in_flight": [[player, game, sorted(ids)] for (player, game), ids in book.in_flight.items()],
        "accepted_at": [[player, list(times)] for player, times in book.accepted_at.items()],
    }
    return _pieces(book.now_ms, rows, rest, rows_per_piece)


def _pieces(now_ms: int, rows: list[list[Any]], rest: dict[str, Any], rows_per_piece: int) -> Iterator[bytes]:
    yield b'{"v":%d,"now_ms":%d,"records":[' % (FORMAT_VERSION, now_ms)
    for start in range(0, len(rows), rows_per_piece):
        chunk = rows[start : start + rows_per_piece]
        for row in chunk:  # an answer's bytes never change: decoded here, not while the book is captured
            if row[_ANSWER] is not None:
                row[_ANSWER] = row[_ANSWER].decode("utf-8")
        piece = orjson.dumps(chunk)[1:-1]  # the rows without their list's brackets
        yield piece if start == 0 else b"," + piece
    yield b"]," + orjson.dumps(rest)[1:]


def _answer(record: SpinRecord, answers: Repeats | None) -> bytes | None:
    """A request's answer as first written, when it has one and the image keeps answers."""
    if answers is None or not record.answered:
        return None
    return answers.again(str(record.answer_id))[1]


def decode(image: bytes) -> Partition:
    """The book an image was made of, with its answers (an image of any build since format 1 keeps them in its rows);
    `ImageError` when it is not one this code reads."""
    try:
        data = orjson.loads(image)
        if not isinstance(data, dict) or data.get("v") != FORMAT_VERSION:
            raise ImageError(f"spin book image format {data.get('v') if isinstance(data, dict) else None!r}")
        held = Partition(SpinBook(now_ms=int(data["now_ms"])))
        book = held.book
        for row in data["records"]:
            record = _record_of(row)
            book.records[record.request_id] = record
            if row[_ANSWER] is not None and record.answered:  # the answer's record: keyed by its player, as written
                answer = (record.player_id.encode(), row[_ANSWER].encode("utf-8"))
                held.answers.kept(str(record.answer_id), answer, record.time_ms)
        for player, game, state in data["game_states"]:
            pending = isinstance(state, dict) and set(state) == {"pending"}
            book.game_states[(player, game)] = Pending(uuid.UUID(state["pending"])) if pending else state
        for player, game, ids in data["in_flight"]:
            book.in_flight[(player, game)] = {uuid.UUID(value) for value in ids}
        for player, times in data["accepted_at"]:
            book.accepted_at[player] = deque((int(t) for t in times), maxlen=SPIN_RATE.spins)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as error:
        if isinstance(error, ImageError):
            raise
        raise ImageError(f"not a spin book image: {error!r}") from error
    return held


def _record_row(r: SpinRecord, answer: bytes | None) -> list[Any]:
    f = r.fingerprint
    claims = [
        [claim, None if a is None else [a.tier, a.amount_minor, a.award, a.rejection_code, _proof_row(a.proof)]]
        for claim, a in r.claims.items()
    ]
    return [
        r.request_id,
        [f.player_id, f.game, f.stake_minor, f.currency],
        r.time_ms,
        r.operator_id,
        r.forfeit_bonus_ring,
        r.requested_at_ms,
        r.accepted,
        r.seed_hex,
        r.model_version,
        r.state_before,
        r.play_error,
        claims,
        answer,
        r.answer_id,
        r.answer_code,
        r.settled_state_after,
        r.forfeit_state_before,
        r.drawn_at_acceptance,
        r.remainder_before_micro,
        r.remainder_stranded,
    ]


def _record_of(row: list[Any]) -> SpinRecord:
    (rid, fp, time_ms, operator, forfeit, requested, accepted, seed, model, before, error, claims, _text, aid, code,
     after) = row[:16]  # fmt: skip
    # An image of format 1 written before the three-hop flow has 16 fields (no forfeit kept, seeded after the debit).
    forfeit_before = row[16] if len(row) > 16 else None
    at_acceptance = bool(row[17]) if len(row) > 17 else False
    # Written before the wallet kept remainders: 18 fields.
    remainder_before = row[18] if len(row) > 18 else None
    stranded = bool(row[19]) if len(row) > 19 else False
    return SpinRecord(
        request_id=uuid.UUID(rid),
        fingerprint=Fingerprint(*fp),
        time_ms=int(time_ms),
        operator_id=operator,
        forfeit_bonus_ring=bool(forfeit),
        requested_at_ms=int(requested),
        accepted=bool(accepted),
        seed_hex=seed,
        model_version=model,
        state_before=before,
        play_error=error,
        claims={uuid.UUID(c): None if a is None else _claim_answer(a) for c, a in claims},
        answer_id=None if aid is None else uuid.UUID(aid),
        answer_code=code,
        settled_state_after=after,
        forfeit_state_before=forfeit_before,
        drawn_at_acceptance=at_acceptance,
        remainder_before_micro=remainder_before,
        remainder_stranded=stranded,
    )


def _proof_row(proof: JackpotWonProof | None) -> dict[str, Any] | None:
    return None if proof is None else proof.model_dump()


def _claim_answer(row: list[Any]) -> ClaimAnswer:
    """A claim's answer; a win's proof (the jackpot's signed JackpotWon the settlement carries) when the row has it."""
    proof = JackpotWonProof.model_validate(row[4]) if len(row) > 4 and row[4] is not None else None
    return ClaimAnswer(row[0], int(row[1]), row[2], row[3], proof)
