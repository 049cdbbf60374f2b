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
    recorded_ms = epoch_ms(data.recorded_at)
    book.prune(recorded_ms)
    if not remembers(data):
        return book
    player_id, transaction_id, event_id = data.player_id, str(data.transaction_id), str(event.id)
    existing = book.memory.get(player_id, {}).get(transaction_id)
    if existing is not None and existing.event_id == event_id:
        return book
    player = evolve_player(book.players.get(player_id) or PlayerState(player_id), data)
    book.remember(player_id, _remembered(data, transaction_id, event_id, recorded_ms, player.seq))
    book.put(player)
    return book


def remembered(event: Envelope[Any], seq: int) -> Remembered:
    data = event.data
    return _remembered(data, str(data.transaction_id), str(event.id), epoch_ms(data.recorded_at), seq)


def _remembered(data: Any, transaction_id: str, event_id: str, recorded_ms: int, seq: int) -> Remembered:
    invariant(data.command_fingerprint is not None, "a remembered event names its command's content")
    return Remembered(transaction_id, seq, recorded_ms, data.command_fingerprint, event_id, data.TYPE)


def evolve_player(player: PlayerState, data: Any) -> PlayerState:
    """The player's state after one remembered event (no memory involved), built once from the changes it makes."""
    invariant(data.player_id == player.player_id, "an event must reach its own player's state")
    changes: dict[str, Any] = {"seq": player.seq + 1}
    if isinstance(data, _PostedEvent):
        changes.update(_posted(player, data))
        if isinstance(data, Deposited) and player.operator_id is None and data.operator_id is not None:
            changes["operator_id"] = data.operator_id  # the account's first operator deposit binds it
    elif isinstance(data, LimitSet):
        changes.update(_limit_set(player, data))
    elif isinstance(data, SelfExcluded):
        changes.update(_self_excluded(player, data))
    elif isinstance(data, AccountClosed):
        changes["closed"] = True
    else:
        invariant(isinstance(data, CommandRejected), f"unknown wallet event {data.TYPE}")
    return replace(player, **changes)


def _posted(player: PlayerState, data: _PostedEvent) -> dict[str, Any]:
    """What a posted event changes: balances, open wagers, limit usage and remainders."""
    now_ms = epoch_ms(data.recorded_at)
    balance = player.balances_minor.get(data.currency, 0) + player_delta_minor(player.player_id, data.postings)
    invariant(balance >= 0, "a player's balance never goes below zero")
    invariant(balance == data.balance_after_minor, "balance_after_minor must equal the fold of the postings")
    if not isinstance(data, Deposited):
        invariant(data.currency in player.balances_minor, "only a deposit opens an account")
    changes: dict[str, Any] = {"balances_minor": {**player.balances_minor, data.currency: balance}}
    if isinstance(data, Deposited):
        changes["usage"] = limits.with_usage(player, data.currency, "deposit", data.amount_minor, now_ms)
    elif isinstance(data, WagerDebited):
        wager_id, open_wagers = str(data.transaction_id), player.open_wagers
        invariant(wager_id not in open_wagers, "a wager is debited once")
        opened = OpenWager(data.currency, data.amount_minor, now_ms, data.game)
        changes["open_wagers"] = {**open_wagers, wager_id: opened}
        changes["usage"] = limits.with_usage(player, data.currency, "loss", data.amount_minor, now_ms)
        before = data.remainder_before_micro
        changes["remainders"] = remainders.after_debit(player, data.game, data.currency, wager_id, before)
    elif isinstance(data, RemainderCredited):
        changes["remainders"] = remainders.after_credit(player, data)  # the house's money: it counts against no limit
    elif not isinstance(data, Withdrawn):
        invariant(isinstance(data, (WagerSettled, WagerRefunded)), f"unknown posted event {data.TYPE}")
        wager_id, open_wagers = str(data.wager_id), player.open_wagers
        invariant(wager_id in open_wagers, "only an open wager is settled or refunded, once")
        wager = open_wagers[wager_id]
        changes["open_wagers"] = {key: value for key, value in open_wagers.items() if key != wager_id}
        credit = data.win_minor if isinstance(data, WagerSettled) else data.amount_minor
        changes["usage"] = limits.with_usage(player, data.currency, "loss", -credit, now_ms)
        after = data.remainder_after_micro if isinstance(data, WagerSettled) else None
        changes["remainders"] = remainders.after_close(player, wager.game, data.currency, wager_id, after)
    return changes


def _limit_set(player: PlayerState, data: LimitSet) -> dict[str, Any]:
    key = limit_key(data.currency, data.kind, data.period)
    rule = limits.rule_after(
        player.limits.get(key), data.amount_minor, epoch_ms(data.effective_at), epoch_ms(data.recorded_at)
    )
    return {"limits": {**player.limits, key: rule}}


def _self_excluded(player: PlayerState, data: SelfExcluded) -> dict[str, Any]:
    if data.until is None:
        return {"excluded_indefinitely": True}
    return {"excluded_until_ms": max(epoch_ms(data.until), player.excluded_until_ms or 0)}
