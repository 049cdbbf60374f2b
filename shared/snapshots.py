"""Snapshots of a partition's state on `<service>.snapshots`: chunks and a manifest in one transaction, verified on
read, so any instance restores from the newest valid one plus the events' tail (docs/snapshots.md)."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
import zlib
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import orjson

from shared import forked, observability, records, signing
from shared.crash import crash_point

log = logging.getLogger("reelstream.snapshots")
MANIFEST_VERSION = 1
CHUNK_BYTES = 256 * 1024  # under the loop's producer batch (producer_batch_bytes) and the topic's record limit
KEEP = 2  # valid generations a read keeps (newest first): the fallback for an unusable newest one
# A restore reads a snapshots partition from its end: first the last TAIL_RECORDS offsets, a window widened ×4 until it
# holds KEEP valid snapshots or starts at the log start. So its cost is the newest snapshots, however many older ones
# the log cleaner has not compacted away yet (the active segment keeps every one written in `segment.ms`).
TAIL_RECORDS = 32
QUARANTINED_KEPT_MAX = 1000  # the newest quarantined offsets a manifest lists (the count is kept in full)
SNAPSHOT_ID_HEADER = "reelstream-snapshot-id"
CHUNK_HEADER = "reelstream-snapshot-chunk"


@dataclass(frozen=True)
class Image:
    """A service's encoding of one partition's state (its own format, with its version) and the events offsets that
    were quarantined (never folded) up to it. `state` may be the encoder of the state as it is when the image is taken
    (a callable: the loop runs it in a forked child), or the state's bytes in pieces, captured when the image was made
    (an iterator: the loop draws one piece per turn); either way the loop does not wait for the encoding (`take`)."""

    state: bytes | Callable[[], bytes] | Iterator[bytes]
    format_version: int
    quarantined: tuple[int, ...] = ()


@dataclass(frozen=True)
class Taken:
    """An image taken: its packed state on its way (`pack`'s bytes, from a forked child or a worker thread)."""

    packed: Future[bytes]
    format_version: int
    quarantined: tuple[int, ...] = ()


@dataclass(frozen=True)
class Held:
    """A taken image waiting for its bytes, with the positions of the committed batch it reflects (what its manifest
    names when a later transaction of the partition carries it)."""

    taken: Taken
    input_next: int | None
    events_next: int
    positions: dict[str, int] = field(default_factory=dict)
    inputs: dict[str, int] = field(default_factory=dict)  # as Cursor.inputs


def take(image: Image, fork: bool | None = None) -> Taken:
    """Start packing an image at once: a lazy one encoded and compressed in a forked child of the state as it is now
    (shared/forked.py; at once in the caller without fork), pieces drawn one per turn of the running event loop and
    compressed on a worker thread (`drawn`), bytes compressed on a worker thread."""
    if isinstance(image.state, Iterator):
        packed = drawn(image.state)
    elif callable(image.state):
        encoder = image.state
        packed = forked.start(lambda: pack(encoder()), fork)
    else:
        packed = forked.in_thread(pack, image.state)
    return Taken(packed, image.format_version, image.quarantined)


_GOLDEN = 0.6180339887498949  # partition × this, mod 1: phases spread evenly over the interval for any count


def staggered(partition: int, every_s: float, now: float) -> float:
    """When a restored partition's last snapshot counts as taken (monotonic seconds): partitions restored together
    then fall due spread over the interval, not all in one batch (six images due together took the cores from the
    spin's partitions: docs/spin.md, "the stalls named"); partition 0 is due a whole interval after `now`."""
    return now - every_s * ((partition * _GOLDEN) % 1.0)


_drawing: set[asyncio.Task[None]] = set()  # pieces being drawn (the loop keeps only weak references to tasks)


def drawn(pieces: Iterator[bytes]) -> Future[bytes]:
    """`pack` of the pieces joined: drawn one per turn of the running event loop (so a long image costs the loop a
    piece at a time, never the whole encoding at once, and no fork), then compressed on a worker thread (zlib releases
    the GIL); at once in the caller when no event loop runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return forked.start(lambda: pack(b"".join(pieces)), fork=False)
    future: Future[bytes] = Future()
    task = loop.create_task(_draw(pieces, future))
    _drawing.add(task)
    task.add_done_callback(_drawing.discard)
    return future


async def _draw(pieces: Iterator[bytes], future: Future[bytes]) -> None:
    try:
        parts = []
        for piece in pieces:
            parts.append(piece)
            await asyncio.sleep(0)  # the loop's other work goes first
        future.set_result(await asyncio.to_thread(lambda: pack(b"".join(parts))))  # the join too: MBs of copying
    except BaseException as error:  # noqa: BLE001 - seen where the bytes are awaited (Keeper.ready drops the image)
        future.set_exception(error)
        if not isinstance(error, Exception):
            raise


def pack(state: bytes) -> bytes:
    """A state's bytes compressed, framed by the length of the state (what the manifest names as `state_bytes`)."""
    return len(state).to_bytes(8, "big") + zlib.compress(state, 1)


@dataclass(frozen=True)
class Snapshot:
    """A verified snapshot read back: the state image and the positions it reflects."""

    snapshot_id: str
    partition: int
    slot: int
    format_version: int
    input_next: int | None  # next commands offset the state has decided (None: none recorded)
    output_next: int  # next events offset not reflected in the state: the tail starts here
    quarantined: tuple[int, ...]
    state: bytes
    offset: int  # the manifest's offset in the snapshots topic
    # Next offset of each topic (logical name) the state folds, on the snapshot's partition number, for a state that
    # folds more than one topic (the spin: its journal, answers and jackpot answers); empty: only `output_next`.
    positions: dict[str, int] = field(default_factory=dict)
    # Next offset of each input (logical name) the state has decided, for a loop whose records carry every input's
    # position (shared/input_position.py: with_inputs); empty: only `input_next` (or none recorded).
    inputs: dict[str, int] = field(default_factory=dict)


@dataclass
class Cursor:
    """Where a partition's snapshots stand in the loop: the events offset its state reflects, the slot the next
    snapshot goes to, and the input position of its last committed transaction."""

    events_next: int
    input_next: int | None = None
    slot: int = 0
    positions: dict[str, int] = field(default_factory=dict)  # as Snapshot.positions
    inputs: dict[str, int] = field(default_factory=dict)  # as Snapshot.inputs


Record = tuple[bytes, bytes, list[tuple[str, bytes]]]  # key, value, headers


def encode(
    writer: str,
    logical_topic: str,
    partition: int,
    slot: int,
    image: Image,
    input_next: int | None,
    output_next: int,
    positions: dict[str, int] | None = None,
    inputs: dict[str, int] | None = None,
) -> list[Record]:
    """The chunk records then the manifest record of one snapshot of bytes (to produce in this order, in one
    transaction), signed together once by `writer`'s key under `logical_topic` when the environment has one
    (shared/signing.py)."""
    taken = Taken(forked.done(pack(image.state)), image.format_version, image.quarantined)
    return encode_taken(writer, logical_topic, partition, slot, taken, input_next, output_next, positions, inputs)


def encode_taken(
    writer: str,
    logical_topic: str,
    partition: int,
    slot: int,
    image: Taken,
    input_next: int | None,
    output_next: int,
    positions: dict[str, int] | None = None,
    inputs: dict[str, int] | None = None,
) -> list[Record]:
    """`encode` of an image taken, once its packed bytes are in."""
    framed = image.packed.result()
    state_bytes, packed = int.from_bytes(framed[:8], "big"), framed[8:]
    chunks = [packed[at : at + CHUNK_BYTES] for at in range(0, len(packed), CHUNK_BYTES)] or [b""]
    snapshot_id = str(uuid.uuid4())
    out: list[Record] = []
    for index, chunk in enumerate(chunks):
        headers = records.headers_for(
            writer, [(SNAPSHOT_ID_HEADER, snapshot_id.encode()), (CHUNK_HEADER, b"%d" % index)]
        )
        out.append((f"{partition}/{slot}/{index}".encode(), chunk, headers))
    manifest = {
        "v": MANIFEST_VERSION,
        "id": snapshot_id,
        "partition": partition,
        "slot": slot,
        "format": image.format_version,
        "input_next": input_next,
        "output_next": output_next,
        "positions": dict(positions or {}),
        "inputs": dict(inputs or {}),
        "quarantined": list(image.quarantined[-QUARANTINED_KEPT_MAX:]),
        "quarantined_count": len(image.quarantined),
        "chunks": [hashlib.sha256(chunk).hexdigest() for chunk in chunks],
        "state_bytes": state_bytes,
    }
    headers = records.headers_for(writer, [(SNAPSHOT_ID_HEADER, snapshot_id.encode())])
    out.append((f"{partition}/{slot}/manifest".encode(), orjson.dumps(manifest), headers))
    items = [signing.Item(logical_topic, key, value, headers) for key, value, headers in out]
    return [(key, value, signed) for (key, value, _), signed in zip(out, signing.sign_items(writer, items))]


def _header(headers, name: str) -> str | None:
    for key, value in headers or ():
        if key == name and value is not None:
            return value.decode(errors="replace")
    return None


class IncompleteSnapshot(ValueError):
    """A manifest whose chunks were not all read before it."""


@dataclass
class Collector:
    """Reads a snapshots partition, or a window of it, in one pass (read_committed, oldest first) and keeps the newest
    `keep` valid snapshots; chunks wait for their manifest (the last record of their transaction). A window that
    starts above the log start (`edge`) may start inside a snapshot: its first manifest missing chunks is that edge,
    not a fault. `quiet`: refusals are kept, not logged (the caller logs those of the window it keeps)."""

    logical_topic: str
    partition: int
    keep: int = KEEP
    valid: list[Snapshot] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)  # (offset, why) of records or snapshots not used
    edge: bool = False
    quiet: bool = False
    records_read: int = 0
    _manifests: int = 0
    _chunks: dict[str, dict[int, bytes]] = field(default_factory=dict)

    def add(self, record: Any) -> None:
        self.records_read += 1
        problem = records.provenance_problem(self.logical_topic, record.headers, record.value, record.key)
        snapshot_id = _header(record.headers, SNAPSHOT_ID_HEADER)
        if problem is not None or snapshot_id is None:
            self._refuse(record.offset, problem or "no snapshot id")
            return
        index = _header(record.headers, CHUNK_HEADER)
        if index is not None:
            if not index.isdigit():
                self._refuse(record.offset, f"chunk index {index!r}")
                return
            self._chunks.setdefault(snapshot_id, {})[int(index)] = record.value or b""
            return
        chunks = self._chunks.pop(snapshot_id, {})
        self._manifests += 1
        try:
            snapshot = _assemble(record, snapshot_id, chunks, self.partition)
        except IncompleteSnapshot as error:
            if not (self.edge and self._manifests == 1):
                self._refuse(record.offset, f"unusable manifest: {error}")
            return
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, zlib.error) as error:
            self._refuse(record.offset, f"unusable manifest: {error}")
            return
        self.valid = sorted([*self.valid, snapshot], key=lambda s: (s.output_next, s.offset), reverse=True)[: self.keep]

    def _refuse(self, offset: int, why: str) -> None:
        self.refused.append((offset, why))
        if not self.quiet:
            self.alert([(offset, why)])

    def alert(self, refused: list[tuple[int, str]] | None = None) -> None:
        for offset, why in self.refused if refused is None else refused:
            log.error("alert: %s[%d]@%d snapshot record not used: %s", self.logical_topic, self.partition, offset, why)

    def newest_first(self) -> list[Snapshot]:
        return list(self.valid)


