"""Wallet and jackpot answers advance a request: seed and outcome, contribution and claims, one settlement, answer."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from services.spin.core import fold
from services.spin.core.book import SpinBook, SpinRecord
from services.spin.core.effects import Context, Effects, answer, message, record_fact, send
from shared.events import Envelope, broker_time
from shared.events.envelope import derived_id
from shared.events.jackpot import Claim, ClaimRejected, Contribute, JackpotWon
from shared.events.spin import BonusRingForfeited, JackpotAward, SeedDrawn, SpinRejected, SpinSettled
from shared.events.wallet import (
    CommandRejected,
    DebitWager,
    RefundWager,
    SettleWager,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
)
from games.pins import pins
from shared.invariant import invariant
from shared.money import MICRO_PER_MINOR

WALLET_TYPES = (WagerDebited, CommandRejected, WagerSettled, WagerRefunded)
JACKPOT_TYPES = (JackpotWon, ClaimRejected)


def on_wallet_event(book: SpinBook, ctx: Context, event: Envelope[Any], now_ms: int) -> Effects:
    """One wallet.events fact; facts about other transactions (deposits, other requests) change nothing."""
    data = event.data
    now = broker_time(now_ms)
    if isinstance(data, WagerDebited):
        record = book.records.get(data.transaction_id)
        return _debited(book, ctx, record, now) if record is not None else Effects()
    if isinstance(data, CommandRejected) and data.command_type == DebitWager.TYPE:
        record = book.records.get(data.transaction_id)
        if record is None or record.status != "debiting":
            return Effects()
        return _reject(book, ctx, record, now, data.code, f"wallet refused the wager: {data.message}")
    if isinstance(data, WagerSettled):
        record = book.records.get(data.wager_id)
        return _settled(book, ctx, record, data, now) if record is not None and record.answer is None else Effects()
    if isinstance(data, WagerRefunded):
        record = book.records.get(data.wager_id)
        if record is None or record.answer is not None:
            return Effects()
        return _reject(
            book, ctx, record, now, "WAGER_REFUNDED", f"the spin could not complete; wager refunded: {data.reason}"
        )
    return Effects()


def stray_wager(book: SpinBook, event: Envelope[Any]) -> uuid.UUID | None:
    """The request of a wager fact (debit, its refusal, settlement, refund) that this book does not know, else None.
    Such a wager no spin will settle or refund (another partition's book took its request, or it was forged past the
    trust checks): the adapter raises an alert. A redelivery of a fact older than the de-dup window (its request
    pruned) would be reported too."""
    data = event.data
    if isinstance(data, WagerDebited) or (isinstance(data, CommandRejected) and data.command_type == DebitWager.TYPE):
        request_id = data.transaction_id
    elif isinstance(data, (WagerSettled, WagerRefunded)):
        request_id = data.wager_id
    else:
        return None
    return None if request_id in book.records else request_id


def on_jackpot_answer(book: SpinBook, ctx: Context, event: Envelope[Any], raw: bytes, now_ms: int) -> Effects:
    """JackpotWon / ClaimRejected for one of this partition's spins: once every claim is answered, settle."""
    record = book.records.get(event.data.request_id)
    if record is None or record.answer is not None:
        return Effects()
    fold.apply(book, ctx.catalog, event, raw)
    effects = Effects()
    if record.status == "settling":
        send(effects, settle_command(ctx, record, broker_time(now_ms)), "settle")
    return effects


def _debited(book: SpinBook, ctx: Context, record: SpinRecord, now: datetime) -> Effects:
    effects = Effects()
    if record.status == "debiting":
        _draw(book, ctx, record, now, effects)
    if record.status == "refunding":
        send(effects, _refund_command(record, now), "refund")
    elif record.status in ("claiming", "settling"):
        _send_outcome_commands(ctx, record, now, effects)
    return effects


def _draw(book: SpinBook, ctx: Context, record: SpinRecord, now: datetime, effects: Effects) -> None:
    """Forfeit if asked and needed, draw and journal the seed, then compute the outcome (revealed only later)."""
    engine = ctx.catalog.engine(record.game)
    state = fold.game_state(book, ctx.catalog, record.player_id, record.game)
    locked = engine.locked_stake(state)
    if record.forfeit_bonus_ring and locked is not None and locked != record.stake_minor:
        cleared = engine.forfeit(state)
        forfeited = BonusRingForfeited(
            request_id=record.request_id,
            player_id=record.player_id,
            game=record.game,
            locked_stake_minor=locked,
            new_stake_minor=record.stake_minor,
            state_before=state,
            state_after=cleared,
            forfeited_at=now,
        )
        record_fact(
            effects,
            book,
            ctx.catalog,
            message(forfeited, derived_id(record.request_id, "forfeited"), now, record.request_id),
        )
        state = cleared
    seed = ctx.draw_seed(record.player_id, record.request_id)
    invariant(isinstance(seed, bytes) and len(seed) == 32, "a seed is 32 bytes from the OS CSPRNG")
    drawn = SeedDrawn(
        request_id=record.request_id,
        player_id=record.player_id,
        game=record.game,
        stake_minor=record.stake_minor,
        currency=record.currency,
        model_version=engine.model_version,
        seed=seed.hex(),
        state_before=state,
        drawn_at=now,
    )
    record_fact(
        effects,
        book,
        ctx.catalog,
        message(drawn, derived_id(record.request_id, "seed-drawn"), now, record.request_id),
        kind="seed",
    )
    fold.ensure_result(record, ctx.catalog)


