"""A1–A7 replayed by principals the broker ALLOWS on each topic, without the writing service's signing key.

Scenario: the platform (wallet, jackpot, spin) runs with a signing key per writer. A player deposits and spins. Then
each attack of issue #14 is written by a principal whose ACLs let it write that topic, with the trusted writer's id in
the headers (what a compromised principal would do): signed with its own key, with no signature, or with an honest
record's signature headers on altered bytes. The internal commands (A2, A3, A4, A6) are replayed twice: on the
internal-command topics by the spin principal, the only one the broker lets write them (its credentials without the
spin service's key: unsigned, or signed with a key it holds), and on their old public topics by the cashier and the
operator, which still take the internal types during the migration release (only with the spin service's signature).
No balance and no pool moves, every service keeps answering and restores without folding any of it, every record is
dead-lettered as untrusted, and the audit names each one. That the cashier cannot write the internal topics at all is
test_principals.py.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from services.audit.adapters.runner import audit_platform
from services.audit.core.scope import Scope
from services.audit.core.trust import CHECK
from shared import records, signing
from shared.config import load_settings
from shared.dead_letters import origin_of
from shared.events import decode, decode_all, encode, envelope
from shared.events.jackpot import Claim, ContributionsApplied, Contribute, DisablePool, JackpotWon, PoolStatusChanged
from shared.events.jackpot import ResumePool
from shared.events.wallet import CASHIER, DebitWager, Deposit, Deposited, Posting, SettleWager, WagerSettled
from shared.events.wallet import Withdraw, Withdrawn, player_account
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR
from shared.topics import JACKPOT_COMMANDS, WALLET_COMMANDS
from tests.integration.spin.conftest import client_for, platform_factory, token_for  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration
PLAYER = "replay-1"
HUGE_MINOR = 10**12
NETWORK = "diamond-mystery"


@pytest.fixture(scope="module")
def platform(secured, keyed, platform_factory):  # noqa: F811 - the imported fixture
    return platform_factory()


def _attacks(now: datetime, honest_wager: uuid.UUID) -> list[tuple]:
    """(attack, principal allowed on the topic, the writer id it claims, payload[, topic: else the payload's]) in
    order."""
    wager = uuid.uuid4()

    def settle(wager_id: uuid.UUID) -> SettleWager:
        return SettleWager(
            transaction_id=uuid.uuid4(),
            player_id=PLAYER,
            wager_id=wager_id,
            currency="EUR",
            house_win_minor=HUGE_MINOR,
            jackpot_win_minor=0,
            breakage_micro=0,
            contribution_micro=0,
            network_id=NETWORK,
        )

    def pool(kind) -> object:
        return kind(network_id=NETWORK, command_id=uuid.uuid4(), pool_id="dm-diamond", reason="replayed")

    claim = Claim(
        network_id=NETWORK,
        claim_id=uuid.uuid4(),
        request_id=uuid.uuid4(),
        player_id=PLAYER,
        game="rising-joker",
        tier="diamond",
        currency="EUR",
        stake_minor=100,
    )
    contribute = Contribute(
        network_id=NETWORK,
        contribution_id=wager,
        game="rising-joker",
        currency="EUR",
        stake_minor=HUGE_MINOR,
        contribution_micro=HUGE_MINOR * MICRO_PER_MINOR // 100,
        breakage_micro=0,
        player_id=PLAYER,
    )
    debit = DebitWager(transaction_id=wager, player_id=PLAYER, amount_minor=1000, currency="EUR", game="rising-joker")
    money = dict(player_id=PLAYER, currency="EUR", amount_minor=HUGE_MINOR)

    def again(data):  # the same attack under fresh ids (a repeat of a refused id would only be a repeat)
        fresh = {
            name: uuid.uuid4() for name in ("transaction_id", "contribution_id", "claim_id") if hasattr(data, name)
        }
        return data.model_copy(update=fresh)

    return [
        ("A1", "spin", "cashier", Deposit(transaction_id=uuid.uuid4(), **money)),
        ("A1", "ops", "cashier", Withdraw(transaction_id=uuid.uuid4(), **money)),
        # The migration release: the old public topics (WALLET_COMMANDS, JACKPOT_COMMANDS) by their own principals.
        (
            "A2",
            "cashier",
            "spin",
            DebitWager(**{**debit.model_dump(), "transaction_id": uuid.uuid4()}),
            WALLET_COMMANDS,
        ),
        ("A2", "cashier", "spin", settle(honest_wager), WALLET_COMMANDS),
        ("A3", "cashier", "spin", debit, WALLET_COMMANDS),
        ("A3", "operator", "spin", contribute, JACKPOT_COMMANDS),
        ("A4", "operator", "spin", claim, JACKPOT_COMMANDS),
        ("A5", "spin", "operator", pool(DisablePool)),
        ("A5", "ops", "operator", pool(ResumePool)),
        ("A6", "cashier", "spin", settle(wager), WALLET_COMMANDS),
        ("A7", "ops", "wallet", _deposited(now)),
        # The internal topics, by the spin principal alone (signed, every second one, with the cashier's key).
        ("A2", "spin", "spin", again(debit)),
        ("A2", "spin", "spin", again(settle(honest_wager))),
        ("A3", "spin", "spin", again(contribute)),
        ("A4", "spin", "spin", again(claim)),
        ("A6", "spin", "spin", again(settle(wager))),
    ]


def _deposited(now: datetime) -> Deposited:
    return Deposited(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        recorded_at=now,
        currency="EUR",
        amount_minor=5 * HUGE_MINOR,
        balance_after_minor=5 * HUGE_MINOR,
        postings=(
            Posting(account=CASHIER, amount_micro=-5 * HUGE_MINOR * MICRO_PER_MINOR),
            Posting(account=player_account(PLAYER), amount_micro=5 * HUGE_MINOR * MICRO_PER_MINOR),
        ),
        command_fingerprint="forged",
    )


def _replay(platform, attacks, honest_settled) -> int:
    """Write every attack as its principal; the first of each pair unsigned, the other signed with the principal's own
    key (a compromised service has its own key, not the victim's). Returns how many records were written."""
    now = datetime.now(timezone.utc)
    sent = 0
    for index, (_, principal, claimed, data, *where) in enumerate(attacks):
        message = envelope(data, source="attacker", time=now)
        topic, value = where[0] if where else data.TOPIC, encode(message)
        # A principal's own key; the spin principal's stolen credentials come without the spin service's key.
        key = "cashier" if principal == claimed == "spin" else principal
        if index % 2 and key in signing.WRITERS:
            headers = signing.sign_one(key, topic, message.key, value, records.headers_for(claimed))
        else:
            headers = records.headers_for(claimed)
        writer = producer(platform.bootstrap, role=principal, client_id=f"replay-{principal}")
        try:
            writer.send(platform.topic(topic), key=message.key, value=value, headers=headers).get(timeout=30)
        finally:
            writer.close(10)
        sent += 1
    # An honest settlement's signature headers on altered bytes (ten times the win), written by ops.
    record = honest_settled
    settled = decode(record.value)
    altered = settled.data.model_copy(update={"house_win_minor": HUGE_MINOR})
    value = encode(envelope(altered, source=settled.source, time=settled.time))
    writer = producer(platform.bootstrap, role="ops", client_id="replay-ops")
    try:
        writer.send(platform.topic("wallet.events"), key=record.key, value=value, headers=list(record.headers)).get(30)
    finally:
        writer.close(10)
    return sent + 1


def _trusted(platform, topic: str) -> list:
    return [
        event.data
        for r in platform.read_raw(topic)
        if records.provenance_problem(topic, r.headers, r.value, r.key) is None
        for event in decode_all(r.value)
    ]


def test_replays_by_allowed_principals_without_the_writers_key_move_nothing_and_are_named(platform):
    with client_for(platform) as client:
        client.deposit(PLAYER, 10_000, "EUR")
        before = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER))
        assert before.balance_after_minor == 10_000 - 100 + before.win_minor
        honest = next(
            r
            for r in platform.read_raw("wallet.events")
            if isinstance(decode(r.value).data, WagerSettled) and decode(r.value).data.player_id == PLAYER
        )
        assert records.provenance_problem("wallet.events", honest.headers, honest.value, honest.key) is None
        attacks = _attacks(datetime.now(timezone.utc), decode(honest.value).data.wager_id)
        written = _replay(platform, attacks, honest)

        after = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER))
        assert after.balance_after_minor == before.balance_after_minor - 100 + after.win_minor, "no balance moved"
        platform.restart("wallet", "jackpot", "spin")  # restores that met every replay
        last = client.spin(PLAYER, "rising-joker", 100, "EUR", token_for(PLAYER), timeout_s=60)
        assert last.balance_after_minor == after.balance_after_minor - 100 + last.win_minor, "nothing folded"

    wallet = _trusted(platform, "wallet.events")
    assert [d.amount_minor for d in wallet if isinstance(d, Deposited)] == [10_000]
    assert not [d for d in wallet if isinstance(d, Withdrawn)]
    assert max(d.house_win_minor for d in wallet if isinstance(d, WagerSettled)) < HUGE_MINOR
    pools = _trusted(platform, "jackpot.events")
    stakes = [c.stake_minor for d in pools if isinstance(d, ContributionsApplied) for c in d.contributions]
    assert stakes and max(stakes) == 100, "no replayed stake counted"
    assert not [d for d in pools if isinstance(d, (JackpotWon, PoolStatusChanged))], "no claim paid, no pool switched"

    letters = [
        origin_of(r.headers).code
        for topic in ("wallet.commands.dlq", "jackpot.commands.dlq", "wallet.internal.dlq", "jackpot.internal.dlq")
        for r in platform.read_raw(topic)
    ]
    assert letters.count(records.UNTRUSTED_WRITER) >= len(attacks) - 1, letters  # A7 is on an event topic

    run = audit_platform(load_settings({**platform.env}), Scope(), with_projection=False)
    named = [d for d in run.discrepancies if d.check == CHECK]
    by_topic = sorted(d.subject for d in named)
    expected = ["wallet.commands"] * 6 + ["jackpot.commands"] * 4 + ["wallet.events"] * 2
    expected += ["wallet.internal"] * 3 + ["jackpot.internal"] * 2
    assert by_topic == sorted(expected), named
    assert len(named) == written