def _assemble(record: Any, snapshot_id: str, chunks: dict[int, bytes], partition: int) -> Snapshot:
    manifest = orjson.loads(record.value)
    if manifest["v"] != MANIFEST_VERSION:
        raise ValueError(f"manifest version {manifest['v']!r}")
    if manifest["id"] != snapshot_id or manifest["partition"] != partition:
        raise ValueError("manifest of another snapshot or partition")
    if manifest["slot"] not in (0, 1):
        raise ValueError(f"slot {manifest['slot']!r}")
    digests = manifest["chunks"]
    if sorted(chunks) != list(range(len(digests))):
        raise IncompleteSnapshot(f"chunks {sorted(chunks)} of {len(digests)}")
    for index, digest in enumerate(digests):
        if hashlib.sha256(chunks[index]).hexdigest() != digest:
            raise ValueError(f"chunk {index} does not match its digest")
    state = zlib.decompress(b"".join(chunks[index] for index in range(len(digests))))
    if len(state) != manifest["state_bytes"]:
        raise ValueError("state size does not match the manifest")
    input_next = manifest["input_next"]
    return Snapshot(
        snapshot_id,
        partition,
        int(manifest["slot"]),
        int(manifest["format"]),
        None if input_next is None else int(input_next),
        int(manifest["output_next"]),
        tuple(int(offset) for offset in manifest["quarantined"]),
        state,
        record.offset,
        {str(topic): int(offset) for topic, offset in manifest.get("positions", {}).items()},
        {str(topic): int(offset) for topic, offset in manifest.get("inputs", {}).items()},
    )


