"""A settlement's jackpot amount is paid only with the jackpot service's signed JackpotWon of that very wager.

Scenario: a player with 10.00 EUR stakes 1.00; the jackpot awards 50.00 EUR of a pool for the wager. The spin service
(or whoever holds its key) settles it with the JackpotWon as the jackpot wrote it, with none, with one it forged or
altered, with one of another wager, or with a sum that is not the award's; only the first is paid.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared import records, signing
from shared.decision import Message
from shared.events import envelope
from shared.events.envelope import epoch_ms
from shared.events.wallet import SettleWager, WagerSettled
from shared.headers import JACKPOT_PROOF
from services.wallet.core import WalletCore
from tests.support.proofs import jackpot_won, proof_of, proven, written_by
from tests.support.wallet import PLAYER, Wallet, code, tx

STAKE, AWARD = 100, 5_000


def a_wallet_with_an_open_wager() -> Wallet:
    wallet = Wallet()
    wallet.deposit(1, 1_000)
    wallet.debit(2, STAKE)
    return wallet


def the_award(wager: int = 2, amount_minor: int = AWARD, **fields):
    return jackpot_won(tx(wager), PLAYER, amount_minor, STAKE, **fields)


def refused(wallet: Wallet, event, balance_minor: int = 900) -> bool:
    """Refused JACKPOT_UNPROVEN, nothing paid, and the wager still open for its honest settlement."""
    still_open = str(tx(2)) in wallet.state.player.open_wagers
    return code(event) == "JACKPOT_UNPROVEN" and wallet.balance() == balance_minor and still_open


def test_a_signed_jackpot_won_of_the_wager_pays_its_pool_share(keys):
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, house_win_minor=10, jackpot_win_minor=AWARD, proofs=(proven(the_award()),))
    assert isinstance(event.data, WagerSettled) and event.data.jackpot_win_minor == AWARD
    assert wallet.balance() == 900 + 10 + AWARD


def test_a_jackpot_amount_without_any_jackpot_won_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=())
    assert refused(wallet, event)
    assert "without the jackpot's JackpotWon" in event.data.message
    assert code(wallet.settle(4, wager=2, jackpot_win_minor=AWARD, proofs=(proven(the_award()),))) is None


def test_a_jackpot_won_written_by_another_writer_is_refused_even_signed_with_its_own_key(keys):
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(proven(the_award(), writer="spin"),))
    assert refused(wallet, event)
    assert "only 'jackpot'" in event.data.message


def test_a_jackpot_won_naming_the_jackpot_without_its_signature_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    honest = written_by("jackpot", the_award())
    unsigned = replace(honest, headers=[(k, v) for k, v in honest.headers if k not in signing.SIGNATURE_HEADERS])
    event = wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(proof_of(unsigned),))
    assert refused(wallet, event)
    assert "unsigned" in event.data.message


def test_a_signed_jackpot_won_with_a_raised_amount_no_longer_verifies(keys):
    wallet = a_wallet_with_an_open_wager()
    honest = written_by("jackpot", the_award())
    raised = replace(honest, value=honest.value.replace(b'"amount_minor":5000', b'"amount_minor":500000'))
    assert raised.value != honest.value
    event = wallet.settle(3, wager=2, jackpot_win_minor=500_000, proofs=(proof_of(raised),))
    assert refused(wallet, event)
    assert "signature does not verify" in event.data.message


def test_a_settlement_paying_more_or_less_than_the_jackpot_awarded_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    for paid in (AWARD + 1, AWARD - 1):
        event = wallet.settle(3 + paid, wager=2, jackpot_win_minor=paid, proofs=(proven(the_award()),))
        assert refused(wallet, event)
        assert f"sum to {AWARD}" in event.data.message


def test_a_jackpot_won_of_another_wager_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    wallet.debit(5, STAKE)
    theirs = proven(the_award(wager=5))  # genuine and signed, but it answers wager 5
    event = wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(theirs,))
    assert refused(wallet, event, balance_minor=800) and "answers request_id" in event.data.message
    assert code(wallet.settle(6, wager=5, jackpot_win_minor=AWARD, proofs=(theirs,))) is None


def test_a_jackpot_won_replayed_after_its_wager_settled_pays_nothing_more(keys):
    wallet = a_wallet_with_an_open_wager()
    award = proven(the_award())
    assert code(wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(award,))) is None
    assert code(wallet.settle(4, wager=2, jackpot_win_minor=AWARD, proofs=(award,))) == "WAGER_ALREADY_CLOSED"
    assert wallet.balance() == 900 + AWARD


def test_one_award_counted_twice_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    award = proven(the_award())
    event = wallet.settle(3, wager=2, jackpot_win_minor=2 * AWARD, proofs=(award, award))
    assert refused(wallet, event) and "proven twice" in event.data.message


@pytest.mark.parametrize(
    "fields, named",
    [
        ({"network_id": "net-2"}, "network_id"),
        ({"currency": "DKK"}, "currency"),
    ],
)
def test_an_award_of_another_network_or_currency_is_refused(keys, fields, named):
    wallet = a_wallet_with_an_open_wager()
    event = wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(proven(the_award(**fields)),))
    assert refused(wallet, event) and f"answers {named}" in event.data.message


def test_an_award_for_another_stake_or_player_is_refused(keys):
    wallet = a_wallet_with_an_open_wager()
    for n, won in enumerate((jackpot_won(tx(2), PLAYER, AWARD, STAKE * 2), jackpot_won(tx(2), "other", AWARD, STAKE))):
        event = wallet.settle(3 + n, wager=2, jackpot_win_minor=AWARD, proofs=(proven(won),))
        assert refused(wallet, event) and ("answers stake_minor", "answers player_id")[n] in event.data.message


def test_several_awards_of_one_wager_pay_their_sum(keys):
    wallet = a_wallet_with_an_open_wager()
    awards = tuple(proven(the_award(amount_minor=amount, claim_id=tx(100 + amount))) for amount in (700, 300))
    assert code(wallet.settle(3, wager=2, jackpot_win_minor=1_000, proofs=awards)) is None
    assert wallet.balance() == 900 + 1_000


def test_without_a_signing_directory_the_jackpots_writer_id_is_still_required():
    wallet = a_wallet_with_an_open_wager()
    assert refused(wallet, wallet.settle(3, wager=2, jackpot_win_minor=AWARD, proofs=(proven(the_award(), "spin"),)))
    assert code(wallet.settle(4, wager=2, jackpot_win_minor=AWARD, proofs=(proven(the_award()),))) is None


def test_a_settlement_whose_awards_the_loop_did_not_check_pays_no_jackpot_but_settles_the_rest():
    wallet = a_wallet_with_an_open_wager()
    settle = SettleWager(
        transaction_id=tx(3),
        player_id=PLAYER,
        wager_id=tx(2),
        currency="EUR",
        house_win_minor=0,
        jackpot_win_minor=AWARD,
        breakage_micro=0,
        contribution_micro=0,
        network_id="net-1",
        jackpot_proofs=(proven(the_award()),),
    )
    unchecked = Message(envelope(settle, source="test", time=wallet.now), epoch_ms(wallet.now))  # no proof attached
    (event,) = WalletCore().decide(wallet.book, unchecked, wallet.now).events
    assert code(event) == "JACKPOT_UNPROVEN" and "not checked" in event.data.message
    assert code(wallet.settle(4, wager=2, house_win_minor=10)) is None


def test_the_proof_header_round_trips_and_a_malformed_one_carries_no_proof(keys):
    honest = written_by("jackpot", the_award())
    proof = proof_of(honest)
    assert proof.value.encode() == honest.value and proof.key.encode() == honest.key
    assert records.proof_problem(proof) is None
    broken = replace(honest, headers=[(JACKPOT_PROOF, b"{not json")])
    assert records.forwarded_proof(broken) is None
    assert records.forwarded_proof(replace(honest, headers=[])) is None
    last = proof.headers[-1].model_copy(update={"value": "!"})
    assert "not base64" in records.proof_problem(proof.model_copy(update={"headers": (*proof.headers[:-1], last)}))
