"""The loop's packing of a transaction's outputs: a run of consecutive outputs that share topic, partition, key, type
and headers, of a type the service declares packable, becomes one batch-envelope record (shared/events/batch.py),
items in order, bytes untouched: the loop never reads, sums or interprets them (docs/architecture.md)."""

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


def _packable(out: Output, packable: frozenset[str]) -> bool:
    return not out.dead_letter and not out.tag and out.copy is None and out.message_type in packable


def _joins(run: list[Output], run_bytes: int, out: Output) -> bool:
    first = run[0]
    return (
        len(run) < MAX_ITEMS
        and packed_bytes(run_bytes + len(out.value), len(run) + 1) <= MAX_PACKED_BYTES
        and out.message_type == first.message_type
        and out.topic == first.topic
        and out.partition == first.partition
        and out.key == first.key
        and out.headers == first.headers
    )


def _record(run: list[Output]) -> Output:
    if len(run) == 1:
        return run[0]
    first = run[0]
    headers = [(name, BATCH_CONTENT_TYPE.encode() if name == CONTENT_TYPE else value) for name, value in first.headers]
    return replace(first, value=pack([out.value for out in run]), headers=headers)