def next_slot(newest: Snapshot | None) -> int:
    """The slot the next snapshot goes to: the other one than the newest valid snapshot's, so that one survives."""
    return 0 if newest is None else 1 - newest.slot


async def topic_exists(bootstrap: str, topic: str, role: str) -> bool:
    from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, aio_consumer

    reader = aio_consumer(bootstrap=bootstrap, role=role, group_id=None, **AIOKAFKA_CONSUMER_SAFETY)
    await reader.start()
    try:
        return topic in await reader.topics()
    finally:
        await reader.stop()


async def read(bootstrap: str, topic: str, logical_topic: str, partition: int, role: str) -> Collector | None:
    """The newest `KEEP` valid snapshots of a partition, newest first in `Collector.valid`, read from the partition's
    end (TAIL_RECORDS); None when the topic does not exist."""
    from shared.partition_log import fold_partition

    if not await topic_exists(bootstrap, topic, role):
        log.warning("no snapshots topic %s: partition %d folds its events from the start", topic, partition)
        return None
    window = TAIL_RECORDS
    while True:
        collector = Collector(logical_topic, partition, quiet=True)

        def start(beginning: int, end: int, collector=collector, window=window) -> int:
            collector.edge = end - window > beginning
            return max(beginning, end - window)

        await fold_partition(bootstrap, topic, partition, collector.add, start, role=role)
        if not collector.edge or len(collector.valid) >= collector.keep:
            collector.alert()
            return collector
        window *= 4


