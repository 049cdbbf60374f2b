"""A seamless operator served end to end: the real wallet, jackpot and spin services (spawned, with an operators file
naming demo-b seamless on the reference wallet), the seamless saga's loop and outbox (services/seamless_saga/app.py),
and the reference wallet with its own PostgreSQL ledger.

Scenario: demo-b's player spins three times, the last while the saga is down (a restarted saga, its books restored
from wallet.seamless, serves it); each spin is answered settled, with the balance the operator's wallet gave for the
round's win, and each round is exactly one bet and one win in the operator's ledger. Then the wallet
loses every answer: the next spin is refused WALLET_UNAVAILABLE, and its round is one bet rolled back and one
rollback. Then the wallet answers without its balance: the next spin is settled with the balance unknown (null), its
round one bet and one win. Reelstream's ledger wallet writes nothing for any of these wagers, and the audit, at rest,
finds nothing."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from pathlib import Path

import pytest

from reelstream.client import Rejected, Settled
from reelstream.processes import spawn
from shared import operators
from shared.config import load_settings
from shared.events.seamless import SeamlessRolledBack, SeamlessWinAcknowledged
from shared.session import issue_token
from shared.topics import WALLET_EVENTS, WALLET_SEAMLESS
from shared.topic_admin import delete_topics, ensure_topics
from shared.waits import wait_until_async

from services.audit.adapters.runner import audit_platform
from services.audit.core.scope import Scope
from services.audit.core.seamless import fold_rounds, held_at_operators
from services.seamless_saga.app import serve
from tests.integration.spin.conftest import SERVICE_ENV, Platform, client_for
from tests.support.seamless import (
    LEDGER_OPERATOR,
    PLAYER,
    SEAMLESS_OPERATOR,
    START_MINOR,
    operators_file,
    round_rows,
)

pytestmark = pytest.mark.integration

RING = f"ka@{LEDGER_OPERATOR}:{uuid.uuid4().hex},kb@{SEAMLESS_OPERATOR}:{uuid.uuid4().hex}"
SPINS = 3
STAKE_MINOR = 100


def _start_platform(kafka_bootstrap: str, directory: Path, operators_file: Path) -> Platform:
    prefix = f"t{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    env = {**SERVICE_ENV, "REELSTREAM_TOPIC_PREFIX": prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    env |= {"REELSTREAM_OPERATORS_FILE": str(operators_file), "REELSTREAM_SESSION_KEYS": RING}
    platform = Platform(kafka_bootstrap, prefix, directory / "logs", env)
    for name in ("wallet", "jackpot", "spin"):
        platform.services[name] = spawn(name, env=env, log_dir=platform.log_dir)
    for service in platform.services.values():
        service.wait_ready(120)
    return platform


def _spin(platform: Platform) -> Settled | Rejected:
    token = issue_token(RING, PLAYER, time.time_ns() // 1_000_000 + 3_600_000, operator_id=SEAMLESS_OPERATOR)
    with client_for(platform) as client:
        return client.spin(PLAYER, "rising-joker", STAKE_MINOR, "EUR", token, timeout_s=45)


async def test_a_seamless_operators_spins_are_bets_and_wins_at_its_wallet_and_nothing_in_the_ledger(
    wallet, kafka_bootstrap, tmp_path
):
    named = operators_file(tmp_path, wallet.url)
    platform = await asyncio.to_thread(_start_platform, kafka_bootstrap, tmp_path, named)
    env = {"REELSTREAM_TOPIC_PREFIX": platform.prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    saga = _Saga(load_settings({**os.environ, **env}), operators.load_file(named))
    try:
        await saga.start()
        balance_minor, won = START_MINOR, {}
        for n in range(SPINS):
            if n == SPINS - 1:  # the last spin is asked while the saga is down, and served by a restarted one
                await saga.stop()
                asked = asyncio.create_task(asyncio.to_thread(_spin, platform))
                await saga.start()
                answer = await asked
            else:
                answer = await asyncio.to_thread(_spin, platform)
            assert isinstance(answer, Settled), answer
            won[answer.request_id] = answer.data.win_minor
            balance_minor += answer.data.win_minor - STAKE_MINOR
            assert answer.data.balance_after_minor == balance_minor == await wallet.balance_minor()

        wallet.set_faults(lost_ppm=1_000_000)  # every call applied, every answer lost
        refused = await asyncio.to_thread(_spin, platform)
        assert isinstance(refused, Rejected) and refused.code == "WALLET_UNAVAILABLE", refused
        wallet.set_faults()

        async def rolled_back() -> bool:  # the rollback retried until acknowledged (its first answer was lost)
            facts = await asyncio.to_thread(platform.read_all, WALLET_SEAMLESS, 0.2)
            return any(isinstance(e.data, SeamlessRolledBack) and e.data.wager_id == refused.request_id for e in facts)

        await wait_until_async(rolled_back, 30, what="the lost bet's rollback acknowledged")
        rows = await round_rows(wallet, refused.request_id)
        assert [(kind, rolled) for kind, _, _, rolled in rows] == [("bet", True), ("rollback", False)]
        assert await wallet.balance_minor() == balance_minor

        wallet.set_faults(no_balance_ppm=1_000_000)  # every call applied, answered without the balance
        unknown = await asyncio.to_thread(_spin, platform)
        wallet.set_faults()
        assert isinstance(unknown, Settled) and unknown.data.balance_after_minor is None, unknown
        won[unknown.request_id] = unknown.data.win_minor
        balance_minor += unknown.data.win_minor - STAKE_MINOR
        assert await wallet.balance_minor() == balance_minor

        for request_id, won_minor in won.items():  # each exactly once, the restarted saga's rounds included
            assert await round_rows(wallet, request_id) == [
                ("bet", "OK", STAKE_MINOR, False),
                ("win", "OK", won_minor, False),
            ]
        ours = await asyncio.to_thread(platform.read_all, WALLET_EVENTS)
        assert [event.type for event in ours if event.data.player_id == PLAYER] == []  # the ledger took nothing
        facts = await asyncio.to_thread(platform.read_all, WALLET_SEAMLESS)
        assert sum(1 for event in facts if isinstance(event.data, SeamlessWinAcknowledged)) == SPINS + 1
        assert sum(1 for event in facts if isinstance(event.data, SeamlessRolledBack)) == 1
        # The audit re-derives the seamless spins and holds each round to its one win or rollback, at rest.
        run = await asyncio.to_thread(audit_platform, saga.settings, Scope(), with_projection=False, at_rest=True)
        assert run.discrepancies == [], [finding.as_json() for finding in run.discrepancies]
        assert (
            len(held_at_operators(fold_rounds([f for f in run.result.facts.facts if f.topic == WALLET_SEAMLESS])))
            == SPINS + 2  # the settled spins, the one without a balance, the rolled-back one
        )
    finally:
        await saga.stop()
        for service in platform.services.values():
            await asyncio.to_thread(service.stop)
        await asyncio.to_thread(delete_topics, kafka_bootstrap, _under(kafka_bootstrap, platform.prefix))


class _Saga:
    """The seamless saga's process (services/seamless_saga/app.py) run in this event loop, stopped and started again."""

    def __init__(self, settings, configured) -> None:
        self.settings, self.configured, self.task, self.stopping = settings, configured, None, asyncio.Event()

    async def start(self) -> None:
        ready, self.stopping = asyncio.Event(), asyncio.Event()
        self.task = asyncio.create_task(serve(self.settings, self.stopping, self.configured, ready.set))
        await asyncio.wait_for(ready.wait(), 60)

    async def stop(self) -> None:
        self.stopping.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, 60)


def _under(kafka_bootstrap: str, prefix: str) -> list[str]:
    from shared.kafka import admin_client

    admin = admin_client(kafka_bootstrap, client_id="reelstream-seamless-tests")
    try:
        return [name for name in admin.list_topics() if name.startswith(prefix)]
    finally:
        admin.close()