def _send_outcome_commands(ctx: Context, record: SpinRecord, now: datetime, effects: Effects) -> None:
    """Contribution first, then each claim (same network partition, so ordered); settle at once without claims."""
    send(effects, _contribute_command(ctx, record, now), "contribute")
    for index, tier in enumerate(record.result.claims):
        send(effects, _claim_command(ctx, record, index, tier, now), "claim")
    if record.status == "settling":
        send(effects, settle_command(ctx, record, now), "settle")


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


def _claim_command(ctx: Context, record: SpinRecord, index: int, tier: str, now: datetime) -> Envelope[Any]:
    network = ctx.catalog.network_for_game(record.game)
    claim = Claim(
        network_id=network.network_id,
        claim_id=fold.claim_id(record.request_id, index, tier),
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
    network = ctx.catalog.network_for_game(record.game)
    settle = SettleWager(
        transaction_id=derived_id(record.request_id, "settlement"),
        player_id=record.player_id,
        wager_id=record.request_id,
        currency=record.currency,
        house_win_minor=record.result.win_minor,
        jackpot_win_minor=sum(answer.amount_minor for answer in record.claims.values()),
        breakage_micro=record.result.breakage_micro,
        contribution_micro=network.wager_contribution_micro(record.stake_minor),
        network_id=network.network_id,
    )
    return message(settle, derived_id(record.request_id, "settle-wager"), now, record.request_id)


def _refund_command(record: SpinRecord, now: datetime) -> Envelope[Any]:
    refund = RefundWager(
        transaction_id=derived_id(record.request_id, "refund"),
        player_id=record.player_id,
        wager_id=record.request_id,
        currency=record.currency,
        reason=f"the spin could not be played ({record.play_error})"[:500],
    )
    return message(refund, derived_id(record.request_id, "refund-wager"), now, record.request_id)


def _settled(book: SpinBook, ctx: Context, record: SpinRecord, data: WagerSettled, now: datetime) -> Effects:
    fold.ensure_result(record, ctx.catalog)
    invariant(record.result is not None, "a settled wager has an outcome")
    awards = tuple(JackpotAward(**answer.award) for answer in record.claims.values() if answer and answer.award)
    jackpot_win_minor = sum(award.amount_minor for award in awards)
    invariant(data.house_win_minor == record.result.win_minor, "the wallet settled the house win the spin computed")
    invariant(data.jackpot_win_minor == jackpot_win_minor, "the wallet settled the pool shares the jackpot awarded")
    settled = SpinSettled(
        request_id=record.request_id,
        player_id=record.player_id,
        game=record.game,
        stake_minor=record.stake_minor,
        currency=record.currency,
        win_minor=record.result.win_minor + jackpot_win_minor,
        house_win_minor=record.result.win_minor,
        jackpot_win_minor=jackpot_win_minor,
        breakage_micro=record.result.breakage_micro,
        contribution_micro=data.contribution_micro,
        balance_after_minor=data.balance_after_minor,
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
    effects = Effects()
    answer(
        effects, book, ctx.catalog, message(settled, derived_id(record.request_id, "answer"), now, record.request_id)
    )
    return effects


def _reject(book: SpinBook, ctx: Context, record: SpinRecord, now: datetime, code: str, text: str) -> Effects:
    rejected = SpinRejected(
        request_id=record.request_id,
        player_id=record.player_id,
        code=code,
        message=text[:500],
        game=record.game,
        stake_minor=record.stake_minor,
        currency=record.currency,
    )
    effects = Effects()
    answer(
        effects, book, ctx.catalog, message(rejected, derived_id(record.request_id, "answer"), now, record.request_id)
    )
    return effects


__all__ = ["on_wallet_event", "on_jackpot_answer", "settle_command", "WALLET_TYPES", "JACKPOT_TYPES", "MICRO_PER_MINOR"]