@dataclass
class Restoration:
    """A partition restored: its state, the snapshot it started from (None: from the beginning), the events folded
    after it, every quarantined events offset (the snapshot's and the tail's), the input position, and the cursor of
    the partition's next snapshot (None: no snapshots topic)."""

    state: Any
    snapshot: Snapshot | None
    folded: int
    quarantined: tuple[int, ...]
    input_next: int | None
    events_end: int
    cursor: Cursor | None
    snapshots_refused: int = 0
    inputs: dict[str, int] = field(default_factory=dict)  # every input's position, as the last record carrying them
    positions: dict[str, int] = field(default_factory=dict)  # as Snapshot.positions, where each folded topic stands

    def commands_next(self, logical_commands: str) -> int | None:
        """The commands topic's next offset as recorded: with every input's (`inputs`), or alone (`input_next`, from
        records written before the inputs' positions travelled together); the further one."""
        found = [offset for offset in (self.input_next, self.inputs.get(logical_commands)) if offset is not None]
        return max(found) if found else None


@dataclass
class TailFold:
    """Folds the records of an events partition after a state's position into it, one by one (a restore's tail, a
    warm spare's steps): a record `fold` refuses is quarantined with an alert, never folded; the input position is
    the last one a folded record carries (shared/input_position.py)."""

    state: Any
    fold: Callable[[Any, Any], str | None]
    events_topic: str
    partition: int
    quarantined: list[int]
    input_next: int | None = None
    folded: int = 0
    inputs: dict[str, int] = field(default_factory=dict)

    @classmethod
    def after(
        cls, restored: Restoration, fold: Callable[[Any, Any], str | None], topic: str, partition: int
    ) -> TailFold:
        """Folding on from where a restoration stands (its state is folded into, not copied)."""
        quarantined, inputs = list(restored.quarantined), dict(restored.inputs)
        return cls(restored.state, fold, topic, partition, quarantined, restored.input_next, restored.folded, inputs)

    def __call__(self, record: Any) -> None:
        from shared.input_position import recorded_inputs, recorded_position

        problem = self.fold(self.state, record)
        if problem is not None:
            log.error(
                "alert: %s[%d]@%d quarantined, not folded: %s",
                self.events_topic,
                self.partition,
                record.offset,
                problem,
            )
            self.quarantined.append(record.offset)
            return
        self.folded += 1
        recorded = recorded_position(record.headers)
        if recorded is not None:
            self.input_next = recorded
        self.inputs.update(recorded_inputs(record.headers))

    def restoration(self, snapshot: Snapshot | None, end: int, cursor: Cursor | None, refused: int) -> Restoration:
        quarantined = tuple(self.quarantined)
        return Restoration(
            self.state, snapshot, self.folded, quarantined, self.input_next, end, cursor, refused, dict(self.inputs)
        )


