"""A1–A7 replayed by principals the broker ALLOWS on each topic, without the writing service's signing key.

Scenario: the platform (wallet, jackpot, spin) runs with a signing key per writer. A player deposits and spins. Then
each
attack of issue #14 is written by a principal whose ACLs let it write that topic, with the trusted writer's id in the
headers (what a compromised principal would do): signed with its own key, with no signature, or with an honest
record's signature headers on altered bytes. No balance and no pool moves, every service keeps answering and restores
without folding any of it, every record is dead-lettered as untrusted, and the audit names each one.
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
from shared.events import decode, encode, envelope
from shared.events.jackpot import Claim, ContributionsApplied, Contribute, DisablePool, JackpotWon, PoolStatusChanged
from shared.events.jackpot import ResumePool
from shared.events.wallet import CASHIER, DebitWager, Deposit, Deposited, Posting, SettleWager, WagerSettled
from shared.events.wallet import Withdraw, Withdrawn, player_account
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR
from tests.integration.spin.conftest import client_for, platform_factory, token_for  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration
PLAYER = "replay-1"
HUGE_MINOR = 10**12
NETWORK = "diamond-mystery"


@pytest.fixture(scope="module")
def platform(secured, keyed, platform_factory):  # noqa: F811 - the imported fixture
    return platform_factory()


def _attacks(now: datetime, honest_wager: uuid.UUID) -> list[tuple[str, str, str, object]]:
    """(attack, principal allowed on the topic, the writer id it claims, payload) in order."""
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
    return [
        ("A1", "spin", "cashier", Deposit(transaction_id=uuid.uuid4(), **money)),
        ("A1", "ops", "cashier", Withdraw(transaction_id=uuid.uuid4(), **money)),
        ("A2", "cashier", "spin", DebitWager(**{**debit.model_dump(), "transaction_id": uuid.uuid4()})),
        ("A2", "cashier", "spin", settle(honest_wager)),
        ("A3", "cashier", "spin", debit),
        ("A3", "operator", "spin", contribute),
        ("A4", "operator", "spin", claim),
        ("A5", "spin", "operator", pool(DisablePool)),
        ("A5", "ops", "operator", pool(ResumePool)),
        ("A6", "cashier", "spin", settle(wager)),
        ("A7", "ops", "wallet", _deposited(now)),
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
    for index, (_, principal, claimed, data) in enumerate(attacks):
        message = envelope(data, source="attacker", time=now)
        topic, value = data.TOPIC, encode(message)
        if index % 2 and principal in signing.WRITERS:
            headers = signing.sign_one(principal, topic, message.key, value, records.headers_for(claimed))
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
        decode(r.value).data
        for r in platform.read_raw(topic)
        if records.provenance_problem(topic, r.headers, r.value, r.key) is None
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
        for name in ("wallet", "jackpot", "spin"):
            platform.services[name].stop()
            platform.start(name).wait_ready(120)  # restores that met every replay
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
        for topic in ("wallet.commands.dlq", "jackpot.commands.dlq")
        for r in platform.read_raw(topic)
    ]
    assert letters.count(records.UNTRUSTED_WRITER) >= len(attacks) - 1, letters  # A7 is on an event topic

    run = audit_platform(load_settings({**platform.env}), Scope(), with_projection=False)
    named = [d for d in run.discrepancies if d.check == CHECK]
    by_topic = sorted(d.subject for d in named)
    assert by_topic == sorted(["wallet.commands"] * 6 + ["jackpot.commands"] * 4 + ["wallet.events"] * 2), named
    assert len(named) == written
