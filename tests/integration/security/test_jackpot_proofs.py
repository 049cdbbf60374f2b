"""A pool share is paid only with the jackpot service's signed JackpotWon, which the settlement carries to the wallet.

Scenario: the platform runs with a signing key per writer. An armed player's Rising Joker spin triggers the Diamond
Mystery; it settles with the jackpot's JackpotWon record (byte for byte as on jackpot.events) in the settlement. Then
a compromised spin principal, holding the spin service's own key, debits another player and settles that wager with
a jackpot amount: without a JackpotWon, with the honest one of the other wager, with one it signed itself, and with
the honest one altered to this wager. Each is refused JACKPOT_UNPROVEN and the balance does not move; the wager then
settles without a jackpot amount.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone

import pytest

from reelstream.client import Settled
from shared import records, signing
from shared.events import decode, decode_all, encode, envelope
from shared.events.jackpot import JackpotWon
from shared.events.wallet import CommandRejected, DebitWager, Deposited, SettleWager, WagerDebited, WagerSettled
from shared.kafka import producer
from shared.topics import JACKPOT_EVENTS, WALLET_EVENTS, WALLET_INTERNAL
from tests.integration.spin.conftest import client_for, platform_factory, token_for  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration
MYSTERY_SEED = "0000000000000000000000000000000000000000000000000000000000000807"  # green tier, first spin
WINNER, FORGER = "proof-winner", "proof-forger"
NETWORK = "diamond-mystery"


@pytest.fixture(scope="module")
def platform(secured, keyed, platform_factory):  # noqa: F811 - the imported fixture
    return platform_factory(REELSTREAM_TEST_SEEDS=f"{WINNER}={MYSTERY_SEED}")


@pytest.fixture(scope="module")
def won(platform):
    """The Diamond Mystery spin, settled: (its answer, the settlement command the spin service sent)."""
    with client_for(platform) as client:
        client.deposit(WINNER, 100_000, "EUR")
        answer = client.spin(WINNER, "rising-joker", 200, "EUR", token_for(WINNER), timeout_s=60)
    assert isinstance(answer, Settled) and answer.data.jackpot_win_minor > 0
    commands = [decode(r.value).data for r in platform.read_raw(WALLET_INTERNAL)]
    settle = next(c for c in commands if isinstance(c, SettleWager) and c.wager_id == answer.request_id)
    return answer, settle


def test_a_jackpot_win_settles_with_the_jackpots_own_signed_record(platform, won):
    answer, settle = won
    (proof,) = settle.jackpot_proofs
    original = next(
        r
        for r in platform.read_raw(JACKPOT_EVENTS)
        if any(isinstance(e.data, JackpotWon) and e.data.request_id == answer.request_id for e in decode_all(r.value))
    )
    assert proof.value.encode() == original.value and proof.key.encode() == original.key
    assert records.proof_problem(proof) is None
    assert settle.jackpot_win_minor == decode(original.value).data.amount_minor == answer.data.jackpot_win_minor
    settled = [e.data for e in platform.read_all(WALLET_EVENTS) if isinstance(e.data, WagerSettled)]
    assert [s.jackpot_win_minor for s in settled if s.wager_id == answer.request_id] == [settle.jackpot_win_minor]


def test_settlements_with_a_jackpot_amount_the_jackpot_did_not_sign_are_refused(platform, won):
    _, honest = won
    (proof,) = honest.jackpot_proofs
    with client_for(platform) as client:
        client.deposit(FORGER, 10_000, "EUR")
    wager = uuid.uuid4()
    as_spin(
        platform,
        DebitWager(transaction_id=wager, player_id=FORGER, amount_minor=200, currency="EUR", game="rising-joker"),
    )
    wait_for(platform, {wager})
    mine = decode(proof.value.encode()).data.model_copy(update={"request_id": wager, "player_id": FORGER})
    self_signed = jackpot_record_signed_by_spin(mine)
    altered = proof.model_copy(update={"value": proof.value.replace(str(honest.wager_id), str(wager))})
    altered = altered.model_copy(update={"value": altered.value.replace(WINNER, FORGER)})
    attempts = {
        "no JackpotWon": (),
        "another wager's": (proof,),
        "signed by the spin service": (self_signed,),
        "the honest one altered": (altered,),
    }
    sent = {
        name: as_spin(platform, settlement(wager, honest.jackpot_win_minor, proofs))
        for name, proofs in attempts.items()
    }
    answers = wait_for(platform, set(sent.values()))
    for name, transaction_id in sent.items():
        answer = answers[transaction_id]
        assert isinstance(answer, CommandRejected) and answer.code == "JACKPOT_UNPROVEN", (name, answer)
    problems = [answers[sent[name]].message for name in attempts]
    assert "without the jackpot's JackpotWon" in problems[0]
    assert "answers request_id" in problems[1]
    assert "only 'jackpot'" in problems[2] or "signed by 'spin'" in problems[2]
    assert "signature does not verify" in problems[3]

    closing = as_spin(platform, settlement(wager, 0, None))
    settled = wait_for(platform, {closing})[closing]
    assert isinstance(settled, WagerSettled) and settled.balance_after_minor == 10_000 - 200, "no jackpot amount paid"


def settlement(wager: uuid.UUID, jackpot_win_minor: int, proofs) -> SettleWager:
    return SettleWager(
        transaction_id=uuid.uuid4(),
        player_id=FORGER,
        wager_id=wager,
        currency="EUR",
        house_win_minor=0,
        jackpot_win_minor=jackpot_win_minor,
        breakage_micro=0,
        contribution_micro=0,
        network_id=NETWORK,
        jackpot_proofs=proofs,
    )


def jackpot_record_signed_by_spin(won: JackpotWon):
    """A JackpotWon that claims the jackpot as its writer, signed with the spin service's key (all a spin has)."""
    value = encode(envelope(won, source="reelstream/jackpot", time=datetime.now(timezone.utc)))
    key = won.network_id.encode()
    headers = signing.sign_one("spin", JACKPOT_EVENTS, key, value, records.headers_for("jackpot"))
    forwarded = _Record(b"player", value, [records.proof_header(_Record(key, value, headers))])
    return records.forwarded_proof(forwarded)


class _Record:
    def __init__(self, key, value, headers) -> None:
        self.key, self.value, self.headers = key, value, headers


def as_spin(platform, data) -> uuid.UUID:
    """Write a wallet command as the spin principal onto its topic (wallet.internal for the spin's own, a deposit on
    wallet.commands), signed with the spin service's own key; its transaction id."""
    message = envelope(data, source="reelstream/spin", time=datetime.now(timezone.utc))
    value = encode(message)
    headers = records.signed_headers("spin", data.TOPIC, message.key, value)
    writer = producer(platform.bootstrap, role="spin", client_id="proof-forger")
    try:
        writer.send(platform.topic(data.TOPIC), key=message.key, value=value, headers=headers).get(30)
    finally:
        writer.close(10)
    return data.transaction_id


def wait_for(platform, transaction_ids: set[uuid.UUID], timeout_s: float = 60) -> dict:
    """The wallet's answer to each transaction id (bounded wait)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = {
            e.data.transaction_id: e.data
            for e in platform.read_all(WALLET_EVENTS, settle_s=0.5)
            if e.data.transaction_id in transaction_ids
            and isinstance(e.data, (WagerDebited, WagerSettled, CommandRejected, Deposited))
        }
        if set(found) == transaction_ids or time.monotonic() > deadline:
            assert set(found) == transaction_ids, f"no wallet answer to {transaction_ids - set(found)}"
            return found
        time.sleep(0.5)