Tail = Callable[[Restoration], Awaitable["Restoration | None"]]


def start_of(state: Any, snapshot: Snapshot | None, with_cursor: bool) -> Restoration:
    """Where a fold after `snapshot` (None: from the beginning) starts: the loaded state with the snapshot's quarantined
    offsets and positions, and (`with_cursor`: there is a snapshots topic) the slot the next snapshot goes to."""
    if snapshot is None:
        return Restoration(state, None, 0, (), None, 0, Cursor(0) if with_cursor else None)
    positions, inputs = dict(snapshot.positions), dict(snapshot.inputs)
    slot = next_slot(snapshot)
    cursor = Cursor(snapshot.output_next, snapshot.input_next, slot, positions, inputs) if with_cursor else None
    quarantined, input_next, end = snapshot.quarantined, snapshot.input_next, snapshot.output_next
    return Restoration(state, snapshot, 0, quarantined, input_next, end, cursor, 0, dict(inputs), dict(positions))


async def restore(
    bootstrap: str,
    *,
    role: str,
    partition: int,
    snapshots_topic: str | None,
    snapshots_logical: str,
    load: Callable[[Snapshot], Any],
    empty: Callable[[], Any],
    tail: Tail,
) -> Restoration:
    """Newest valid snapshot + the fold of what it does not reflect. `load` turns a snapshot into state (raising
    ValueError on one it cannot use: the next older one is tried), `tail(start)` folds the topics the state folds on
    from `start` (start_of) to their ends, or returns None when the snapshot is ahead of them (a topic recreated): it
    is not used."""
    collector = await read(bootstrap, snapshots_topic, snapshots_logical, partition, role) if snapshots_topic else None
    candidates: list[Snapshot | None] = [*(collector.newest_first() if collector else []), None]
    for snapshot in candidates:
        try:
            # Decoded on a worker thread: a large image decoded on the event loop outlasted the group session.
            state = empty() if snapshot is None else await asyncio.to_thread(load, snapshot)
        except ValueError as error:
            observability.alert(log, "snapshot-unusable", "snapshot %s not usable: %s", snapshot.snapshot_id, error)
            continue
        if snapshot is not None:
            crash_point(f"{role}.mid_restore")  # a snapshot loaded, its tail not folded, nothing resumed
        restored = await tail(start_of(state, snapshot, collector is not None))
        if restored is None:
            log.warning("snapshot %s is ahead of the folded topics' ends: not used", snapshot.snapshot_id)
            continue
        restored.snapshots_refused = len(collector.refused) if collector else 0
        return restored
    raise AssertionError("the fold from the beginning is always a candidate")


