"""The seamless saga as a pipelined partition service of the shared loop: the spin's wager commands (wallet.internal)
and the outbox's call outcomes (wallet.seamless-calls) in, its facts out on wallet.seamless through shared/emit.py;
`owing` is what the outbox may call, the books' owing rounds as each batch committed (adapters/committed.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from shared import emit
from shared.config import Settings
from shared.inbound import QUARANTINE, Inbound, Input
from shared.input_position import Output
from shared.loop import LoopConfig, LoopStats, Restored, Stateless, TransactionalLoop
from shared.events.seamless import RecordCallOutcome
from shared.topics import WALLET_INTERNAL, WALLET_SEAMLESS, WALLET_SEAMLESS_CALLS, dlq_name

from services.seamless_saga.adapters.committed import CommittedOwing
from services.seamless_saga.adapters.kafka_log import WRITER, restore_with_inputs
from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.route import WAGER_COMMANDS
from services.seamless_saga.core.state import SeamlessBook

# The wallet reads wallet.internal too and answers what is wrong with a record there; the saga only alerts on it. A
# record nobody can decode is the ledger wallet's alone: core/route.py gives the saga a wager only by the seamless
# operator it names, and such a record names none.
INPUTS = (
    Input(
        WALLET_INTERNAL,
        types=frozenset(command.TYPE for command in WAGER_COMMANDS),
        untrusted=QUARANTINE,
        misplaced=QUARANTINE,
        awards=True,
        owns_undecodable=False,
    ),
    Input(
        WALLET_SEAMLESS_CALLS,
        types=frozenset({RecordCallOutcome.TYPE}),
        untrusted=QUARANTINE,
        misplaced=QUARANTINE,
    ),
)
EMITS = emit.Emits(writer=WRITER, span="seamless {}")


def loop_config(settings: Settings) -> LoopConfig:
    events = settings.topic(WALLET_SEAMLESS)
    return LoopConfig(
        bootstrap=settings.kafka_bootstrap_servers,
        commands_topic=settings.topic(WALLET_INTERNAL),
        extra_inputs=(settings.topic(WALLET_SEAMLESS_CALLS),),
        events_topic=events,
        events_logical=WALLET_SEAMLESS,
        dlq_topic=settings.topic(dlq_name(WALLET_INTERNAL)),
        group_id=settings.group("wallet-seamless"),
        service=WRITER,
        pipelined=True,  # the outbox reads the committed view (adapters/committed.py), never a book in flight
        coalesce=False,  # a hand-over's record is decided as soon as it lands: each is on a spin's answer path
        positions_on=(events,),
    )


class SeamlessService(Stateless[SeamlessBook]):
    """The saga's part of the loop: a partition's book folded from wallet.seamless, its messages decided by the core."""

    inputs = INPUTS

    def __init__(self, settings: Settings, core: SeamlessCore, on_ready: Callable[[], None] | None = None) -> None:
        self.settings, self.core, self._on_ready = settings, core, on_ready
        self.emitter = emit.Emitter(EMITS, core, settings.topic, settings.topic(WALLET_INTERNAL))
        self.stats = LoopStats()
        self.loop: TransactionalLoop[SeamlessBook] = TransactionalLoop(loop_config(settings), self, self.stats)
        self.facts_committed = asyncio.Event()  # the outbox's wake-up: what a commit made owed is called at once
        self.owing = CommittedOwing()  # what the outbox may call: the books' owing rounds as last committed

    async def restore(self, partition: int) -> Restored[SeamlessBook]:
        book = self.core.new_state(partition)
        topic = self.settings.topic(WALLET_SEAMLESS)
        _, inputs = await restore_with_inputs(self.settings.kafka_bootstrap_servers, topic, self.core, book, partition)
        self.owing.restored(partition, book)  # before the loop holds it: no batch of it is decided yet
        return Restored(book, inputs.get(WALLET_INTERNAL), inputs=inputs)

    def decide(self, partition: int, book: SeamlessBook, inbounds: Iterable[Inbound]) -> list[Output]:
        made = self.emitter.batch(partition, book, inbounds)[0]
        self.owing.decided(partition, book)
        return made

    def committed(self, partition: int, book: SeamlessBook, next_offset: int, event_offsets: list[int]) -> None:
        self.owing.committed(partition)
        if event_offsets:
            self.facts_committed.set()

    def released(self, partition: int, book: SeamlessBook) -> None:
        self.owing.released(partition)

    async def acquired(self, restored: dict[int, Restored[SeamlessBook]]) -> None:
        if self._on_ready is not None:
            self._on_ready()
            self._on_ready = None
