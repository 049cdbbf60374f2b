"""Spins through the running wallet, jackpot and spin services on the real broker.

Scenario: players deposit, then play both games; one Rising Joker player is armed (test-only seed override) to trigger
the Diamond Mystery, one Stjernestøv player to hit a progressive jackpot and another to lock the stake; every refusal
of the contract is provoked once; finally every request must have exactly one distinct answer on spin.events.
"""

from __future__ import annotations

import time
import uuid

import pytest

from reelstream.client import Rejected, Settled
from games.registry import engine
from games.rng import SpinRng
from shared.config import DEDUP_WINDOW_MS
from shared.events import encode, envelope
from shared.events.envelope import broker_time
from shared.events.jackpot import JackpotWon, PoolReseeded
from shared.events.spin import BonusRingForfeited, RemainderStranded, SpinRejected, SpinRequested, SpinSettled
from shared.events.wallet import RemainderCredited, WagerSettled
from shared.kafka import producer

from conftest import client_for, token_for
from tests.support.remainders import HALF, seed_leaving

MYSTERY_SEED = "0000000000000000000000000000000000000000000000000000000000000807"  # green tier, first spin
LOCKING_SEED = "0000000000000000000000000000000000000000000000000000000000000008"  # a bonus symbol stays on the ring
JACKPOT_SEED = "0000000000000000000000000000000000000000000000000000000000016c41"  # Astro Flash wheel: Jackpot
HALF_CENT_AT_10 = seed_leaving(10, 0, HALF).hex()  # a win at €0.10 that leaves ½ cent carried
WHOLE_AT_20 = seed_leaving(20, 0, 0).hex()
ARMED = {
    "rj-mystery": MYSTERY_SEED,
    "sn-locker": LOCKING_SEED,
    "rj-half": f"{HALF_CENT_AT_10},{WHOLE_AT_20}",
    "rj-excl": HALF_CENT_AT_10,
    "rj-close": HALF_CENT_AT_10,
}


@pytest.fixture(scope="module")
def platform(platform_factory):
    armed = dict(ARMED, **{"sn-jackpot": JACKPOT_SEED})
    return platform_factory(REELSTREAM_TEST_SEEDS=";".join(f"{p}={s}" for p, s in armed.items()))


@pytest.fixture(scope="module")
def client(platform):
    with client_for(platform) as client:
        yield client


def test_both_games_settle_end_to_end_and_each_win_is_credited_once(platform, client):
    client.deposit("rj-1", 10_000, "EUR")
    client.deposit("sn-1", 100_000, "DKK")
    rising = client.spin("rj-1", "rising-joker", 100, "EUR", token_for("rj-1"))
    star = client.spin("sn-1", "stjernestoev", 200, "DKK", token_for("sn-1"))
    assert isinstance(rising, Settled) and isinstance(star, Settled)
    assert rising.balance_after_minor == 10_000 - 100 + rising.win_minor
    assert star.balance_after_minor == 100_000 - 200 + star.win_minor
    replayed = engine("rising-joker").play({}, 100, SpinRng.from_hex(rising.data.seed))
    assert replayed.outcome == rising.data.outcome
    settlements = [e for e in platform.read_all("wallet.events") if isinstance(e.data, WagerSettled)]
    for answer in (rising, star):
        assert len({e.id for e in settlements if e.data.wager_id == answer.request_id}) == 1


def test_a_diamond_mystery_claim_pays_the_fixed_prize_and_the_variable_share_and_the_pool_drops(platform, client):
    assert engine("rising-joker").play({}, 200, SpinRng.from_hex(MYSTERY_SEED)).claims == ("green",)
    client.deposit("rj-mystery", 100_000, "EUR")
    answer = client.spin("rj-mystery", "rising-joker", 200, "EUR", token_for("rj-mystery"))
    assert isinstance(answer, Settled)
    award = answer.data.jackpot_awards[0]
    won = next(
        e.data
        for e in platform.read_all("jackpot.events")
        if isinstance(e.data, JackpotWon) and e.data.request_id == answer.request_id
    )
    assert award.tier == "green" and award.share_ppm == 100_000  # 2.00 EUR / 20 EUR = 10 %
    assert won.amount_minor == won.level_before_micro * 100_000 // 1_000_000 // 1_000_000 == award.amount_minor
    assert won.level_after_micro == won.level_before_micro - award.amount_minor * 1_000_000
    assert answer.data.house_win_minor == 50 * 200  # the mystery follows a losing spin: only the fixed prize
    assert answer.win_minor == answer.data.house_win_minor + award.amount_minor
    assert answer.balance_after_minor == 100_000 - 200 + answer.win_minor