def events_tail(
    bootstrap: str,
    role: str,
    partition: int,
    events_topic: str,
    fold: Callable[[Any, Any], str | None],
    timeout_s: float = 300,
) -> Tail:
    """The tail of a state that folds one events topic: `fold(state, record)` of each record from where a restoration
    stands (a snapshot's `start_of`, or a warm spare's last step) to the topic's end; None when the topic ends before
    that (recreated). The next snapshot goes to the slot the restoration's cursor names."""
    from shared.partition_log import fold_partition

    async def tail(start: Restoration) -> Restoration | None:
        folding = TailFold.after(start, fold, events_topic, partition)
        end = await fold_partition(bootstrap, events_topic, partition, folding, start.events_end, timeout_s, role=role)
        if end < start.events_end:
            return None
        slot = None if start.cursor is None else start.cursor.slot
        cursor = None if slot is None else Cursor(end, folding.input_next, slot, inputs=folding.inputs)
        return folding.restoration(start.snapshot, end, cursor, start.snapshots_refused)

    return tail


def positions_after(
    before: dict[str, int],
    partition: int,
    folds: dict[str, str],
    written: dict[tuple[str, int], int],
    consumed: dict[tuple[str, int], int],
) -> dict[str, int]:
    """Where each folded topic (`folds`: physical -> logical name) of a partition stands once a transaction commits:
    after the last record it wrote there (`written`: next offsets by topic and partition), after what it consumed of
    it (an input the state also folds: the spin's jackpot answers), else where it stood (`before`)."""
    after = dict(before)
    for physical, logical in folds.items():
        if (physical, partition) in written:
            after[logical] = written[(physical, partition)]
        elif (physical, partition) in consumed:
            after[logical] = max(after.get(logical, 0), consumed[(physical, partition)])
    return after


ImageHook = Callable[[int, Any, bool], "Image | None"]


