"""The issue's table of poison records (P1–P3, P6, P8, P9), and records off their key's partition, through the broker.

Scenario: wallet, jackpot and spin run on fresh topics; players deposit and spin. Each case writes its records the
way a tester with a producer would and then checks that the record is refused where it lands (a dead letter with
its code, or an alert), that nothing of it is applied, and that the services keep answering — after a restart too,
for the records that a restore meets. P4, P5 and P7 are in test_untrusted_and_malformed_records.py, the plain P9
case in test_wrong_partition.py.
"""

from __future__ import annotations

from collections.abc import Callable
import os
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone

import pytest

from reelstream.client import Rejected, Settled
from shared import records, signing
from shared.dead_letters import origin_of
from shared.events import decode, encode, envelope
from shared.events.jackpot import ContributionsApplied, Contribute
from shared.events.spin import SpinRejected
from shared.events.wallet import CASHIER, Deposit, Deposited, Posting, SettleWager, WagerDebited, player_account
from shared.kafka import producer
from shared.money import MICRO_PER_MINOR
from shared.partitioning import partition_for
from shared.pools import load_pools
from shared.topics import PLAYER_PARTITIONS

from conftest import client_for, token_for
from test_wrong_partition import answers_by_partition
from tests.support.spin import request_bytes

LOCKING_SEED = "0000000000000000000000000000000000000000000000000000000000000008"  # a bonus symbol stays on the ring
DIAMOND = load_pools().network("diamond-mystery")
WAIT_S = 60


@pytest.fixture(scope="module")
def platform(platform_factory):
    return platform_factory(REELSTREAM_TEST_SEEDS=f"tbl-locker={LOCKING_SEED}")


def _away(player: str) -> tuple[int, int]:
    home = partition_for(player.encode(), PLAYER_PARTITIONS)
    return home, (home + 1) % PLAYER_PARTITIONS


def _write(platform, topic: str, key: bytes | None, value: bytes, writer: str, partition: int | None = None) -> None:
    """As `writer`: signed with its key when it is one of the platform's writers (the test stands in for it), any
    other writer id as it is, unsigned."""
    if writer in signing.WRITERS:
        headers = records.signed_headers(writer, topic, key, value)
    else:
        headers = records.headers_for(writer)
    sender = producer(platform.bootstrap, client_id=f"table-{writer}")
    try:
        sender.send(platform.topic(topic), key=key, value=value, headers=headers, partition=partition).get(timeout=30)
    finally:
        sender.close(10)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _letters(platform, topic: str, until: Callable[[list], bool] = bool, deadline_s: float = WAIT_S) -> list:
    """(origin, record) of the topic's dead letters, read again until `until(them)` holds (by default: at least one
    is there) or the deadline passes. A service dead-letters a batch's records in that batch's transaction, and
    records written one by one may fall in several batches: a test that wants several letters waits for all of them."""
    deadline = time.monotonic() + deadline_s
    while True:
        found = [(origin_of(list(r.headers)), r) for r in platform.read_raw(f"{topic}.dlq")]
        if until(found) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def _until(read: Callable[[], list], deadline_s: float = WAIT_S) -> list:
    """`read()` again until it finds something or the deadline passes (what it found last)."""
    deadline = time.monotonic() + deadline_s
    while not (found := read()) and time.monotonic() < deadline:
        time.sleep(0.5)
    return found


def _wait_for_log(platform, service: str, text: str) -> str:
    deadline = time.monotonic() + WAIT_S
    while text not in (log := platform.services[service].own_log_text()) and time.monotonic() < deadline:
        time.sleep(0.2)
    return log


def _contribution(stake_minor: int, breakage_micro: int = 0) -> Contribute:
    """By the pools' rates (a negative stake's contribution negated, as a tester would compute it)."""
    rated_micro = DIAMOND.wager_contribution_micro(abs(stake_minor))
    return Contribute(
        network_id=DIAMOND.network_id,
        contribution_id=uuid.uuid4(),
        game="rising-joker",
        currency="EUR",
        stake_minor=stake_minor,
        contribution_micro=rated_micro if stake_minor >= 0 else -rated_micro,
        breakage_micro=breakage_micro,
        player_id="tbl-pool",
    )