def test_a_stjernestoev_jackpot_pays_the_whole_pool_and_the_operator_reseeds_it(platform, client):
    assert (
        engine("stjernestoev")
        .play(engine("stjernestoev").initial_state(), 10_000, SpinRng.from_hex(JACKPOT_SEED))
        .claims
    )
    client.deposit("sn-jackpot", 1_000_000, "DKK")
    answer = client.spin("sn-jackpot", "stjernestoev", 10_000, "DKK", token_for("sn-jackpot"))
    assert isinstance(answer, Settled) and answer.data.jackpot_awards
    award = answer.data.jackpot_awards[0]
    events = platform.read_all("jackpot.events")
    won = next(e.data for e in events if isinstance(e.data, JackpotWon) and e.data.request_id == answer.request_id)
    assert award.amount_minor == won.level_before_micro // 1_000_000
    reseeded = [e.data for e in events if isinstance(e.data, PoolReseeded) and e.data.cause_claim_id == won.claim_id]
    assert len(reseeded) == 1 and reseeded[0].pool_id == won.pool_id


def test_a_pending_bonus_ring_locks_the_stake_until_the_player_forfeits_it(platform, client):
    client.deposit("sn-locker", 100_000, "DKK")
    first = client.spin("sn-locker", "stjernestoev", 10_000, "DKK", token_for("sn-locker"))
    assert isinstance(first, Settled) and engine("stjernestoev").locked_stake(first.data.state_after) == 10_000
    locked = client.spin("sn-locker", "stjernestoev", 50, "DKK", token_for("sn-locker"))
    assert isinstance(locked, Rejected) and locked.code == "STAKE_LOCKED"
    forfeited = client.spin("sn-locker", "stjernestoev", 50, "DKK", token_for("sn-locker"), forfeit_bonus_ring=True)
    assert isinstance(forfeited, Settled)
    assert engine("stjernestoev").locked_stake(forfeited.data.state_before) is None
    journal = [e.data for e in platform.read_all("spin.journal") if isinstance(e.data, BonusRingForfeited)]
    assert [(j.request_id, j.locked_stake_minor, j.new_stake_minor) for j in journal] == [
        (forfeited.request_id, 10_000, 50)
    ]


def test_each_refusal_of_the_contract_returns_its_code(platform, client):
    client.deposit("rj-poor", 50, "EUR")
    token = token_for("rj-poor")
    expired = token_for("rj-poor", ttl_s=-1)
    cases = {
        "INSUFFICIENT_FUNDS": dict(stake_minor=100),
        "INVALID_STAKE": dict(stake_minor=15),
        "CURRENCY_MISMATCH": dict(currency="DKK"),
        "UNKNOWN_GAME": dict(game="pachinko"),
        "UNAUTHENTICATED": dict(token="v1.forged.1.x"),
    }
    for code, fields in cases.items():
        request = {
            **dict(player_id="rj-poor", game="rising-joker", stake_minor=10, currency="EUR", token=token),
            **fields,
        }
        answer = client.spin(**request)
        assert isinstance(answer, Rejected) and answer.code == code, (code, answer)
    for bad in (expired, token_for("someone-else")):
        assert client.spin("rj-poor", "rising-joker", 10, "EUR", bad).code == "UNAUTHENTICATED"


