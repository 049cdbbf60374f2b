"""The wallet service on the real broker: commands in, facts out, bad input answered; and after crashes at the
dangerous points (decided but not produced; sent inside the transaction but not committed; produced and acknowledged
but the input offset not committed) the restarted service, its state rebuilt from a snapshot plus the wallet.events
tail, has applied every command exactly once and its balances equal a fresh fold of wallet.events."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from shared.crash import CRASH_EXIT_CODE
from shared.events import decode, derived_id
from shared.events.wallet import DebitWager, Deposit, RefundWager, SettleWager
from shared.money import MICRO_PER_MINOR
from shared.topics import WALLET_EVENTS

from services.wallet.adapters.runner import WalletService
from test_restore_equals_live import _wallet_config

from wallet_harness import (
    expected_balance,
    facts_by_transaction,
    fold_postings,
    read_until,
    send,
    start,
    wager_commands,
)

pytestmark = pytest.mark.integration
WAIT_S = 90
LATE_PLAYER = "it-late-player"
LAG = timedelta(hours=2)


def test_commands_through_the_running_service_are_answered_once_each_on_their_partition_and_garbage_is_dead_lettered(
    kafka_bootstrap, prefix, tmp_path
):
    service = start(kafka_bootstrap, prefix, tmp_path / "data", tmp_path / "logs")
    try:
        commands = wager_commands(players=3, wagers=4)
        send(
            kafka_bootstrap,
            prefix,
            commands + commands[:5],
            raw=[
                (b"it-player-0", b"{not json"),
                (
                    b"it-player-1",
                    b'{"type":"reelstream.wallet.deposit.v1","data":{"player_id":"it-player-1","amount_minor":"5"}}',
                ),
            ],
        )
        wanted = {str(c.transaction_id) for c in commands}
        events = read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(commands) + 6, 60)
        dead = read_until(kafka_bootstrap, prefix + "wallet.commands.dlq", lambda rs: len(rs) >= 1, 30, partitions=1)
        sent = read_until(kafka_bootstrap, prefix + "wallet.commands", lambda rs: len(rs) >= len(commands) + 7, 30)
    finally:
        service.stop()
    partition_of = {record.key: record.partition for record in sent}
    assert all(record.partition == partition_of[record.key] for record in events), "co-partitioned by player id"
    facts = facts_by_transaction(events)
    assert wanted <= set(facts)
    assert all(len(ids) == 1 for tx, ids in facts.items() if tx in wanted)
    codes = [decode(r.value).data.code for r in events if decode(r.value).type.endswith("command-rejected.v1")]
    assert codes == ["INVALID_REQUEST"]
    assert [r.value for r in dead] == [b"{not json"]
    assert dict(dead[0].headers)["reelstream-dlq-field"] == b"$"
    balances = fold_postings(events)
    for p in range(3):
        assert balances[("EUR", f"player:it-player-{p}")] == expected_balance(p, 4) * MICRO_PER_MINOR


def test_after_crashes_at_the_dangerous_points_every_command_is_applied_exactly_once(kafka_bootstrap, prefix, tmp_path):
    # Scenario: 8 players × (deposit + 12 wagers, each debited and settled) = 200 commands; batches of 25 records, a
    # snapshot every 20 events. A clean run applies the 8 deposits and stops, which snapshots its partitions. Then the
    # 192 wager commands are queued, and the service dies right after deciding a batch (nothing produced), then in the
    # middle of a transaction (sent, not committed), then after its events were acknowledged by the broker but before
    # the input offset was committed; the last run completes the work from the snapshots + the tails. (Whether a
    # crashed run has written a snapshot of its own depends on which task reaches its crash hook first.)
    players, wagers = 8, 12
    commands = wager_commands(players, wagers)
    deposits = [command for command in commands if isinstance(command, Deposit)]
    datadir, logs = tmp_path / "data", tmp_path / "logs"
    tuning = {"REELSTREAM_WALLET_BATCH_MAX": "25", "REELSTREAM_WALLET_SNAPSHOT_RECORDS": "20"}
    send(kafka_bootstrap, prefix, deposits)
    service = start(kafka_bootstrap, prefix, datadir, logs, **tuning)
    try:
        assert len(
            read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(deposits), 60)
        ) == len(deposits)
    finally:
        service.stop()
    send(kafka_bootstrap, prefix, [command for command in commands if not isinstance(command, Deposit)])
    crash_points = ("wallet.before_produce:60", "wallet.mid_transaction:3", "wallet.after_produce:70")
    for crash_at in crash_points:
        service = start(kafka_bootstrap, prefix, datadir, logs, crash_at=crash_at, **tuning)
        assert service.wait_exit(90) == CRASH_EXIT_CODE
    service = start(kafka_bootstrap, prefix, datadir, logs, **tuning)
    try:
        wanted = {str(c.transaction_id) for c in commands}
        events = read_until(
            kafka_bootstrap, prefix + "wallet.events", lambda rs: wanted <= set(facts_by_transaction(rs)), 90
        )
    finally:
        service.stop()
    # Each restart resumed at the position its last committed transaction recorded in its events: no committed
    # command was decided again, so no fact was re-emitted (with the group's offset, committed only every few seconds,
    # the restarts would have re-read from the start and re-emitted the facts of earlier runs).
    everything = read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: False, 3)
    assert len(everything) == len(wanted), f"{len(everything) - len(wanted)} facts re-emitted after restarts"
    log = service.log_text()
    for crash_at in crash_points:
        assert log.count(f"crash hook {crash_at.split(':')[0]} fired") == 1
    restored_from_snapshots = [int(n) for n in re.findall(r"restored \d+ partitions \((\d+) from a snapshot", log)]
    assert len(restored_from_snapshots) == 5 and restored_from_snapshots[-1] >= 1, "the last restart used snapshots"
    facts = facts_by_transaction(events)
    assert set(facts) == wanted
    assert all(len(event_ids) == 1 for event_ids in facts.values()), "a command produced two different facts"
    assert not any(decode(r.value).type.endswith("command-rejected.v1") for r in events)
    balances = fold_postings(events)
    for p in range(players):
        assert balances[("EUR", f"player:it-player-{p}")] == expected_balance(p, wagers) * MICRO_PER_MINOR
    jackpot = balances[("EUR", "jackpot:net-it")]
    assert jackpot == players * sum(100_000 + w for w in range(wagers))
    assert sum(balances.values()) == 0


def test_partitions_moving_between_two_wallet_instances_apply_every_command_once(kafka_bootstrap, prefix, tmp_path):
    # Three waves of commands (different players each): the first to instance A alone; a second instance B joins
    # (the partitions are shared) and the second wave is sent; A stops (all partitions move to B) and the third wave is
    # sent. Each move restores the partition from wallet.events and resumes at the position its last transaction
    # recorded: every command decided once, no fact re-emitted, balances as expected.
    players, wagers = 12, 4
    commands = wager_commands(players, wagers)
    per_player = 1 + 2 * wagers
    waves = [commands[start * per_player : (start + 4) * per_player] for start in (0, 4, 8)]
    tuning = {"REELSTREAM_WALLET_BATCH_MAX": "10"}
    first = start(kafka_bootstrap, prefix, tmp_path / "a", tmp_path / "logs-a", **tuning)
    second = None
    try:
        send(kafka_bootstrap, prefix, waves[0])
        read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(waves[0]), 60)
        second = start(kafka_bootstrap, prefix, tmp_path / "b", tmp_path / "logs-b", **tuning)
        send(kafka_bootstrap, prefix, waves[1])
        read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: len(rs) >= len(waves[0]) + len(waves[1]), 60)
        assert first.stop() == 0
        send(kafka_bootstrap, prefix, waves[2])
        wanted = {str(c.transaction_id) for c in commands}
        read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: wanted <= set(facts_by_transaction(rs)), 90)
    finally:
        first.stop()
        if second is not None:
            second.stop()
    assert re.search(r"restored \d+ partitions", second.log_text()), "B took partitions"
    everything = read_until(kafka_bootstrap, prefix + "wallet.events", lambda rs: False, 3)
    assert len(everything) == len(wanted), f"{len(everything) - len(wanted)} facts re-emitted after the moves"
    facts = facts_by_transaction(everything)
    assert set(facts) == wanted and all(len(ids) == 1 for ids in facts.values())
    balances = fold_postings(everything)
    for p in range(players):
        assert balances[("EUR", f"player:it-player-{p}")] == expected_balance(p, wagers) * MICRO_PER_MINOR
    assert sum(balances.values()) == 0


def test_a_repeat_after_a_commit_and_after_a_restart_is_the_first_record_byte_for_byte(kafka_bootstrap, prefix):
    # Scenario: the wallet runs in this process and decides a deposit; once that transaction has committed, the same
    # deposit comes again and is answered with the first record read back at its offset; the wallet is then stopped,
    # a new instance restores the partition from wallet.events alone (the wallet.commands position too, so nothing
    # is decided twice), and a third copy of the deposit is answered with those bytes once more.
    config = _wallet_config(kafka_bootstrap, prefix)
    deposit = Deposit(transaction_id=uuid.uuid4(), player_id="it-player-0", amount_minor=500, currency="EUR")

    async def one_instance(rounds: int) -> int:
        """A fresh instance (restored from wallet.events) deciding the deposit once per round, each round committed
        before the next is sent; how many records it read back."""
        service, stop = WalletService(config), asyncio.Event()
        task = asyncio.create_task(service.run(stop))
        deadline = asyncio.get_running_loop().time() + WAIT_S
        for _ in range(rounds):
            decided = service.stats.records
            send(kafka_bootstrap, prefix, [deposit])
            while service.stats.records <= decided or service.loop.busy():
                assert not task.done(), "the wallet stopped"
                assert asyncio.get_running_loop().time() < deadline, f"not decided in {WAIT_S} s"
                await asyncio.sleep(0.1)
        stop.set()
        await task
        return service.reader.read

    async def scenario() -> tuple[int, int]:
        return await one_instance(2), await one_instance(1)  # the second restored from wallet.events

    assert asyncio.run(scenario()) == (1, 1)
    events = read_until(kafka_bootstrap, prefix + WALLET_EVENTS, lambda found: len(found) >= 3, 30)
    assert len(events) == 3
    assert len({(event.key, event.value) for event in events}) == 1, "every answer is the first record's bytes"
    assert decode(events[0].value).data.amount_minor == 500


def _late_debit(n: int) -> DebitWager:
    wager_id = derived_id("it-late", n)
    return DebitWager(
        transaction_id=wager_id, player_id=LATE_PLAYER, amount_minor=10, currency="EUR", game="rising-joker"
    )


def test_a_lagging_spins_settlement_and_refund_close_their_wagers_and_its_old_debit_takes_nothing(
    kafka_bootstrap, prefix, tmp_path
):
    # Scenario: a player deposits 1,000 and two wagers of 10 are debited (commands dated now); then come a settlement
    # of the first (house win 4), a refund of the second and a third debit, all dated two hours back, as a spin that
    # lagged that long behind its input dates them. No saga is left open: both wagers close once each; the old debit
    # is refused by age and takes nothing.
    now = datetime.now(timezone.utc)
    deposit = Deposit(
        transaction_id=derived_id("it-late", "deposit"), player_id=LATE_PLAYER, amount_minor=1_000, currency="EUR"
    )
    settle = SettleWager(
        transaction_id=derived_id("it-late", "settle"),
        player_id=LATE_PLAYER,
        wager_id=_late_debit(1).transaction_id,
        currency="EUR",
        house_win_minor=4,
        jackpot_win_minor=0,
        breakage_micro=0,
        contribution_micro=0,
        network_id="net-it",
    )
    refund = RefundWager(
        transaction_id=derived_id("it-late", "refund"),
        player_id=LATE_PLAYER,
        wager_id=_late_debit(2).transaction_id,
        currency="EUR",
        reason="the wallet refused the settlement",
    )
    service = start(kafka_bootstrap, prefix, tmp_path / "data", tmp_path / "logs")
    try:
        send(kafka_bootstrap, prefix, [deposit, _late_debit(1), _late_debit(2)], sent_at=now)
        send(kafka_bootstrap, prefix, [settle, refund, _late_debit(3)], sent_at=now - LAG)
        events = read_until(kafka_bootstrap, prefix + "wallet.events", lambda found: len(found) >= 6, 60)
    finally:
        service.stop()
    facts = [decode(record.value).data for record in events]
    assert [type(fact).__name__ for fact in facts] == [
        "Deposited",
        "WagerDebited",
        "WagerDebited",
        "WagerSettled",
        "WagerRefunded",
        "CommandRejected",
    ]
    assert facts[-1].code == "REQUEST_EXPIRED"
    assert fold_postings(events)[("EUR", f"player:{LATE_PLAYER}")] == (1_000 - 10 + 4) * MICRO_PER_MINOR
