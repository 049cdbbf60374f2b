"""The spin service: the per-request state machine, until SIGTERM (the jackpot writes its answers to the players'
partitions itself)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Callable

from services.spin.adapters.runner import SnapshotPolicy, SpinRunner
from services.spin.adapters.warm import WarmBooks
from services.spin.adapters.seeds import seed_source
from services.spin.core.catalog import Catalog, registry_catalog
from services.spin.core.effects import Context
from games.rng import SpinRng
from shared import event_loop, observability
from shared.config import load_settings
from shared.security import quiet_client_debug_logs
from shared.warm import TAKE_WAIT_S, follow_until
from shared.session import key_ring, token_operator, token_problem
from games.selftest import require_self_test


# Tuning knobs (tests lower them to get snapshots out of a few hundred requests).
SNAPSHOT_RECORDS_ENV = "REELSTREAM_SPIN_SNAPSHOT_RECORDS"
SNAPSHOT_SECONDS_ENV = "REELSTREAM_SPIN_SNAPSHOT_SECONDS"
SHUTDOWN_GRACE_S = 15.0  # a stopping runner commits what it decided and writes its final snapshots in this time


def snapshot_policy(env) -> SnapshotPolicy:
    """Every `every_records` input records or `every_s` seconds with anything new (SnapshotPolicy's defaults). A
    snapshot costs the whole book (pruned, captured, encoded in pieces, through a transaction) however little changed,
    so they are rare; a crash's tail to fold is at most `every_records` records either way."""
    return SnapshotPolicy(
        every_records=int(env.get(SNAPSHOT_RECORDS_ENV, SnapshotPolicy.every_records)),
        every_s=float(env.get(SNAPSHOT_SECONDS_ENV, SnapshotPolicy.every_s)),
    )


def prepare() -> None:
    """What a warm spare does before its go (reelstream/commands/services.py): load the games' compiled kernels and play
    each game once, so a restart after a crash spends none of its answer gap on it (serve's own warm_up then finds
    them loaded)."""
    warm_up(registry_catalog())


def warm_up(catalog: Catalog) -> None:
    """Play each game once so a JIT-compiled engine is compiled before the first real spin."""
    from games.registry import GAMES

    for game in GAMES:
        engine = catalog.engine(game)
        engine.play(engine.initial_state(), engine.stakes_minor[0], SpinRng(bytes(32)))


def spare(go: Callable[[], bool]) -> None:
    """A warm spare (reelstream/commands/services.py): keep every partition's book up with the spin's topics until
    `go()` returns (True: take over and serve, False: the supervisor went away), so a takeover folds only the last
    half second of records (services/spin/adapters/warm.py)."""
    main(go)


async def _follow_until(go: Callable[[], bool], settings, catalog: Catalog) -> WarmBooks | None:
    """The spare's books, followed until the go (shared/warm.py: follow_until); None when the supervisor went away."""
    return await follow_until(go, WarmBooks(settings, catalog), TAKE_WAIT_S)


async def serve(go: Callable[[], bool] | None = None) -> None:
    from shared.readiness import ready_line

    settings = load_settings()
    catalog = registry_catalog()
    warm_up(catalog)
    ring = key_ring(settings.session_secret)  # refuses to start without a configured key
    warm = await _follow_until(go, settings, catalog) if go is not None else None
    if go is not None and warm is None:
        return  # a spare whose supervisor went away: nothing to take over

    def check_token(token: str, player_id: str, now_ms: int) -> str | None:
        problem = token_problem(ring, token, player_id, now_ms)
        return None if problem is None else problem.value

    ctx = Context(
        catalog=catalog,
        token_problem=check_token,
        draw_seed=seed_source(os.environ),
        token_operator=lambda token: token_operator(ring, token),
    )
    http = await observability.serve_http()
    runner = SpinRunner(settings, ctx, snapshot_policy(os.environ), warm)
    stop = asyncio.Event()
    runner_task = asyncio.create_task(runner.run(stop), name="spin-runner")
    tasks = [runner_task]
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    waiter = asyncio.create_task(_announce_ready(runner, ready_line("spin")))
    stopper = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
    if stopper in done and not runner_task.done():  # the runner stops on its own: the next owner folds only a tail
        await asyncio.wait([runner_task], timeout=SHUTDOWN_GRACE_S)
    for task in [*tasks, waiter, stopper]:
        task.cancel()
    await asyncio.gather(*tasks, waiter, return_exceptions=True)
    await http.stop()
    for task in done:
        if task is not stopper and task.exception() is not None:
            raise task.exception()


async def _announce_ready(runner: SpinRunner, line: str) -> None:
    await runner.assigned.wait()
    restored = list(runner.restored.values())
    with_snapshot = sum(1 for item in restored if item.snapshot_offset is not None)
    folded = sum(item.folded for item in restored)
    sys.stderr.write(
        f"spin: restored {len(restored)} partitions ({with_snapshot} from a snapshot, {folded} records folded)\n"
    )
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def main(go: Callable[[], bool] | None = None) -> None:
    require_self_test("spin")
    observability.setup("spin")
    quiet_client_debug_logs()  # at DEBUG aiokafka and kafka-python log whole records, session tokens included
    try:
        event_loop.run(serve(go))
    finally:
        observability.shutdown_tracing()
