"""The audit's seamless invariants over hand-built histories: every accepted bet ends in exactly one acknowledged win
(≥ 0) or one acknowledged rollback; Σ bets − rollbacks = the stakes the spins recorded; each win is its spin's one
settlement, pool shares included; each break is named with its wager.

Scenario: a consistent synthetic history (bench/synthetic/spins.py, a seed whose spins win jackpots), played as a
seamless operator's: each ledger debit becomes the saga's bet decided and accepted, each ledger settlement its win
decided (pool shares in it) and acknowledged with the settlement's balance. It audits clean at rest. Then each broken
history: a bet with two wins, a win after a rollback, a win amount or pool share differing from the spin's settlement,
a bet with neither, a spin settled on a rolled-back round.
"""

from __future__ import annotations

from datetime import timedelta

from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from services.audit.core.audit import run_audit
from services.audit.core.seam import cut, decode_seam, encode_seam
from shared.events import broker_time, derived_id, envelope
from shared.events import wallet as wl
from shared.events.seamless import (
    SeamlessBetAccepted,
    SeamlessBetDecided,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
)
from shared.events.spin import SpinSettled

from test_audit_tampering import records

OPERATOR = "op-s"
SEED = 1  # its history wins jackpots: the pool shares ride in the rounds' wins


def _fact(data, at_ms: int, *parts: object) -> Emitted:
    event = envelope(data, source="test/seamless", time=broker_time(at_ms), id=derived_id("seamless", *parts))
    return Emitted("wallet.seamless", event, at_ms)


def _round(data, at_ms: int) -> dict:
    return {
        "wager_id": data.transaction_id,
        "player_id": data.player_id,
        "operator_id": OPERATOR,
        "recorded_at": broker_time(at_ms),
    }


def _bet(item: Emitted) -> list[Emitted]:
    data, at_ms = item.envelope.data, item.timestamp_ms
    decided = SeamlessBetDecided(
        **_round(data, at_ms),
        amount_minor=data.amount_minor,
        currency=data.currency,
        game=data.game,
        answer_by=broker_time(at_ms) + timedelta(seconds=5),
        command_fingerprint="f",
    )
    accepted = SeamlessBetAccepted(**_round(data, at_ms), amount_minor=data.amount_minor, currency=data.currency)
    return [_fact(decided, at_ms, data.transaction_id, "bet"), _fact(accepted, at_ms, data.transaction_id, "ok")]


def _win(item: Emitted) -> list[Emitted]:
    data, at_ms = item.envelope.data, item.timestamp_ms
    common = {**_round(data, at_ms), "wager_id": data.wager_id, "settlement_id": data.transaction_id}
    decided = SeamlessWinDecided(
        **common,
        amount_minor=data.win_minor,
        house_win_minor=data.house_win_minor,
        jackpot_win_minor=data.jackpot_win_minor,
        currency=data.currency,
        give_up_at=broker_time(at_ms) + timedelta(days=1),
        command_fingerprint="f",
    )
    acknowledged = SeamlessWinAcknowledged(
        **common, amount_minor=data.win_minor, currency=data.currency, balance_after_minor=data.balance_after_minor
    )
    return [_fact(decided, at_ms, data.wager_id, "win"), _fact(acknowledged, at_ms, data.wager_id, "won")]


def _rolled_back(bet: SeamlessBetDecided, at_ms: int) -> Emitted:
    """The bet of `bet`'s round acknowledged rolled back at `at_ms`."""
    rolled = SeamlessRolledBack(
        wager_id=bet.wager_id,
        player_id=bet.player_id,
        operator_id=bet.operator_id,
        recorded_at=broker_time(at_ms),
        amount_minor=bet.amount_minor,
        currency=bet.currency,
    )
    return _fact(rolled, at_ms, bet.wager_id, "rolled")


def seamless_history() -> list[Emitted]:
    """The synthetic history with the ledger's wagers played at a seamless operator's wallet instead."""
    played = []
    for item in play_history(seed=SEED, players=2, spins_per_player=8).emitted:
        if isinstance(item.envelope.data, wl.WagerDebited):
            played += _bet(item)
        elif isinstance(item.envelope.data, wl.WagerSettled):
            played += _win(item)
        else:
            played.append(item)
    return played


def audited(history: list[Emitted]):
    return run_audit(records(history), lookup=stand_in_lookup, at_rest=True)


def _checks(result) -> list[tuple[str, str]]:
    return [(finding.check, finding.subject) for finding in result.discrepancies]


def _settled(history: list[Emitted], jackpot: bool = False) -> Emitted:
    return next(
        item
        for item in history
        if isinstance(item.envelope.data, SpinSettled) and bool(item.envelope.data.jackpot_win_minor) == jackpot
    )


def _facts_of(history: list[Emitted], wager_id, kind: type) -> Emitted:
    return next(i for i in history if isinstance(i.envelope.data, kind) and i.envelope.data.wager_id == wager_id)


