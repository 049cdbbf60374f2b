"""evolve(book, event) -> book: the one way wallet state changes, live (each event `decide` decides) and on restore;
balances come from postings only. In place, as every core (shared/decision.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from shared.events.envelope import Envelope, epoch_ms
from shared.events.wallet import (
    AccountClosed,
    CommandRejected,
    Deposited,
    LimitSet,
    RemainderCredited,
    SelfExcluded,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
    Withdrawn,
    _PostedEvent,
)
from shared.invariant import invariant

from services.wallet.core import limits, remainders
from services.wallet.core.book import WalletBook
from services.wallet.core.memory import remembers
from services.wallet.core.postings import player_delta_minor
from services.wallet.core.state import OpenWager, PlayerState, Remembered, limit_key


def evolve(book: WalletBook, event: Envelope[Any]) -> WalletBook:
    """Fold one wallet event into the partition's book (in place) and return it. A refusal that owns no id, or a
    re-emitted repeat (same event id already remembered), changes nothing but the clock."""
    data = event.data
    book.unsnapshotted += 1
    book.prune(epoch_ms(data.recorded_at))
    if not remembers(data):
        return book
    player_id, transaction_id = data.player_id, str(data.transaction_id)
    existing = book.memory.get(player_id, {}).get(transaction_id)
    if existing is not None and existing.event_id == str(event.id):
        return book
    player = evolve_player(book.players.get(player_id) or PlayerState(player_id), data)
    book.remember(player_id, remembered(event, player.seq))
    book.players[player_id] = player
    return book


def remembered(event: Envelope[Any], seq: int) -> Remembered:
    data = event.data
    invariant(data.command_fingerprint is not None, "a remembered event names its command's content")
    return Remembered(
        transaction_id=str(data.transaction_id),
        seq=seq,
        recorded_ms=epoch_ms(data.recorded_at),
        fingerprint=data.command_fingerprint,
        event_id=str(event.id),
        event_type=data.TYPE,
    )


def evolve_player(player: PlayerState, data: Any) -> PlayerState:
    """The player's state after one remembered event (no memory involved)."""
    invariant(data.player_id == player.player_id, "an event must reach its own player's state")
    player = replace(player, seq=player.seq + 1)
    if isinstance(data, _PostedEvent):
        player = _posted(player, data)
    if isinstance(data, Deposited) and player.operator_id is None and data.operator_id is not None:
        player = replace(player, operator_id=data.operator_id)  # the account's first operator deposit binds it
    if isinstance(data, LimitSet):
        return _limit_set(player, data)
    if isinstance(data, SelfExcluded):
        return _self_excluded(player, data)
    if isinstance(data, AccountClosed):
        return replace(player, closed=True)
    invariant(isinstance(data, (_PostedEvent, CommandRejected)), f"unknown wallet event {data.TYPE}")
    return player


def _posted(player: PlayerState, data: _PostedEvent) -> PlayerState:
    now_ms = epoch_ms(data.recorded_at)
    balance = player.balances_minor.get(data.currency, 0) + player_delta_minor(player.player_id, data.postings)
    invariant(balance >= 0, "a player's balance never goes below zero")
    invariant(balance == data.balance_after_minor, "balance_after_minor must equal the fold of the postings")
    if not isinstance(data, Deposited):
        invariant(data.currency in player.balances_minor, "only a deposit opens an account")
    balances = {**player.balances_minor, data.currency: balance}
    open_wagers, usage = player.open_wagers, player.usage
    if isinstance(data, Deposited):
        usage = limits.with_usage(player, data.currency, "deposit", data.amount_minor, now_ms)
    elif isinstance(data, WagerDebited):
        wager_id = str(data.transaction_id)
        invariant(wager_id not in open_wagers, "a wager is debited once")
        open_wagers = {**open_wagers, wager_id: OpenWager(data.currency, data.amount_minor, now_ms, data.game)}
        usage = limits.with_usage(player, data.currency, "loss", data.amount_minor, now_ms)
        player = remainders.after_debit(player, data.game, data.currency, wager_id, data.remainder_before_micro)
    elif isinstance(data, RemainderCredited):
        player = remainders.after_credit(player, data)  # the house's money: it counts against no limit
    elif not isinstance(data, Withdrawn):
        invariant(isinstance(data, (WagerSettled, WagerRefunded)), f"unknown posted event {data.TYPE}")
        wager_id = str(data.wager_id)
        invariant(wager_id in open_wagers, "only an open wager is settled or refunded, once")
        wager = open_wagers[wager_id]
        open_wagers = {key: value for key, value in open_wagers.items() if key != wager_id}
        credit = data.win_minor if isinstance(data, WagerSettled) else data.amount_minor
        usage = limits.with_usage(player, data.currency, "loss", -credit, now_ms)
        after = data.remainder_after_micro if isinstance(data, WagerSettled) else None
        player = remainders.after_close(player, wager.game, data.currency, wager_id, after)
    return replace(player, balances_minor=balances, open_wagers=open_wagers, usage=usage)


def _limit_set(player: PlayerState, data: LimitSet) -> PlayerState:
    key = limit_key(data.currency, data.kind, data.period)
    rule = limits.rule_after(
        player.limits.get(key), data.amount_minor, epoch_ms(data.effective_at), epoch_ms(data.recorded_at)
    )
    return replace(player, limits={**player.limits, key: rule})


def _self_excluded(player: PlayerState, data: SelfExcluded) -> PlayerState:
    if data.until is None:
        return replace(player, excluded_indefinitely=True)
    until_ms = max(epoch_ms(data.until), player.excluded_until_ms or 0)
    return replace(player, excluded_until_ms=until_ms)
