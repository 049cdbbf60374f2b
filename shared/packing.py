"""A transaction's outputs packed into batch-envelope records (shared/events/batch.py), items in order, never read,
summed or interpreted: the loop's `packed` (consecutive runs of one topic, partition, key, type and headers) and the
emit path's `gathered` (one topic, partition, key and type, wherever they stand, until another output for the key)."""

from __future__ import annotations

from dataclasses import replace

from shared.events.batch import BATCH_CONTENT_TYPE, MAX_ITEMS, MAX_PACKED_BYTES, pack, packed_bytes
from shared.headers import CONTENT_TYPE
from shared.input_position import Output


def packed(outputs: list[Output], packable: frozenset[str]) -> list[Output]:
    """The outputs with each run of packable ones (at most MAX_ITEMS a record, MAX_PACKED_BYTES) as one record; a run
    of one stays the message itself. Runs end where an output of any other topic, key, type or headers comes."""
    if not packable:
        return outputs
    done: list[Output] = []
    run: list[Output] = []
    run_bytes = 0
    for out in outputs:
        fits = _packable(out, packable)
        if run and not (fits and _joins(run, run_bytes, out)):
            done.append(_record(run))
            run, run_bytes = [], 0
        if fits:
            run.append(out)
            run_bytes += len(out.value)
        else:
            done.append(out)
    if run:
        done.append(_record(run))
    return done


def gathered(outputs: list[Output], types: frozenset[str]) -> list[Output]:
    """The outputs with those of `types` that share topic, partition and key as one record each, at the place of its
    first item (at most MAX_ITEMS a record, MAX_PACKED_BYTES), carrying its first item's headers (the trace of the
    first decision). Any other output of that topic, partition and key ends the group, so a reader of the key sees
    every record in the order it was decided; outputs of other keys may be passed, as a reader orders only per key."""
    if not types or sum(out.message_type in types for out in outputs) < 2:
        return outputs  # the usual batch of a service that packs: nothing to gather (a group of one is its item)
    done: list[Output | list[Output]] = []
    groups: dict[tuple, tuple[list[Output], int]] = {}  # (topic, partition, key) -> its open group and its bytes
    for out in outputs:
        place = (out.topic, out.partition, out.key)
        if out.dead_letter or out.message_type not in types:
            groups.pop(place, None)
            done.append(out)
            continue
        group, group_bytes = groups.get(place, (None, 0))
        if group is None or not _joins(group, group_bytes, out, same_headers=False):
            group, group_bytes = [], 0
            done.append(group)
        group.append(out)
        groups[place] = (group, group_bytes + len(out.value))
    return [_record(item) if isinstance(item, list) else item for item in done]


def _packable(out: Output, packable: frozenset[str]) -> bool:
    return not out.dead_letter and not out.tag and out.copy is None and out.message_type in packable


def _joins(run: list[Output], run_bytes: int, out: Output, same_headers: bool = True) -> bool:
    first = run[0]
    return (
        len(run) < MAX_ITEMS
        and packed_bytes(run_bytes + len(out.value), len(run) + 1) <= MAX_PACKED_BYTES
        and out.message_type == first.message_type
        and out.topic == first.topic
        and out.partition == first.partition
        and out.key == first.key
        and (out.headers == first.headers or not same_headers)
    )


def _record(run: list[Output]) -> Output:
    if len(run) == 1:
        return run[0]
    first = run[0]
    headers = [(name, BATCH_CONTENT_TYPE.encode() if name == CONTENT_TYPE else value) for name, value in first.headers]
    return replace(first, value=pack([out.value for out in run]), headers=headers)