class Keeper:
    """The transactional loop's side of snapshots (shared/loop.py): the cursor of each partition it owns, the
    service's image taken right after a batch is decided (encoded meanwhile, `take`), held once that batch has
    committed, and its records sent in the first transaction of the partition after its bytes are in. `make(partition,
    state, force)` is the service's `snapshot_image`."""

    def __init__(self, writer: str, topic: str, logical_topic: str, make: ImageHook) -> None:
        self.writer, self.topic, self.logical_topic, self._make = writer, topic, logical_topic, make
        self.cursors: dict[int, Cursor] = {}
        self.held: dict[int, Held] = {}  # partition -> its image on its way (`hold`, `ready`)

    def track(self, partition: int, cursor: Cursor | None) -> None:
        if cursor is not None:
            self.cursors[partition] = cursor

    def forget(self, partition: int) -> None:
        self.cursors.pop(partition, None)
        self.held.pop(partition, None)

    def image(self, partition: int, state: Any, force: bool = False, fork: bool | None = None) -> Taken | None:
        """The service's image of a partition it snapshots, taken (None: none due, or no cursor: no snapshots topic).
        `fork`: whether a lazy image is encoded in a forked child (default: `forked.enabled()`)."""
        made = self._make(partition, state, force) if partition in self.cursors else None
        return None if made is None else take(made, fork)

    def hold(self, partition: int, taken: Taken) -> None:
        """The batch `taken` was imaged after has committed: keep the image, with the cursor's positions (those of that
        batch), until its bytes are in. A newer image replaces one still held."""
        cursor = self.cursors.get(partition)
        if cursor is not None:
            self.held[partition] = Held(
                taken, cursor.input_next, cursor.events_next, dict(cursor.positions), dict(cursor.inputs)
            )

    def ready(self, partition: int) -> Held | None:
        """The partition's held image whose bytes are in (handed over once), else None: nothing waits for an image.
        One whose encoding failed is dropped with an alert (a snapshot is only a cache: the next one is due later)."""
        held = self.held.get(partition)
        if held is None or not held.taken.packed.done():
            return None
        del self.held[partition]
        if held.taken.packed.exception() is not None:
            log.error("alert: partition %d: snapshot image not encoded: %r", partition, held.taken.packed.exception())
            return None
        return held

    async def send(self, producer: Any, partition: int, held: Held) -> None:
        """Chunks then manifest into the producer's open transaction, naming the positions of the batch the image
        reflects (`held`, from `hold`): the output position is the offset after that batch's last event, `positions`
        those of every topic the state folds, the input position the commands offset after that batch (or after the
        last one that read commands). The transaction is a later one of the partition's than that batch's."""
        cursor = self.cursors[partition]
        # Packed in a forked child or on a worker thread since the image was taken; hashed and signed on a worker
        # thread (hashlib releases the GIL on large buffers): the event loop goes on deciding meanwhile.
        await asyncio.wrap_future(held.taken.packed)
        head = (self.writer, self.logical_topic, partition, cursor.slot, held.taken)
        tail = (held.input_next, held.events_next, held.positions, held.inputs)
        encoded = await asyncio.to_thread(encode_taken, *head, *tail)
        futures = []
        for index, (key, value, headers) in enumerate(encoded):
            if index == len(encoded) - 1:
                await asyncio.gather(*futures)
                crash_point(f"{self.writer}.mid_snapshot")  # chunks sent, the manifest not yet
            futures.append(await producer.send(self.topic, value, key=key, headers=headers, partition=partition))
        await asyncio.gather(*futures)

    def committed(
        self,
        partition: int,
        input_next: int | None,
        events_next: int | None,
        wrote: bool,
        positions: dict[str, int] | None = None,
        inputs: dict[str, int] | None = None,
    ) -> None:
        """A transaction of the partition committed (with a snapshot when `wrote`): advance its cursor (`inputs`:
        every input's position after it, when the loop's records carry them)."""
        cursor = self.cursors.get(partition)
        if cursor is None:
            return
        if positions is not None:
            cursor.positions = dict(positions)
        if inputs:
            cursor.inputs = dict(inputs)
        if input_next is not None:
            cursor.input_next = input_next
        if events_next is not None:
            cursor.events_next = events_next
        if wrote:
            cursor.slot = 1 - cursor.slot

    async def final(self, states: dict[int, Any], producers: dict[int, Any], timeout_s: float = 10.0) -> int:
        """At shutdown, with nothing in flight: a snapshot of each partition that changed since its last one, alone
        in a transaction, so the next owner folds (almost) nothing; returns how many were written. A failure costs
        only restore time, and so does running out of `timeout_s` for all of them (e.g. the snapshots topic was
        deleted: a send waits for its metadata)."""
        try:
            return await asyncio.wait_for(self._final(states, producers), timeout_s)
        except asyncio.TimeoutError:
            log.warning("shutdown snapshots not all written in %.0f s: the next owner folds a longer tail", timeout_s)
            return 0

    async def _final(self, states: dict[int, Any], producers: dict[int, Any]) -> int:
        written = 0
        for partition, state in list(states.items()):
            image = self.image(partition, state, force=True)
            producer = producers.get(partition)
            if image is None or producer is None:
                continue
            cursor = self.cursors[partition]
            self.held.pop(partition, None)  # this image is newer
            held = Held(image, cursor.input_next, cursor.events_next, dict(cursor.positions), dict(cursor.inputs))
            try:
                async with producer.transaction():
                    await self.send(producer, partition, held)
                cursor.slot = 1 - cursor.slot
                written += 1
            except Exception as error:  # noqa: BLE001 - Kafka I/O; the snapshot is only a cache
                log.warning("partition %d: no snapshot at shutdown: %r", partition, error)
        return written
