"""A loop with an extra input whose state folds only its events (the wallet and the jackpot reading their
internal-command topic beside the public one, `LoopConfig.carry_position`): the commands topic's position still
travels on the batch's last event, and the offsets of every input commit in the transaction whenever the batch read
the extra input; a batch of the commands topic alone needs no offsets in its transaction, as without extra inputs.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from aiokafka import TopicPartition

from shared.input_position import Output, recorded_position
from shared.loop import LoopConfig, Stateless, TransactionalLoop
from tests.unit.shared.test_loop_hooks import RecordingProducer

COMMANDS, INTERNAL = TopicPartition("x.wallet.commands", 2), TopicPartition("x.wallet.internal", 2)
CONFIG = LoopConfig(
    bootstrap="unused",
    commands_topic=COMMANDS.topic,
    events_topic="x.wallet.events",
    dlq_topic="x.wallet.commands.dlq",
    group_id="g",
    service="wallet",
    extra_inputs=(INTERNAL.topic,),
    carry_position=True,
)


class Service(Stateless[dict]):
    async def restore(self, partition: int):  # never called here
        raise AssertionError


def _commit(offsets: dict, config: LoopConfig = CONFIG) -> RecordingProducer:
    producer = RecordingProducer()
    loop = TransactionalLoop(config, Service())
    loop.states[2], loop.producers[2] = {}, producer
    events = [Output(False, b"p-1", b"debited", []), Output(False, b"p-1", b"settled", [])]
    asyncio.run(loop._commit(None, 2, offsets, events, 0.0))
    return producer


def test_a_batch_of_both_inputs_carries_the_commands_position_and_commits_both_offsets_in_the_transaction():
    producer = RecordingProducer()
    loop = TransactionalLoop(CONFIG, Service())
    loop.states[2], loop.producers[2] = {}, producer
    sent: list[Output] = []
    original = producer.send

    async def keep(topic, value, key=None, headers=None, partition=None):
        sent.append(Output(False, key, value, headers or []))
        return await original(topic, value, key=key, headers=headers, partition=partition)

    producer.send = keep
    events = [Output(False, b"p-1", b"debited", []), Output(False, b"p-1", b"settled", [])]
    asyncio.run(loop._commit(None, 2, {COMMANDS: 11, INTERNAL: 40}, events, 0.0))
    assert [recorded_position(out.headers) for out in sent] == [None, 11]  # wallet.commands' next offset, last event
    assert producer.offsets == {COMMANDS: 11, INTERNAL: 40}
    assert producer.log.index(("offsets", "g")) < producer.log.index(("commit",))


def test_a_batch_of_the_commands_topic_alone_needs_no_offsets_in_its_transaction():
    producer = _commit({COMMANDS: 11})
    assert producer.offsets is None and ("offsets", "g") not in producer.log


def test_a_batch_of_the_extra_input_alone_carries_no_position_and_commits_its_offset_in_the_transaction():
    producer = _commit({INTERNAL: 40})
    assert producer.offsets == {INTERNAL: 40}


def test_without_carry_position_a_loop_with_extra_inputs_always_commits_in_the_transaction():
    producer = _commit({COMMANDS: 11}, replace(CONFIG, carry_position=False))
    assert producer.offsets == {COMMANDS: 11}


def test_a_loop_carrying_its_position_may_snapshot_with_extra_inputs():
    class Imaging(Service):
        def snapshot_image(self, partition, state, force=False):
            return None

    loop = TransactionalLoop(replace(CONFIG, snapshots_topic="x.wallet.snapshots"), Imaging())
    assert loop._snapshots is not None
