"""A warm spare's states: what a spare process keeps while it waits for its go, so a takeover folds only the records
since its last step; `Follower` is the lifecycle every spare shares (docs/snapshots.md)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from aiokafka import TopicPartition
from aiokafka.errors import KafkaError

from shared import snapshots
from shared.kafka import AIOKAFKA_READER_SAFETY, aio_consumer, kafka_consumer

log = logging.getLogger("reelstream.warm")
STEP_S = 0.5  # how often stepped states catch up: a takeover's own fold is at most about this much traffic
RETRY_S = 2.0  # after a failure the states start over this much later
TAKE_WAIT_S = 1.0  # a spare's go waits this long for the step in progress (follow_until)
# The longest a waiting step's fetch waits on the broker for records (a long fetch): an idle spare costs a fetch this
# often and no fold, and a busy one folds each batch as soon as the broker hands it over.
FETCH_WAIT_MS = 500


class Follower:
    """Restore once, then keep up until stopped (`follow`); subclasses give `_follow` (restore, then step until
    `stop`, setting `ready` once every partition is restored) and `_drop` (forget every state)."""

    what = "warm states"

    def __init__(self) -> None:
        self.ready = False  # every partition restored: from then on a takeover folds only the last step's tail
        self.steps = 0

    async def follow(self, stop: asyncio.Event) -> None:
        """A failure (the broker away while the spare starts) leaves nothing behind and starts over after RETRY_S;
        a cancellation leaves nothing either (a takeover then restores as a cold start does)."""
        while not stop.is_set():
            try:
                await self._follow(stop)
                return
            except asyncio.CancelledError:
                self._drop()  # cut short inside a step: what it folded is not a cut
                raise
            except Exception:
                log.exception(
                    "the %s failed: started over in %.0f s (a takeover meanwhile is cold)", self.what, RETRY_S
                )
                self._drop()
            try:
                await asyncio.wait_for(stop.wait(), RETRY_S)
            except asyncio.TimeoutError:
                pass

    async def _follow(self, stop: asyncio.Event) -> None:
        raise NotImplementedError

    async def _keep_up(self, stop: asyncio.Event, step: Callable[[], Awaitable[Any]], pause_s: float = STEP_S) -> None:
        """`step()` every `pause_s` until `stop` (0: one after another, for a step that itself waits on the broker);
        a Kafka error in a step (raised before anything is folded: the states are still a cut) only skips it."""
        while not stop.is_set():
            try:
                await step()
            except KafkaError as error:
                log.warning("%s: a step failed (%s), the next one tries again", self.what, error)
                pause_s = max(pause_s, STEP_S)  # not a tight loop against a broker that is away
            try:
                await asyncio.wait_for(stop.wait(), pause_s)
            except asyncio.TimeoutError:
                pass

    def _drop(self) -> None:
        raise NotImplementedError


async def follow_until(go: Callable[[], bool], follower: Follower, take_wait_s: float) -> Follower | None:
    """The follower kept up until `go()` returns (in a thread: it blocks on the supervisor); None when the supervisor
    went away. A go before every partition is restored, or while a step outlasts `take_wait_s` (a broker away),
    cancels it: the states are dropped and the takeover restores cold."""
    stop = asyncio.Event()
    following = asyncio.create_task(follower.follow(stop), name="warm-states")
    released = await asyncio.to_thread(go)
    stop.set()
    if not follower.ready:
        following.cancel()
    await asyncio.wait([following], timeout=take_wait_s)
    if not following.done():
        following.cancel()
    await asyncio.gather(following, return_exceptions=True)
    return follower if released else None


class WarmStates(Follower):
    """Every partition's restoration of one events topic (`restore(partition)`, the service's own), kept up by
    folding the committed records the broker hands over with `fold(state, record)` (the restore's fold): each step
    waits on the broker (`wait`), not on a timer. `take` hands one over."""

    def __init__(
        self,
        bootstrap: str,
        role: str,
        events_topic: str,
        restore: Callable[[int], Awaitable[snapshots.Restoration]],
        fold: Callable[[Any, Any], str | None],
    ) -> None:
        super().__init__()
        self.what = f"warm {role} states"
        self.bootstrap, self.role, self.events_topic = bootstrap, role, events_topic
        self._restore, self._fold = restore, fold
        self.states: dict[int, snapshots.Restoration] = {}

    def take(self, partition: int) -> snapshots.Restoration | None:
        """The partition's warm restoration, handed over once (after `follow_until` has returned it)."""
        return self.states.pop(partition, None)

    def drop(self) -> None:
        """Forget what was not taken (the partitions went to other instances)."""
        self._drop()

    def _drop(self) -> None:
        self.states.clear()
        self.ready = False

    async def _follow(self, stop: asyncio.Event) -> None:
        started = time.perf_counter()
        reader = aio_consumer(
            bootstrap=self.bootstrap,
            role=self.role,
            group_id=None,
            client_id=f"reelstream-{self.role}-warm",
            **AIOKAFKA_READER_SAFETY,
        )
        await reader.start()
        try:
            partitions = await asyncio.to_thread(self._partitions)
            restored = await asyncio.gather(*(self._restore(partition) for partition in partitions))
            self.states.update(zip(partitions, restored))
            log.info("%s of partitions %s in %.0f ms", self.what, partitions, (time.perf_counter() - started) * 1000)
            tps = {partition: TopicPartition(self.events_topic, partition) for partition in partitions}
            reader.assign(list(tps.values()))
            for partition, tp in tps.items():
                reader.seek(tp, self.states[partition].events_end)
            self.ready = True
            await self._keep_up(stop, lambda: self.wait(reader, stop), pause_s=0)
        finally:
            await reader.stop()

    def _partitions(self) -> list[int]:
        reader = kafka_consumer(self.bootstrap, role=self.role, group_id=None)
        try:
            found = sorted(reader.partitions_for_topic(self.events_topic) or ())
        finally:
            reader.close()
        if not found:
            raise LookupError(f"{self.events_topic} has no partitions the {self.role} principal can see")
        return found

    async def wait(self, reader: Any, stop: asyncio.Event) -> None:
        """Wait on the broker (a long fetch, FETCH_WAIT_MS at most, cut short by `stop`) for the committed records
        after each state's end (the reader is positioned there), and fold those it hands over. A fetch cut short by
        `stop` hands over nothing (aiokafka drains its buffers only once the wait is over); that is the last one."""
        tps = {partition: TopicPartition(self.events_topic, partition) for partition in self.states}
        fetching = asyncio.ensure_future(reader.getmany(*tps.values(), timeout_ms=FETCH_WAIT_MS))
        stopping = asyncio.ensure_future(stop.wait())
        try:
            await asyncio.wait({fetching, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when this wait is cancelled: no fetch outlives it
            stopping.cancel()
            if not fetching.done():
                fetching.cancel()
        if fetching.cancelled() or not fetching.done():  # the go came first
            await asyncio.gather(fetching, return_exceptions=True)
            return
        fetched = fetching.result()
        # No await from here on: a step is cut short only by a cancellation (the states are then dropped).
        for partition, tp in tps.items():
            records = fetched.get(tp, [])
            if not records:
                continue
            warm = self.states[partition]
            tail = snapshots.TailFold.after(warm, self._fold, self.events_topic, partition)
            for record in records:
                tail(record)
            end = max(records[-1].offset + 1, warm.events_end)
            self.states[partition] = tail.restoration(warm.snapshot, end, warm.cursor, warm.snapshots_refused)
        self.steps += 1