def _copy(item: Emitted, *parts: object, **changed) -> Emitted:
    data = item.envelope.data.model_copy(update=changed)
    return _fact(data, item.timestamp_ms + 1, data.wager_id, *parts)


def test_a_seamless_operators_history_audits_clean_its_pool_shares_in_the_rounds_wins():
    history = seamless_history()
    assert any(isinstance(i.envelope.data, SeamlessWinDecided) and i.envelope.data.jackpot_win_minor for i in history)
    assert not any(isinstance(i.envelope.data, (wl.WagerDebited, wl.WagerSettled)) for i in history)
    assert audited(history).discrepancies == []


def test_a_bet_with_two_wins_is_named_with_its_wager():
    history = seamless_history()
    wager = _settled(history).envelope.data.request_id
    won = _facts_of(history, wager, SeamlessWinAcknowledged)
    found = _checks(audited([*history, _copy(won, "again")]))
    assert ("seamless-bet-closed-twice", f"wager {wager}") in found


def test_a_win_after_a_rollback_is_named_with_its_wager():
    history = seamless_history()
    wager = _settled(history).envelope.data.request_id
    won = _facts_of(history, wager, SeamlessWinAcknowledged)
    bet = _facts_of(history, wager, SeamlessBetDecided).envelope.data
    rolled = _rolled_back(bet, won.timestamp_ms - 1)
    at = history.index(won)
    result = audited([*history[:at], rolled, *history[at:]])
    [twice] = [f for f in result.discrepancies if f.check == "seamless-bet-closed-twice"]
    assert twice.subject == f"wager {wager}" and "a win after a rollback" in twice.detail


def test_a_win_amount_differing_from_the_spins_settlement_is_named_with_its_wager():
    history = seamless_history()
    wager = _settled(history).envelope.data.request_id
    won = _facts_of(history, wager, SeamlessWinAcknowledged)
    changed = [_copy(won, "more", amount_minor=won.envelope.data.amount_minor + 1) if i is won else i for i in history]
    found = audited(changed).discrepancies
    assert any(
        f.check == "seamless-win-mismatch" and f.subject == f"wager {wager}" and "win_minor" in f.detail for f in found
    )


def test_a_pool_share_differing_from_the_pools_payout_is_named_with_its_wager():
    history = seamless_history()
    wager = _settled(history, jackpot=True).envelope.data.request_id
    decided = _facts_of(history, wager, SeamlessWinDecided)
    share = decided.envelope.data.jackpot_win_minor
    changed = [_copy(decided, "share", jackpot_win_minor=share + 1) if i is decided else i for i in history]
    found = _checks(audited(changed))
    assert ("jackpot-credit-mismatch", f"wager {wager}") in found
    assert ("seamless-win-mismatch", f"wager {wager}") in found


def test_a_bet_with_neither_a_win_nor_a_rollback_is_named_at_rest_and_in_flight_before():
    history = seamless_history()
    settled = _settled(history)
    wager = settled.envelope.data.request_id
    won = _facts_of(history, wager, SeamlessWinAcknowledged)
    unwon = [i for i in history if i is not won and i is not settled]
    assert ("seamless-bet-open", f"wager {wager}") in _checks(audited(unwon))
    live = run_audit(records(unwon), lookup=stand_in_lookup)
    assert [f for f in live.discrepancies if f.check.startswith("seamless-")] == []


def test_a_spin_settled_on_a_rolled_back_round_breaks_the_stakes_sum():
    history = seamless_history()
    settled = _settled(history)
    wager = settled.envelope.data.request_id
    won = _facts_of(history, wager, SeamlessWinAcknowledged)
    bet = _facts_of(history, wager, SeamlessBetDecided).envelope.data
    rolled = _rolled_back(bet, won.timestamp_ms)
    found = _checks(audited([rolled if i is won else i for i in history]))
    assert ("seamless-settlement-without-win", f"wager {wager}") in found
    assert ("seamless-stakes-unbalanced", f"currency {bet.currency}") in found


def test_an_audit_resumed_from_a_checkpoint_judges_every_round_as_the_full_audit_does():
    read = records(seamless_history())
    at = len(read) // 2
    prefix = run_audit(read[:at], lookup=stand_in_lookup)
    ends = {(r.topic, r.partition): r.offset + 1 for r in read[:at] if r.topic != "wallet.seamless"}
    seam = decode_seam(encode_seam(cut(prefix, ends, seen_for_ms=0)))  # retires whatever it may
    assert set(prefix.seamless.rounds) <= set(seam.spins.seeds) | set(seam.spins.settled)
    seamless = [r for r in read if r.topic == "wallet.seamless"]  # read whole, as the runner reads it
    tail = [r for r in read[at:] if r.topic != "wallet.seamless"] + seamless
    assert run_audit(tail, lookup=stand_in_lookup, seam=seam, at_rest=True).discrepancies == []