def test_p1_p2_p3_contributions_out_of_bounds_are_dead_lettered_and_never_reach_a_pool(platform):
    """P1: five valid-by-schema contributions of stake 2**49; P2: a negative stake; P3: a negative breakage — as if
    the spin service had sent them (its writer id)."""
    huge = [_contribution(2**49) for _ in range(5)]
    negative_stake = _contribution(-100)
    negative_breakage = _contribution(100, breakage_micro=-1)
    now = datetime.now(timezone.utc)
    for data in (*huge, negative_stake, negative_breakage):
        message = envelope(data, source="table-test", time=now)
        _write(platform, "jackpot.commands", message.key, encode(message), "spin")
    with client_for(platform) as client:
        client.deposit("tbl-pool", 10_000, "EUR")
        assert isinstance(client.spin("tbl-pool", "rising-joker", 100, "EUR", token_for("tbl-pool")), Settled)
    expected = {(c.contribution_id, "INVALID_STAKE") for c in (*huge, negative_stake)}
    expected.add((negative_breakage.contribution_id, "INVALID_BREAKAGE"))

    def refused(letters: list) -> set:
        return {(decode(r.value).data.contribution_id, o.code) for o, r in letters}

    assert expected <= refused(_letters(platform, "jackpot.commands", until=lambda found: expected <= refused(found)))
    applied = _until(  # the spin's own contribution, applied after the spin's answer
        lambda: [e.data for e in platform.read_all("jackpot.events") if isinstance(e.data, ContributionsApplied)]
    )
    ids = {c.contribution_id for event in applied for c in event.contributions}
    assert ids and not ids & {c.contribution_id for c in (*huge, negative_stake, negative_breakage)}


