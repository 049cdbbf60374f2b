"""The null sagas' processes: `python -m bench.null_services ROLE SHAPE` runs the null spin, wallet or jackpot on the
shared transactional loop with the real service's settings, principal, topics, groups and transactional ids, so the
loop's costs per hop are the real ones."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable
from typing import Any

from bench.null_saga import SHAPES, Emit, Input, Sample, jackpot_step, sample_of, spin_step, wallet_step
from shared import event_loop, observability, records
from shared.config import Settings, load_settings
from shared.events import broker_time
from shared.input_position import Output
from shared.loop import LoopConfig, Restored, Stateless, TransactionalLoop
from shared.readiness import ready_line
from shared.security import quiet_client_debug_logs

ROLES = ("spin", "wallet", "jackpot")
SAMPLE_GAME = "rising-joker"


def process_name(role: str, shape: str) -> str:
    """The name a null process announces itself by (its ready line) and logs under."""
    return f"null-{shape}-{role}"


class NullService(Stateless[dict]):
    """One role of a null saga on the loop: restores nothing, decides each record through `step`."""

    def __init__(self, name: str, config: LoopConfig, settings: Settings, step: Callable[[dict, Input], list[Emit]]):
        self.name, self.settings, self.step = name, settings, step
        self.logical = {topic: topic.removeprefix(settings.topic_prefix) for topic in config.inputs}
        self.ready = asyncio.Event()
        self.loop: TransactionalLoop[dict] = TransactionalLoop(config, self)

    async def restore(self, partition: int) -> Restored[dict]:
        return Restored({}, None)  # nothing to rebuild: the group's offsets (or the earliest) say where to start

    def decide(self, partition: int, pending: dict, polled: list[Any]) -> list[Output]:
        outputs: list[Output] = []
        for record in polled:
            logical = self.logical[record.topic]
            with observability.consume_span(f"{self.name} {logical}", record.headers, partition, record.value):
                found = self.step(
                    pending, Input(logical, record.key, record.value, record.headers, broker_time(record.timestamp))
                )
            outputs.extend(self._output(emit, partition) for emit in found)
        return outputs

    def _output(self, emit: Emit, partition: int) -> Output:
        headers = records.headers_for(self.loop.config.service)
        target = partition if emit.on_input_partition else None
        return Output(False, emit.key, emit.value, headers, self.settings.topic(emit.topic), target)

    async def acquired(self, restored: dict[int, Restored[dict]]) -> None:
        if not self.loop.restoring and not self.ready.is_set():
            self.ready.set()
            sys.stderr.write(ready_line(self.name) + "\n")
            sys.stderr.flush()


def spin_config(settings: Settings) -> LoopConfig:
    """The real spin runner's loop settings (services/spin/adapters/runner.py): three co-partitioned inputs."""
    from services.spin.adapters.runner import loop_config

    return loop_config(settings)


def _sample() -> Sample:
    from services.spin.core.catalog import registry_catalog

    catalog = registry_catalog()
    return sample_of(catalog.engine(SAMPLE_GAME), catalog.network_for_game(SAMPLE_GAME))


def service_for(role: str, shape: str, settings: Settings) -> NullService:
    """The null `role` of `shape` with the real service's loop settings (read from its own configuration)."""
    name = process_name(role, shape)
    if role == "spin":
        sample = _sample()
        step = lambda pending, rec: spin_step(shape, pending, rec, sample)  # noqa: E731
        return NullService(name, spin_config(settings), settings, step)
    if role == "wallet":
        from services.wallet.app import live_config as wallet_config

        return NullService(name, wallet_config().loop(), settings, lambda _, rec: wallet_step(rec))
    from services.jackpot.app import live_config as jackpot_config

    return NullService(name, jackpot_config().loop(), settings, lambda _, rec: jackpot_step(rec))


async def serve(role: str, shape: str) -> None:
    service = service_for(role, shape, load_settings())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    http = await observability.serve_http()  # /metrics, as the real services serve it: the bench reads its timings
    try:
        await service.loop.run(stop)
    finally:
        await http.stop()


def main(argv: list[str]) -> None:
    if len(argv) != 2 or argv[0] not in ROLES or argv[1] not in SHAPES:
        raise SystemExit(f"usage: python -m bench.null_services {{{'|'.join(ROLES)}}} {{{'|'.join(SHAPES)}}}")
    role, shape = argv
    observability.setup(role)
    quiet_client_debug_logs()
    event_loop.run(serve(role, shape))


if __name__ == "__main__":
    main(sys.argv[1:])
