"""Wallet and jackpot answers advance a request: seed and outcome, contribution and claims, one settlement, answer."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from services.spin.core import evolve as fold
from services.spin.core.book import SpinBook, SpinRecord
from services.spin.core.effects import Context, Draft, message, wager_of
from shared.decision import Message
from shared.events import Envelope, broker_time
from shared.events.envelope import derived_id
from shared import operators
from shared.events.jackpot import Claim, ClaimRejected, Contribute, JackpotWon
from shared.events.seamless import SeamlessBetAccepted, SeamlessBetRefused, SeamlessRolledBack, SeamlessWinAcknowledged
from shared.events.spin import (
    BonusRingForfeited,
    JackpotAward,
    RemainderStranded,
    SeedDrawn,
    SpinAccepted,
    SpinRejected,
    SpinSettled,
    SpinVoided,
    request_answer_id,
)
from shared.events.wallet import (
    CommandRejected,
    DebitWager,
    RefundWager,
    JackpotWonProof,
    PlaceWager,
    RemainderCredited,
    SettleWager,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
)
from games.pins import pins
from shared.invariant import invariant
from shared.remainders import credit_minor

WALLET_TYPES = (WagerDebited, CommandRejected, WagerSettled, WagerRefunded, RemainderCredited)
# What the seamless saga answers a seamless operator's wager with (wallet.seamless): the spin goes on from each as from
# the ledger's debit, refusal, settlement and refund (docs/seamless.md).
SEAMLESS_TYPES = (SeamlessBetAccepted, SeamlessBetRefused, SeamlessWinAcknowledged, SeamlessRolledBack)
JACKPOT_TYPES = (JackpotWon, ClaimRejected)
WAGER_COMMAND_TYPES = frozenset({DebitWager.TYPE, PlaceWager.TYPE})
# A settlement refused for these finds the wager closed already: the fact that closed it answers the spin.
CLOSED_WAGER_CODES = frozenset({"WAGER_ALREADY_CLOSED", "WAGER_NOT_FOUND"})


def on_wallet_event(draft: Draft, ctx: Context, event: Envelope[Any], now: datetime) -> None:
    """One wallet.events fact; facts about other transactions (deposits, other requests) change nothing. A refused
    settlement of an open wager refunds it, so no debit waits for a settlement that will never come."""
    data, book = event.data, draft.book
    if isinstance(data, WagerDebited):
        record = book.records.get(data.transaction_id)
        if record is not None and not record.answered:
            _debited(draft, ctx, record, now)
    elif isinstance(data, CommandRejected) and data.command_type in WAGER_COMMAND_TYPES:
        record = book.records.get(data.transaction_id)
        if record is not None and not record.answered:
            _void(draft, record, now, data.code)
            _reject(draft, record, now, data.code, f"wallet refused the wager: {data.message}")
    elif isinstance(data, CommandRejected) and data.command_type == SettleWager.TYPE:
        record = book.records.get(data.wager_id)
        if record is not None and not record.answered and data.code not in CLOSED_WAGER_CODES:
            draft.send(_refund_command(record, now, f"the wallet refused the settlement: {data.code}"))
    elif isinstance(data, WagerSettled):
        record = book.records.get(data.wager_id)
        if record is not None and not record.answered:
            _settled(draft, ctx, record, data, now)
    elif isinstance(data, WagerRefunded):
        record = book.records.get(data.wager_id)
        if record is not None and not record.answered:
            text = f"the spin could not complete; wager refunded: {data.reason}"
            _reject(draft, record, now, "WAGER_REFUNDED", text)
    elif isinstance(data, RemainderCredited) and data.reason != "stake-change":
        _credited(draft, ctx, event, now)


def on_seamless_fact(draft: Draft, ctx: Context, event: Envelope[Any], now: datetime) -> None:
    """One wallet.seamless answer to a wager of this partition's spins: the operator took the stake, refused it (the
    code is the spin's refusal), credited the round's win (its balance is the answer's, None when the answer gave
    none: a balance is the operator's only), or the bet was rolled back."""
    data = event.data
    record = draft.book.records.get(data.wager_id)
    if record is None or record.answered:
        return
    if isinstance(data, SeamlessBetAccepted):
        _debited(draft, ctx, record, now)
    elif isinstance(data, SeamlessBetRefused):
        _void(draft, record, now, data.code)
        _reject(draft, record, now, data.code, f"the operator's wallet refused the bet ({data.status or 'no answer'})")
    elif isinstance(data, SeamlessWinAcknowledged):
        jackpot_win_minor = _pool_shares_won(record)
        fold.ensure_result(record, ctx.catalog)
        owed_minor = record.result.win_minor + jackpot_win_minor + _remainder_credit_minor(record)
        invariant(data.amount_minor == owed_minor, "the operator credited the win and the remainder it stranded")
        contribution_micro = ctx.catalog.network_for_game(record.game).wager_contribution_micro(record.stake_minor)
        _answer_settled(draft, ctx, record, now, contribution_micro, data.balance_after_minor)
    elif isinstance(data, SeamlessRolledBack):
        # The round never happened at the operator, nor did the credit its win would have carried: void the outcome,
        # so the player's state keeps the remainder the spin stranded, for the next round to credit.
        _void(draft, record, now, "WAGER_REFUNDED")
        _reject(draft, record, now, "WAGER_REFUNDED", "the spin could not complete; the operator's bet is rolled back")


def _remainder_credit_minor(record: SpinRecord) -> int:
    """What a seamless round's one win credits for the remainder its wager stranded (the ledger's rounding up)."""
    if not record.remainder_stranded or record.remainder_before_micro is None:
        return 0
    return credit_minor(record.remainder_before_micro)


def _credited(draft: Draft, ctx: Context, event: Envelope[RemainderCredited], now: datetime) -> None:
    """The wallet credited a remainder the player can no longer complete (self-exclusion, closure): the player's state
    carries it no more. A spin in flight that carried it in is refused by the wallet, and restores the state without
    it. A credit of a stake change is the spin's own (journaled when it drew the seed)."""
    data, book = event.data, draft.book
    engine = ctx.catalog.current(data.game)
    if engine is None:
        return
    flying = _carrying(book, data.player_id, data.game)
    if flying is not None:
        state = flying.restored_state
    else:
        state = fold.game_state(book, ctx.catalog, data.player_id, data.game)
    if not engine.remainder_micro(state or {}):
        return  # already without one (a fact read again)
    stranded = RemainderStranded(
        player_id=data.player_id,
        game=data.game,
        reason=data.reason,
        remainder_micro=data.remainder_micro,
        state_before=state,
        state_after=engine.without_remainder(state),
        stranded_at=now,
        request_id=flying.request_id if flying is not None else None,
        wallet_event_id=str(event.id),
    )
    draft.record(message(stranded, derived_id(event.id, "remainder-stranded"), now, data.transaction_id))


def _carrying(book: SpinBook, player_id: str, game: str) -> SpinRecord | None:
    """The seeded, unanswered spin whose outcome the player's state waits on, if any."""
    pending = book.game_states.get((player_id, game))
    if not isinstance(pending, fold.Pending):
        return None
    record = book.records.get(pending.request_id)
    return record if record is not None and not record.answered else None


def start_wager(draft: Draft, ctx: Context, accepted: SpinAccepted, now: datetime) -> None:
    """An accepted spin: forfeit if asked, draw and journal the seed (with the acceptance), compute the outcome, then
    the one wager command that carries it (nothing shows the outcome before the wallet accepts: the journal and the
    command commit together, and a refusal voids the outcome)."""
    _draw(draft, ctx, accepted, now, acceptance=accepted)
    draft.send(wager_command(ctx, draft.book.records[accepted.request_id], now))


def is_combined(record: SpinRecord) -> bool:
    """A seeded, playable spin without a pool claim is one PlaceWager (debit and settlement together); a spin with a
    claim is debited first and settled once the jackpot has answered; an unplayable one is debited, then refunded."""
    return (
        record.drawn_at_acceptance and record.seed_hex is not None and record.play_error is None and not record.claims
    )


def wager_command(ctx: Context, record: SpinRecord, now: datetime) -> Envelope[Any]:
    """The command that takes the wager (sent again, identical, for a repeat of the request while in flight)."""
    fold.ensure_result(record, ctx.catalog)
    return _place_command(ctx, record, now) if is_combined(record) else debit_command(record, now)


def debit_command(record: SpinRecord, now: datetime) -> Envelope[Any]:
    debit = DebitWager(**_stake_fields(record))
    return message(debit, derived_id(record.request_id, "debit-wager"), now, record.request_id)


def _place_command(ctx: Context, record: SpinRecord, now: datetime) -> Envelope[Any]:
    place = PlaceWager(**_stake_fields(record), **_outcome_fields(ctx, record))
    return message(place, derived_id(record.request_id, "place-wager"), now, record.request_id)


def _stake_fields(record: SpinRecord) -> dict[str, Any]:
    """What the wallet judges a wager by: the stake taken and the remainder it carries in or strands (DebitWager and
    PlaceWager alike)."""
    return {
        "transaction_id": record.request_id,
        "player_id": record.player_id,
        "amount_minor": record.stake_minor,
        "currency": record.currency,
        "game": record.game,
        "operator_id": record.operator_id,
        "remainder_before_micro": record.remainder_before_micro,
        "remainder_stranded": True if record.remainder_stranded else None,
    }


def _outcome_fields(ctx: Context, record: SpinRecord) -> dict[str, Any]:
    """What the settlement posts besides the pool shares won (SettleWager and PlaceWager alike)."""
    network = ctx.catalog.network_for_game(record.game)
    engine = ctx.catalog.engine_for_model(record.game, record.model_version or "")
    return {
        "settlement_id": derived_id(record.request_id, "settlement"),
        "house_win_minor": record.result.win_minor,
        "breakage_micro": record.result.breakage_micro,
        "contribution_micro": network.wager_contribution_micro(record.stake_minor),
        "network_id": network.network_id,
        # The remainder the wallet records only when the wager carried one in (a spin of code before it: none).
        "remainder_after_micro": (
            engine.remainder_micro(record.result.state_after) if record.remainder_before_micro is not None else None
        ),
    }


def stray_wager(book: SpinBook, event: Envelope[Any]) -> uuid.UUID | None:
    """The request of a wager fact (debit, its refusal, settlement, refund) that this book does not know, else None.
    Such a wager no spin will settle or refund (another partition's book took its request, or it was forged past the
    trust checks): the adapter raises an alert. A redelivery of a fact older than the de-dup window (its request
    pruned) would be reported too."""
    data = event.data
    refused = isinstance(data, CommandRejected) and data.command_type in WAGER_COMMAND_TYPES
    if isinstance(data, WagerDebited) or refused:
        request_id = data.transaction_id
    elif isinstance(data, (WagerSettled, WagerRefunded)):
        request_id = data.wager_id
    else:
        return None
    return None if request_id in book.records else request_id


def on_jackpot_answer(draft: Draft, ctx: Context, answer: Message, now: datetime) -> None:
    """JackpotWon / ClaimRejected for one of this partition's spins (a fact of the book's own jackpot answers, folded
    first, with its provenance: a win's `proof`, the jackpot's signed record of it): once every claim is answered,
    settle."""
    record = draft.book.records.get(answer.payload.data.request_id)
    if record is None or record.answered:
        return
    fold.evolve(draft.book, answer)
    if record.status == "settling":
        draft.send(settle_command(ctx, record, now))


def _debited(draft: Draft, ctx: Context, record: SpinRecord, now: datetime) -> None:
    if _debit_of_place(record):
        return  # the debit of a PlaceWager: its settlement follows in the same wallet transaction
    if record.seed_hex is None:  # accepted before seeds were drawn at request time: drawn now, as then
        _draw(draft, ctx, record, now)
    if record.status == "refunding":
        draft.send(_refund_command(record, now, f"the spin could not be played ({record.play_error})"))
    elif record.status in ("claiming", "settling"):
        _send_outcome_commands(draft, ctx, record, now)


def _debit_of_place(record: SpinRecord) -> bool:
    return is_combined(record) and record.status != "refunding"


def reads_debit(book: SpinBook, wager_id: uuid.UUID) -> bool:
    """Whether a WagerDebited of `wager_id` can make the spin do anything. False for the debit of a PlaceWager in
    flight (its settlement follows in the same wallet transaction) and of a spin already answered, which
    `on_wallet_event` leaves as they are: the adapter then neither verifies nor decodes it (every combined spin's debit,
    its costliest record to read for nothing). True for a wager no book knows (the adapter alerts on it)."""
    record = book.records.get(wager_id)
    return record is None or (not record.answered and not _debit_of_place(record))


def _draw(draft: Draft, ctx: Context, spin: Any, now: datetime, acceptance: SpinAccepted | None = None) -> None:
    """Forfeit if asked and needed, draw and journal the seed, then compute the outcome (revealed only later). `spin`:
    the accepted request (a SpinAccepted or its record). `acceptance`: not journaled yet; it travels with the seed,
    or, when a forfeit comes between them, is journaled first (the seed still carries its fields: they mark a seed
    drawn at acceptance, as opposed to one an earlier version drew after the debit)."""
    rid = spin.request_id
    engine = ctx.catalog.engine(spin.game)
    state = fold.game_state(draft.book, ctx.catalog, spin.player_id, spin.game)
    locked = engine.locked_stake(state)
    drawn_at_acceptance = acceptance is not None
    journaled = False  # the acceptance, when a journal record comes before the seed (which repeats its fields)
    if spin.forfeit_bonus_ring and locked is not None and locked != spin.stake_minor:
        if acceptance is not None:
            draft.record(message(acceptance, derived_id(rid, "accepted"), now, rid))
            journaled = True
        cleared = engine.forfeit(state)
        forfeited = BonusRingForfeited(
            request_id=rid,
            player_id=spin.player_id,
            game=spin.game,
            locked_stake_minor=locked,
            new_stake_minor=spin.stake_minor,
            state_before=state,
            state_after=cleared,
            forfeited_at=now,
        )
        draft.record(message(forfeited, derived_id(rid, "forfeited"), now, rid))
        state = cleared
    carried = engine.remainder_micro(state)
    stranded = engine.stranded_remainder_micro(state, spin.stake_minor)
    if stranded:
        if acceptance is not None and not journaled:
            draft.record(message(acceptance, derived_id(rid, "accepted"), now, rid))
        cleared = engine.without_remainder(state)
        credit = RemainderStranded(
            player_id=spin.player_id,
            game=spin.game,
            reason="stake-change",
            remainder_micro=stranded,
            state_before=state,
            state_after=cleared,
            stranded_at=now,
            request_id=rid,
        )
        draft.record(message(credit, derived_id(rid, "remainder-stranded"), now, rid))
        state = cleared
    seed = ctx.draw_seed(spin.player_id, rid)
    invariant(isinstance(seed, bytes) and len(seed) == 32, "a seed is 32 bytes from the OS CSPRNG")
    fields = {}
    if drawn_at_acceptance:  # the acceptance's fields: they mark a seed drawn at acceptance
        fields = {
            "operator_id": acceptance.operator_id,
            "request_event_id": acceptance.request_event_id,
            "requested_at": acceptance.requested_at,
        }
    drawn = SeedDrawn(
        **wager_of(spin),
        model_version=engine.model_version,
        seed=seed.hex(),
        state_before=state,
        drawn_at=now,
        remainder_before_micro=carried,
        remainder_stranded=True if stranded else None,
        **fields,
    )
    draft.record(message(drawn, derived_id(rid, "seed-drawn"), now, rid))
    fold.ensure_result(draft.book.records[rid], ctx.catalog)


def _send_outcome_commands(draft: Draft, ctx: Context, record: SpinRecord, now: datetime) -> None:
    """Contribution first, then each claim (same network partition, so ordered); settle at once without claims."""
    draft.send(_contribute_command(ctx, record, now))
    for index, tier in enumerate(record.result.claims):
        draft.send(_claim_command(ctx, record, index, tier, now))
    for drop_id, tier in ctx.catalog.network_for_game(record.game).drop_claims(record.request_id):
        draft.send(_claim_command(ctx, record, tier, tier, now, drop_id))
    if record.status == "settling":
        draft.send(settle_command(ctx, record, now))


def _contribute_command(ctx: Context, record: SpinRecord, now: datetime) -> Envelope[Any]:
    network = ctx.catalog.network_for_game(record.game)
    contribute = Contribute(
        network_id=network.network_id,
        contribution_id=record.request_id,
        game=record.game,
        currency=record.currency,
        stake_minor=record.stake_minor,
        contribution_micro=network.wager_contribution_micro(record.stake_minor),
        breakage_micro=record.result.breakage_micro,
        player_id=record.player_id,
        operator_id=record.operator_id,
    )
    return message(contribute, derived_id(record.request_id, "contribute"), now, record.request_id)


def _claim_command(
    ctx: Context, record: SpinRecord, index: int | str, tier: str, now: datetime, drop_id: Any = None
) -> Envelope[Any]:
    network = ctx.catalog.network_for_game(record.game)
    claim = Claim(
        network_id=network.network_id,
        claim_id=drop_id or fold.claim_id(record.request_id, index, tier),
        request_id=record.request_id,
        player_id=record.player_id,
        game=record.game,
        tier=tier,
        currency=record.currency,
        stake_minor=record.stake_minor,
        operator_id=record.operator_id,
    )
    return message(claim, derived_id(record.request_id, "claim-command", index), now, record.request_id)


def settle_command(ctx: Context, record: SpinRecord, now: datetime) -> Envelope[Any]:
    """The one settlement: house win, pool shares won, breakage and contribution, for the wallet's postings."""
    outcome = _outcome_fields(ctx, record)
    settle = SettleWager(
        transaction_id=outcome.pop("settlement_id"),
        player_id=record.player_id,
        wager_id=record.request_id,
        currency=record.currency,
        jackpot_win_minor=sum(answer.amount_minor for answer in record.claims.values()),
        jackpot_proofs=_proofs(record),
        operator_id=_seamless_operator(record),
        **outcome,
    )
    return message(settle, derived_id(record.request_id, "settle-wager"), now, record.request_id)


def _proofs(record: SpinRecord) -> tuple[JackpotWonProof, ...] | None:
    """The jackpot's signed JackpotWon of each pool share won (None without one): the wallet pays only what they prove.
    A win folded without its proof is left out, and the wallet refuses the settlement (JACKPOT_UNPROVEN)."""
    proofs = tuple(a.proof for a in record.claims.values() if a is not None and a.award and a.proof is not None)
    return proofs or None


def _refund_command(record: SpinRecord, now: datetime, reason: str) -> Envelope[Any]:
    """The stake given back: an unplayable spin's, or one whose settlement the wallet refused (never both: an
    unplayable spin is never settled), so one transaction id serves either."""
    refund = RefundWager(
        transaction_id=derived_id(record.request_id, "refund"),
        player_id=record.player_id,
        wager_id=record.request_id,
        currency=record.currency,
        reason=reason[:500],
        operator_id=_seamless_operator(record),
    )
    return message(refund, derived_id(record.request_id, "refund-wager"), now, record.request_id)


def _seamless_operator(record: SpinRecord) -> str | None:
    """The operator a settlement or refund names: a seamless one's, so the seamless saga takes it (never the ledger)."""
    return record.operator_id if operators.is_seamless(record.operator_id) else None


def _settled(draft: Draft, ctx: Context, record: SpinRecord, data: WagerSettled, now: datetime) -> None:
    fold.ensure_result(record, ctx.catalog)
    invariant(record.result is not None, "a settled wager has an outcome")
    jackpot_win_minor = _pool_shares_won(record)
    invariant(data.house_win_minor == record.result.win_minor, "the wallet settled the house win the spin computed")
    invariant(data.jackpot_win_minor == jackpot_win_minor, "the wallet settled the pool shares the jackpot awarded")
    _answer_settled(draft, ctx, record, now, data.contribution_micro, data.balance_after_minor)


def _pool_shares_won(record: SpinRecord) -> int:
    """What the jackpot awarded the spin, in minor units: the sum of its claims' won answers."""
    return sum(answer.amount_minor for answer in record.claims.values() if answer and answer.award)


def _answer_settled(
    draft: Draft, ctx: Context, record: SpinRecord, now: datetime, contribution_micro: int, balance_after_minor: Any
) -> None:
    """The spin's one answer once its wager is settled, with the balance the settlement left."""
    awards = tuple(JackpotAward(**answer.award) for answer in record.claims.values() if answer and answer.award)
    jackpot_win_minor = sum(award.amount_minor for award in awards)
    settled = SpinSettled(
        **wager_of(record),
        win_minor=record.result.win_minor + jackpot_win_minor,
        house_win_minor=record.result.win_minor,
        jackpot_win_minor=jackpot_win_minor,
        breakage_micro=record.result.breakage_micro,
        contribution_micro=contribution_micro,
        balance_after_minor=balance_after_minor,
        model_version=record.model_version or "",
        seed=record.seed_hex or "",
        state_before=record.state_before or {},
        state_after=record.result.state_after,
        outcome=record.result.outcome,
        jackpot_awards=awards,
        operator_id=record.operator_id,
        settled_at=now,
        accepted_at=broker_time(record.time_ms) if record.accepted else None,
        **pins(ctx.catalog.engine_for_model(record.game, record.model_version or "")),
    )
    # A pool sees only a taken wager (claims: at the debit); made before the answer, whose fold lets the outcome go.
    taken = _contribute_command(ctx, record, now) if record.drawn_at_acceptance and not record.claims else None
    draft.answer(message(settled, request_answer_id(record.request_id), now, record.request_id))
    if taken is not None:
        draft.send(taken)


def _void(draft: Draft, record: SpinRecord, now: datetime, code: str) -> None:
    """A refused wager whose seed was drawn: its outcome is voided in the journal, never shown."""
    if record.seed_hex is None:
        return
    voided = SpinVoided(
        request_id=record.request_id, player_id=record.player_id, game=record.game, code=code, voided_at=now
    )
    draft.record(message(voided, derived_id(record.request_id, "voided"), now, record.request_id))


def _reject(draft: Draft, record: SpinRecord, now: datetime, code: str, text: str) -> None:
    rejected = SpinRejected(
        **wager_of(record),
        code=code,
        message=text[:500],
    )
    draft.answer(message(rejected, request_answer_id(record.request_id), now, record.request_id))


__all__ = [
    "on_wallet_event",
    "on_jackpot_answer",
    "start_wager",
    "wager_command",
    "settle_command",
    "WALLET_TYPES",
    "SEAMLESS_TYPES",
    "on_seamless_fact",
    "JACKPOT_TYPES",
]