def test_a_repeated_id_returns_the_same_answer_and_another_content_is_a_duplicate_conflict(platform, client):
    client.deposit("rj-repeat", 10_000, "EUR")
    request_id = uuid.uuid4()
    first = client.spin("rj-repeat", "rising-joker", 100, "EUR", token_for("rj-repeat"), request_id=request_id)
    again = client.spin("rj-repeat", "rising-joker", 100, "EUR", token_for("rj-repeat"), request_id=request_id)
    conflict = client.spin("rj-repeat", "rising-joker", 200, "EUR", token_for("rj-repeat"), request_id=request_id)
    assert isinstance(first, Settled) and again.event_id == first.event_id
    assert isinstance(conflict, Rejected) and conflict.code == "DUPLICATE_CONFLICT"
    debits = [e for e in platform.read_all("wallet.events") if getattr(e.data, "transaction_id", None) == request_id]
    assert len({e.id for e in debits}) == 1


def test_a_request_older_than_the_window_is_refused_by_age(platform, client):
    request_id = uuid.uuid4()
    stale_ms = time.time_ns() // 1_000_000 - DEDUP_WINDOW_MS - 60_000
    data = SpinRequested(
        request_id=request_id,
        player_id="rj-late",
        game="rising-joker",
        stake_minor=100,
        currency="EUR",
        session_token=token_for("rj-late"),
    )
    sender = producer(platform.bootstrap)
    sender.send(
        platform.topic("spin.requests"),
        key=b"rj-late",
        value=encode(envelope(data, source="test", time=broker_time(stale_ms))),
    ).get(timeout=10)
    sender.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        answers = [
            e.data for e in platform.read_all("spin.events", 0.2) if getattr(e.data, "request_id", None) == request_id
        ]
        if answers:
            assert [a.code for a in answers] == ["REQUEST_EXPIRED"]
            return
    pytest.fail("no answer to the stale request")


def test_a_carried_half_cent_is_credited_when_a_stake_change_self_exclusion_or_closure_strands_it(platform, client):
    first = {}
    for player in ("rj-half", "rj-excl", "rj-close"):
        client.deposit(player, 1_000, "EUR")
        first[player] = client.spin(player, "rising-joker", 10, "EUR", token_for(player))
        assert isinstance(first[player], Settled) and first[player].data.state_after == {"remainder_micro": HALF}
    changed = client.spin("rj-half", "rising-joker", 20, "EUR", token_for("rj-half"))
    assert isinstance(changed, Settled) and changed.data.state_before == {"remainder_micro": 0}
    assert changed.balance_after_minor == first["rj-half"].balance_after_minor - 20 + 1 + changed.win_minor
    assert client.self_exclude("rj-excl", None).TYPE.endswith("self-excluded.v1")
    assert client.close_account("rj-close").TYPE.endswith("account-closed.v1")
    credits = {
        e.data.player_id: (e.data.reason, e.data.remainder_micro, e.data.amount_minor)
        for e in platform.read_all("wallet.events")
        if isinstance(e.data, RemainderCredited)
    }
    assert credits == {
        "rj-half": ("stake-change", HALF, 1),
        "rj-excl": ("self-exclusion", HALF, 1),
        "rj-close": ("closure", HALF, 1),
    }
    deadline, stranded = time.monotonic() + 15, {}
    while len(stranded) < 3 and time.monotonic() < deadline:  # the spin follows the wallet's credits
        stranded = {
            e.data.player_id: e.data.reason
            for e in platform.read_all("spin.journal")
            if isinstance(e.data, RemainderStranded)
        }
    assert stranded == {"rj-half": "stake-change", "rj-excl": "self-exclusion", "rj-close": "closure"}
    refused = client.spin("rj-close", "rising-joker", 10, "EUR", token_for("rj-close"))
    assert isinstance(refused, Rejected) and refused.code == "ACCOUNT_CLOSED"


def test_every_request_got_exactly_one_distinct_answer(platform, client):
    answers: dict[uuid.UUID, set[uuid.UUID]] = {}
    for event in platform.read_all("spin.events"):
        data = event.data
        if isinstance(data, SpinRejected) and data.code == "DUPLICATE_CONFLICT":
            continue  # answers the conflicting record, not the request id's own request
        if isinstance(data, (SpinSettled, SpinRejected)):
            answers.setdefault(data.request_id, set()).add(event.id)
    assert answers and all(len(ids) == 1 for ids in answers.values()), answers