def test_p6_an_undecodable_record_on_jackpot_events_is_quarantined_by_the_restore_and_the_pools_stay_readable(
    platform,
):
    """P6: any undecodable record on jackpot.events (here with the jackpot's own writer id): the next restart
    restores (ready again), the spin goes on, and `reelstream jackpot pools` reads the topic."""
    _write(platform, "jackpot.events", DIAMOND.network_id.encode(), b"\xff\xfe not json", "jackpot")
    platform.services["jackpot"].stop()
    jackpot = platform.start("jackpot")
    jackpot.wait_ready(120)
    assert "quarantined, not folded" in _wait_for_log(platform, "jackpot", "quarantined, not folded")
    with client_for(platform) as client:
        client.deposit("tbl-p6", 10_000, "EUR")
        assert isinstance(client.spin("tbl-p6", "rising-joker", 100, "EUR", token_for("tbl-p6"), timeout_s=60), Settled)
    pools = subprocess.run(
        [sys.executable, "-m", "reelstream.cli", "jackpot", "pools", "--format", "json"],
        env={**os.environ, **platform.env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert pools.returncode == 0, pools.stderr[-2000:]
    assert DIAMOND.network_id in pools.stdout


def test_p8_a_settlement_for_a_spin_in_flight_from_anyone_but_the_spin_service_is_quarantined(platform):
    """P8: a SettleWager with a huge house win for a request whose debit is still queued (the wallet is down)."""
    player = "tbl-p8"
    with client_for(platform) as client:
        client.deposit(player, 10_000, "EUR")
        platform.services["wallet"].stop()
        request_id, request = request_bytes(player, stake=100, token=token_for(player), time_ms=_now_ms())
        _write(platform, "spin.requests", player.encode(), request, "game-client")
        debit = _wait_for_command(platform, request_id)
        settle = SettleWager(
            transaction_id=uuid.uuid4(),
            player_id=player,
            wager_id=request_id,
            currency="EUR",
            house_win_minor=10**9,
            jackpot_win_minor=0,
            breakage_micro=0,
            contribution_micro=0,
            network_id=DIAMOND.network_id,
        )
        message = envelope(settle, source="table-test", time=datetime.now(timezone.utc))
        _write(platform, "wallet.commands", message.key, encode(message), "attacker")
        platform.start("wallet").wait_ready(120)
        answer = client.spin(player, "rising-joker", 100, "EUR", token_for(player), request_id=request_id, timeout_s=60)
        assert debit is not None and isinstance(answer, Settled)
        assert answer.balance_after_minor == 10_000 - 100 + answer.win_minor
        assert answer.data.house_win_minor < 10**9
    letters = [
        o
        for o, _ in _letters(
            platform, "wallet.commands", until=lambda found: any(o.code == records.UNTRUSTED_WRITER for o, _ in found)
        )
        if o.code == records.UNTRUSTED_WRITER
    ]
    assert letters, "the forged settlement is the wallet's dead letter"
    assert platform.services["spin"].process.poll() is None


def _wait_for_command(platform, request_id: uuid.UUID):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for event in platform.read_all("wallet.internal", settle_s=0.3):
            if getattr(event.data, "transaction_id", None) == request_id:
                return event
        time.sleep(0.3)
    return None


def test_p9_a_locked_stjernestoev_stake_change_on_another_partition_is_refused_there_and_locked_at_home(platform):
    """P9 with the Stjernestøv bonus ring: a stake change the player's own book refuses STAKE_LOCKED, sent to another
    partition, is answered WRONG_PARTITION on the player's partition — no book takes it, no stake is debited."""
    player = "tbl-locker"
    home, away = _away(player)
    with client_for(platform) as client:
        client.deposit(player, 100_000, "DKK")
        first = client.spin(player, "stjernestoev", 10_000, "DKK", token_for(player))
        assert isinstance(first, Settled)
        request_id, value = request_bytes(player, "stjernestoev", 50, "DKK", token_for(player), time_ms=_now_ms())
        _write(platform, "spin.requests", player.encode(), value, "game-client", partition=away)
        found = answers_by_partition(platform, request_id)
        assert list(found) == [home]
        [(_, rejected)] = found[home]
        assert isinstance(rejected.data, SpinRejected) and rejected.data.code == "WRONG_PARTITION"
        locked = client.spin(player, "stjernestoev", 50, "DKK", token_for(player), request_id=request_id)
        assert isinstance(locked, Rejected) and locked.code == "STAKE_LOCKED"
    debits = [e.data for e in platform.read_all("wallet.events") if isinstance(e.data, WagerDebited)]
    assert [d for d in debits if d.transaction_id == request_id] == []


def test_a_wallet_command_off_its_players_partition_is_dead_lettered_wrong_partition_and_not_applied(platform):
    player = "tbl-misplaced"
    home, away = _away(player)
    transaction_id = uuid.uuid4()
    deposit = envelope(
        Deposit(transaction_id=transaction_id, player_id=player, amount_minor=500, currency="EUR"),
        source="table-cashier",
        time=datetime.now(timezone.utc),
    )
    _write(platform, "wallet.commands", player.encode(), encode(deposit), "cashier", partition=away)
    letters = _until(
        lambda: [
            o
            for o, _ in _letters(platform, "wallet.commands")
            if o.code == records.WRONG_PARTITION and o.partition == away
        ]
    )
    assert letters and f"hashes to partition {home}" in letters[0].reason
    assert letters[0].consumer == "wallet"
    deposits = [e.data for e in platform.read_all("wallet.events") if isinstance(e.data, Deposited)]
    assert [d for d in deposits if d.transaction_id == transaction_id] == []
    with client_for(platform) as client:  # the same command on the player's own partition is applied
        client.deposit(player, 500, "EUR", transaction_id=transaction_id)


def test_a_wallet_event_off_its_partition_or_for_a_request_no_book_knows_raises_a_spin_alert(platform):
    """A debit the wallet's principal wrote for a request no spin book holds: on another partition it is
    quarantined, on the player's own the spin service alerts (the stake would be gone with no spin to settle it)."""
    player = "tbl-stray"
    home, away = _away(player)
    now = datetime.now(timezone.utc)
    for partition in (away, home):
        stray = uuid.uuid4()
        debited = WagerDebited(
            transaction_id=stray,
            player_id=player,
            recorded_at=now,
            currency="EUR",
            amount_minor=100,
            balance_after_minor=0,
            postings=(
                Posting(account=player_account(player), amount_micro=-100 * MICRO_PER_MINOR),
                Posting(account=CASHIER, amount_micro=100 * MICRO_PER_MINOR),
            ),
            game="rising-joker",
        )
        message = envelope(debited, source="reelstream/wallet", time=now)
        _write(platform, "wallet.events", player.encode(), encode(message), "wallet", partition=partition)
        expected = f"request {stray}, which no spin book knows" if partition == home else "hashes to partition"
        assert expected in _wait_for_log(platform, "spin", expected)
    with client_for(platform) as client:
        client.deposit(player, 1_000, "EUR")
        assert isinstance(client.spin(player, "rising-joker", 100, "EUR", token_for(player)), Settled)
