"""The loop's hooks for a service with more inputs and topics (the spin), against a recording fake producer.

Scenario: one batch of partition 2 holds records of the commands topic and of an extra input. Its journal output and
its answer are sent in one burst (visible together under read_committed), the service hears of them only once all are
acknowledged, the outputs go to the topics and partitions they name, and the offsets of both inputs commit inside
the transaction, before it commits.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from types import SimpleNamespace

from aiokafka import TopicPartition

from shared.input_position import Output
from shared.loop import LoopConfig, Stateless, TransactionalLoop, _by_partition


class RecordingProducer:
    def __init__(self) -> None:
        self.log: list[tuple] = []
        self.offsets: dict | None = None

    @asynccontextmanager
    async def transaction(self):
        self.log.append(("begin",))
        yield
        self.log.append(("commit",))

    async def send(self, topic, value, key=None, headers=None, partition=None):
        self.log.append(("send", topic, partition, value))
        done = asyncio.get_running_loop().create_future()

        def acknowledge() -> None:
            self.log.append(("ack", value))
            done.set_result(SimpleNamespace(offset=len(self.log)))

        asyncio.get_running_loop().call_soon(acknowledge)
        return done

    async def send_offsets_to_transaction(self, offsets, group_id) -> None:
        self.offsets = dict(offsets)
        self.log.append(("offsets", group_id))


class Service(Stateless[dict]):
    def __init__(self) -> None:
        self.acknowledged_tags: list[list[str]] = []

    def acknowledged(self, partition: int, outputs: list[Output]) -> None:
        self.acknowledged_tags.append([out.tag for out in outputs])


CONFIG = LoopConfig(
    bootstrap="unused",
    commands_topic="x.requests",
    events_topic="x.events",
    dlq_topic="x.requests.dlq",
    group_id="g",
    service="test",
    extra_inputs=("x.answers",),
)


def _commit(outputs: list[Output]) -> tuple[RecordingProducer, Service]:
    service, producer = Service(), RecordingProducer()
    loop = TransactionalLoop(CONFIG, service)
    loop.states[2], loop.producers[2] = {}, producer
    offsets = {TopicPartition("x.requests", 2): 11, TopicPartition("x.answers", 2): 40}
    asyncio.run(loop._commit(None, 2, offsets, outputs, 0.0))
    return producer, service


def _out(value: bytes, **fields) -> Output:
    return Output(False, b"k", value, [], **fields)


def test_a_transaction_sends_all_its_outputs_before_waiting_for_any_acknowledgement():
    journal = _out(b"seed", topic="x.journal", partition=2, tag="seed")
    answer = _out(b"answer", topic="x.events", partition=2, tag="answer")
    producer, _ = _commit([journal, answer])
    steps = [step[:2] if step[0] == "send" else step for step in producer.log]
    assert steps[:3] == [("begin",), ("send", "x.journal"), ("send", "x.events")]
    assert max(steps.index(("ack", b"seed")), steps.index(("ack", b"answer"))) < steps.index(("commit",))


def test_outputs_go_to_the_topic_and_partition_they_name():
    command = _out(b"debit", topic="x.commands", partition=None, tag="debit")
    journal = _out(b"seed", topic="x.journal", partition=2)
    producer, _ = _commit([command, journal])
    sent = {(step[1], step[2]) for step in producer.log if step[0] == "send"}
    assert sent == {("x.commands", None), ("x.journal", 2)}


def test_the_offsets_of_every_input_commit_inside_the_transaction():
    producer, _ = _commit([_out(b"answer", topic="x.events", partition=2)])
    assert producer.offsets == {TopicPartition("x.requests", 2): 11, TopicPartition("x.answers", 2): 40}
    assert producer.log.index(("offsets", "g")) < producer.log.index(("commit",))


def test_the_service_hears_of_the_outputs_once_all_are_acknowledged():
    journal = _out(b"seed", topic="x.journal", partition=2, tag="seed")
    settle = _out(b"settle", topic="x.commands", tag="settle")
    _, service = _commit([journal, settle])
    assert service.acknowledged_tags == [["seed", "settle"]]


def test_a_poll_is_grouped_by_partition_number_across_inputs():
    polled = {
        TopicPartition("x.requests", 0): ["r0"],
        TopicPartition("x.answers", 1): ["a1"],
        TopicPartition("x.answers", 0): ["a0"],
    }
    grouped = _by_partition(polled)
    assert sorted(grouped) == [0, 1]
    assert [records for _, records in grouped[0]] == [["r0"], ["a0"]]


class Completing(Service):
    """Fills each output's value when the loop asks for the batch to be made whole (a repeat read back)."""

    def __init__(self, producer: RecordingProducer) -> None:
        super().__init__()
        self.producer = producer
        self.seen: list[tuple] = []  # the producer's log when each batch was completed

    async def completed(self, partition: int, outputs: list[Output]) -> list[Output]:
        self.seen.append(tuple(self.producer.log))
        return [Output(False, out.key, b"read back", out.headers) for out in outputs]


def test_a_batch_is_completed_after_the_previous_one_committed_and_before_anything_of_it_is_sent():
    producer = RecordingProducer()
    service = Completing(producer)
    loop = TransactionalLoop(CONFIG, service)
    loop.states[2], loop.producers[2] = {}, producer

    async def two_batches() -> None:
        offsets = {TopicPartition("x.requests", 2): 11}
        first = asyncio.create_task(loop._commit(None, 2, offsets, [_out(b"")], 0.0))
        await loop._commit(first, 2, offsets, [_out(b"")], 0.0)

    asyncio.run(two_batches())
    assert service.seen[0] == () and service.seen[1][-1] == ("commit",)
    assert [step[3] for step in producer.log if step[0] == "send"] == [b"read back", b"read back"]
