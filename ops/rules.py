"""Pure rules of the ops tools: which replay targets are refused, which ranges are read, when a group may be reset."""

from __future__ import annotations

from dataclasses import dataclass

from shared.records import INTERNAL_COMMANDS, peek_type
from shared.topics import ALL_TOPICS, declared_name

REPLAY_HEADER = "reelstream-replay-of"
IDLE_GROUP_STATES = ("Empty", "Dead")


def refusal_of_replay_target(target: str, prefix: str) -> str | None:
    """Why `target` may not receive a replay, or None. Replays never write into live topics (DESIGN.md): any contract
    or dead-letter topic name is refused, whether bare, under this deployment's prefix or under any other prefix."""
    for spec in ALL_TOPICS:
        if target in (spec.name, prefix + spec.name) or target.endswith("." + spec.name):
            return f"{target!r} is a live topic of the contract ({spec.name}); replay into a new topic"
    if not target.strip():
        return "the target topic name is empty"
    return None


def refusal_of_redrive(dlq_topic: str) -> str | None:
    """Why a dead-letter topic may not be re-driven, or None. A re-drive re-sends the original bytes only onto a
    client-facing topic: never onto the money path's internal topics, whose records only their services write."""
    source = dlq_topic.removesuffix(".dlq")
    for spec in ALL_TOPICS:
        if spec.name == source and not spec.public:
            return (
                f"{source} is an internal topic of the money path: its dead letters are evidence, and the service "
                "that wrote the record re-sends its cause; ops never writes there"
            )
    return None


def refusal_of_redrive_letter(source: str, value: bytes | None) -> str | None:
    """Why one dead letter may not go back onto `source` (the physical topic its origin header names), or None. Never
    onto a topic ops may not write (the internal-command topics: only the spin service writes them, whatever a
    letter's headers name), and never an internal command (debit, place, settle, refund, contribute, claim) onto
    any topic: the spin service re-sends its cause, and the old public topics take those from the spin alone."""
    try:
        target = declared_name(source)
    except ValueError:
        return f"{source} is no declared topic"
    if target.endswith(".dlq") or "ops" not in next(spec for spec in ALL_TOPICS if spec.name == target).writers:
        return f"{source} is written by its service alone: ops never writes there"
    type_ = peek_type(value)
    if type_ in INTERNAL_COMMANDS:
        return f"{type_} is an internal command of the money path: only the spin service sends it"
    return None


@dataclass(frozen=True)
class PartitionRange:
    partition: int
    start: int  # first offset to read
    end: int  # one past the last offset to read

    @property
    def size(self) -> int:
        return max(0, self.end - self.start)


def clamp(partition: int, wanted_start: int | None, wanted_end: int | None, first: int, end: int) -> PartitionRange:
    """A requested [start, end) clamped to what the log holds; None means the log's own bound."""
    start = first if wanted_start is None else min(max(wanted_start, first), end)
    stop = end if wanted_end is None else min(max(wanted_end, start), end)
    return PartitionRange(partition, start, stop)


def refusal_of_group_reset(state: str, members: int) -> str | None:
    """A consumer group is reset only while nobody consumes with it (else its members would overwrite the reset)."""
    if members > 0 or state not in IDLE_GROUP_STATES:
        return f"the group is active (state {state}, {members} members): stop its consumers first"
    return None
