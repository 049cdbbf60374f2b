"""The one settlement carries the jackpot's signed JackpotWon of each pool share, and the wallet pays it on that alone.

Scenario: a spin claims a pool; the jackpot answers JackpotWon on jackpot.events (signed by its key) and copies it to
spin.jackpot-answers with the original key and headers in one header, and the spin service settles.
The wallet core, with the record module's check bound as its adapter binds it, debits and settles that very command.
"""

from __future__ import annotations

import uuid


from services.spin.core import evolve as fold
from services.spin.adapters import image
from services.spin.core.decide import SpinCore
from services.spin.core.progress import settle_command
from services.wallet.core import WalletBook
from shared import records
from shared.events import decode, envelope
from shared.events.envelope import broker_time
from shared.events.jackpot import Claim
from shared.events.wallet import DebitWager, Deposit, SettleWager, WagerSettled
from tests.support.proofs import Written, proof_of
from tests.support.wallet import CORE as WALLET_CORE, sent
from tests.support.spin import (
    CLAIM,
    NOW_MS,
    Record,
    Seeds,
    claim_refused_for,
    debited_for,
    decoded,
    fact,
    make_context,
    one,
    read_back,
    request,
    request_bytes,
    spin_core,
    won_for,
)

NOW = broker_time(NOW_MS)


def a_claiming_spin():
    """Given nothing, a claiming spin's request and its debit: the spin (gwt), its debit command and its claim."""
    ctx = make_context(Seeds(CLAIM))
    _, raw = request_bytes(stake=100)
    asked = spin_core(ctx).given().when(request(raw), NOW)
    debit = one(asked.decision.commands, DebitWager)
    claimed = asked.when(fact(debited_for(debit)), NOW)
    return claimed, ctx, debit, one(claimed.decision.commands, Claim)


def answer(spin, event, proof=None) -> SettleWager:
    """The settlement the spin sends once `event` (a jackpot answer, with its `proof`) answers its one claim."""
    return one(spin.when(fact(event, proof=proof), NOW).decision.commands, SettleWager)


def on_jackpot_events(raw: bytes, writer: str = "jackpot") -> Written:
    key = decode(raw).data.network_id.encode()
    return Written(key, raw, records.signed_headers(writer, "jackpot.events", key, raw))


def forwarded(original: Written) -> Record:
    """The jackpot's copy on spin.jackpot-answers: the value byte for byte, the original's key and headers kept."""
    return Record("spin.jackpot-answers", 0, 0, b"p-1", original.value, NOW_MS, (records.proof_header(original),))


def wallet_settles(debit_out, settle_out):
    """The wallet core deciding the spin's own debit and settlement commands (after a deposit)."""
    book = WalletBook(0)
    deposit = Deposit(transaction_id=uuid.UUID(int=42), player_id="p-1", amount_minor=10_000, currency="EUR")
    for data in (deposit, decoded(debit_out), decoded(settle_out)):
        (event,) = WALLET_CORE.decide(book, sent(envelope(data, source="test", time=NOW), NOW), NOW).events
    return event


def test_the_settlement_carries_the_forwarded_jackpot_won_and_the_wallet_pays_it(keys):
    spin, ctx, debit, claim = a_claiming_spin()
    won, raw = won_for(claim, amount_minor=777)
    original = on_jackpot_events(raw)
    proof = records.forwarded_proof(forwarded(original))
    settle = answer(spin, won, proof)
    assert decoded(settle).jackpot_proofs == (proof,)
    assert proof.value.encode() == original.value
    settled = wallet_settles(debit, settle)
    assert isinstance(settled.data, WagerSettled) and settled.data.jackpot_win_minor == 777


def test_a_win_folded_without_its_proof_is_settled_without_one_and_the_wallet_refuses_the_pool_share(keys):
    spin, ctx, debit, claim = a_claiming_spin()
    won, _ = won_for(claim, amount_minor=777)
    settle = answer(spin, won)
    assert decoded(settle).jackpot_proofs is None and decoded(settle).jackpot_win_minor == 777
    refusal = wallet_settles(debit, settle)
    assert refusal.data.code == "JACKPOT_UNPROVEN"


def test_a_jackpot_won_the_spin_service_signed_itself_is_refused_by_the_wallet(keys):
    spin, ctx, debit, claim = a_claiming_spin()
    won, raw = won_for(claim, amount_minor=777)
    forged = proof_of(on_jackpot_events(raw, writer="spin"))
    settle = answer(spin, won, forged)
    assert wallet_settles(debit, settle).data.code == "JACKPOT_UNPROVEN"


def test_a_rejected_claim_carries_no_proof():
    spin, ctx, debit, claim = a_claiming_spin()
    refused, _ = claim_refused_for(claim)
    settle = answer(spin, refused)
    assert decoded(settle).jackpot_proofs is None and decoded(settle).jackpot_win_minor == 0
    assert isinstance(wallet_settles(debit, settle).data, WagerSettled)


def test_a_rebuilt_book_settles_with_the_proof_it_folded(keys):
    spin, ctx, debit, claim = a_claiming_spin()
    won, raw = won_for(claim, amount_minor=777)
    proof = proof_of(on_jackpot_events(raw))
    book = SpinCore(ctx).evolve(spin.state, read_back(won, proof))  # as rebuild folds spin.jackpot-answers
    record = book.records[won.data.request_id]
    assert record.status == "settling"
    command = settle_command(ctx, record, NOW)
    assert command.data.jackpot_proofs == (proof,)


def test_a_snapshot_image_keeps_the_proof_and_the_restored_book_settles_with_it(keys):
    spin, ctx, debit, claim = a_claiming_spin()
    won, raw = won_for(claim, amount_minor=777)
    proof = proof_of(on_jackpot_events(raw))
    book = SpinCore(ctx).evolve(spin.state, read_back(won, proof))
    restored = image.decode(image.encode(book)).book
    record = restored.records[won.data.request_id]
    fold.ensure_result(record, ctx.catalog)  # outcomes are recomputed, not imaged
    assert settle_command(ctx, record, NOW).data.jackpot_proofs == (proof,)
