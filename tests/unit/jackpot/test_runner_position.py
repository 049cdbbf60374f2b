"""The loop decides a partition's records from its next offset on: records fetched before the partition was sought to
its recorded position (still in hand from an earlier poll) or fetched again after the seek are not decided twice."""
from types import SimpleNamespace

from services.jackpot.adapters.runner import JackpotConfig, JackpotService


def service() -> JackpotService:
    return JackpotService(JackpotConfig(bootstrap="unused:9092", commands_topic="jackpot.commands", events_topic="jackpot.events",
                                        meters_topic="jackpot.meters", dlq_topic="jackpot.commands.dlq", group_id="g"))


def records(*offsets: int) -> list:
    return [SimpleNamespace(offset=offset) for offset in offsets]


def test_records_before_the_resume_position_are_not_decided_again():
    jackpot = service()
    jackpot._next_offset[2] = 10
    assert jackpot._undecided(2, records(4, 5, 6)) == []
    assert [r.offset for r in jackpot._undecided(2, records(8, 9, 10, 11))] == [10, 11]
    assert [r.offset for r in jackpot._undecided(2, records(12, 14))] == [12, 14], "gaps (transaction markers) are kept"


def test_a_partition_without_a_recorded_position_decides_what_it_is_given():
    assert [r.offset for r in service()._undecided(0, records(0, 1))] == [0, 1]
