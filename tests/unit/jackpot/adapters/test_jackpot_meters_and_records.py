"""Adapter helpers without Kafka: which meters are due, and how records become core inputs or dead letters."""

from types import SimpleNamespace

from shared import records
from shared.dead_letters import origin_of
from shared.events import encode, envelope, broker_time
from shared.money import MICRO_PER_MINOR

from tests.support.jackpot import Network, contribute
from services.jackpot.adapters.meters import MeterBoard
from tests.support.reads import jackpot_dead_letter as dead_letter_record
from tests.support.reads import to_incoming


def test_a_meter_shows_the_level_rounded_down_and_is_due_again_only_when_a_whole_unit_moved():
    network = Network()
    network.send(contribute(stake_minor=10))
    board = MeterBoard()
    first = board.due([network.state])
    board.published(first)
    green = next(m.data for m in first if m.data.pool_id == "dm-green")
    assert green.level_minor == network.level_micro("dm-green") // MICRO_PER_MINOR
    network.send(contribute(stake_minor=10))  # 0.15 cent more: no whole cent yet on Green
    assert "dm-green" not in {m.data.pool_id for m in board.due([network.state])}
    network.send(*[contribute(stake_minor=2000) for _ in range(1)])  # 3 cents more
    assert "dm-green" in {m.data.pool_id for m in board.due([network.state])}


def _record(value, key=b"diamond-mystery", writer="spin"):
    return SimpleNamespace(
        value=value,
        key=key,
        timestamp=1_800_000_000_000,
        topic="jackpot.commands",
        partition=0,
        offset=7,
        headers=records.headers_for(writer),
    )


def test_a_record_that_is_not_a_command_is_a_dead_letter_with_its_reason_and_origin():
    code, reason = to_incoming(_record(b"{broken"))
    assert code == "UNDECODABLE"
    letter = dead_letter_record(_record(b"{broken"), code, reason)
    assert letter.value == b"{broken"
    origin = origin_of(letter.headers)
    assert (origin.topic, origin.partition, origin.offset) == ("jackpot.commands", 0, 7)
    assert (origin.code, origin.consumer) == ("UNDECODABLE", "jackpot")


def test_a_contribution_the_spin_service_did_not_send_is_quarantined():
    message = envelope(contribute(), source="test", time=broker_time(1_800_000_000_000))
    code, reason = to_incoming(_record(encode(message), writer="game-client"))
    assert code == "UNTRUSTED_WRITER"
    assert "'spin'" in reason


def test_a_command_under_another_networks_key_is_refused():
    message = envelope(contribute(), source="test", time=broker_time(1_800_000_000_000))
    assert to_incoming(_record(encode(message), key=b"stjernestoev"))[0] == "WRONG_KEY"
    assert to_incoming(_record(encode(message))).payload == message
