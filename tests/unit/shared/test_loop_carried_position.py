"""A loop with an extra input whose state folds only its events (the wallet and the jackpot reading their
internal-command topic beside the public one, `LoopConfig.positions_on` their events topic): the next offset of both
inputs travels on the batch's last event, so no batch with an event commits offsets in its transaction, whichever
inputs it read; a batch of dead letters alone commits its offsets in the transaction. Without `positions_on` a loop
commits its offsets in every transaction, whatever it reads.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from aiokafka import TopicPartition

from shared.input_position import Output, recorded_inputs, recorded_position
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
    positions_on=("x.wallet.events",),
)
BOTH = {"wallet.commands": 11, "wallet.internal": 40}


class Service(Stateless[dict]):
    async def restore(self, partition: int):  # never called here
        raise AssertionError


def _commit(offsets: dict, carried: dict | None, config: LoopConfig = CONFIG, outputs=None):
    producer = RecordingProducer()
    loop = TransactionalLoop(config, Service())
    loop.states[2], loop.producers[2] = {}, producer
    sent: list[Output] = []
    original = producer.send

    async def keep(topic, value, key=None, headers=None, partition=None):
        sent.append(Output(False, key, value, headers or []))
        return await original(topic, value, key=key, headers=headers, partition=partition)

    producer.send = keep
    events = [Output(False, b"p-1", b"debited", []), Output(False, b"p-1", b"settled", [])]
    asyncio.run(loop._commit(None, 2, offsets, events if outputs is None else outputs, 0.0, None, carried))
    return producer, sent


def test_a_batch_of_both_inputs_carries_both_positions_on_its_last_event_and_commits_no_offsets():
    producer, sent = _commit({COMMANDS: 11, INTERNAL: 40}, BOTH)
    assert [recorded_inputs(out.headers) for out in sent] == [{}, BOTH]
    assert producer.offsets is None and ("offsets", "g") not in producer.log


def test_a_batch_of_either_input_alone_carries_every_known_position_and_commits_no_offsets():
    for offsets in ({COMMANDS: 11}, {INTERNAL: 40}):
        producer, sent = _commit(offsets, BOTH)
        assert recorded_inputs(sent[-1].headers) == BOTH and producer.offsets is None


def test_a_batch_of_dead_letters_alone_commits_its_offsets_in_the_transaction():
    letter = Output(True, b"p-1", b"{", [("reelstream-dlq-reason", b"bad")])
    producer, sent = _commit({INTERNAL: 40}, BOTH, outputs=[letter])
    assert recorded_inputs(sent[0].headers) == {} and producer.offsets == {INTERNAL: 40}
    assert producer.log.index(("offsets", "g")) < producer.log.index(("commit",))


def test_without_positions_on_a_loop_with_extra_inputs_always_commits_in_the_transaction():
    producer, sent = _commit({COMMANDS: 11}, None, replace(CONFIG, positions_on=()))
    assert producer.offsets == {COMMANDS: 11}
    assert all(recorded_position(out.headers) is None and not recorded_inputs(out.headers) for out in sent)


def test_without_positions_on_a_loop_reading_only_its_commands_topic_commits_in_the_transaction_too():
    config = replace(CONFIG, extra_inputs=(), positions_on=())
    producer, sent = _commit({COMMANDS: 11}, None, config)
    assert producer.offsets == {COMMANDS: 11}
    assert all(recorded_position(out.headers) is None and not recorded_inputs(out.headers) for out in sent)


def test_a_loop_carrying_its_positions_may_snapshot_with_extra_inputs():
    class Imaging(Service):
        def snapshot_image(self, partition, state, force=False):
            return None

    loop = TransactionalLoop(replace(CONFIG, snapshots_topic="x.wallet.snapshots"), Imaging())
    assert loop._snapshots is not None
