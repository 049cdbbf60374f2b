"""The seamless outbox against the reference wallet for integration tests: one seamless operator's settings and
core, the spin's commands sent now, a bounded wait for a round's phase, and a few rounds played with faults."""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from shared import records
from shared.decision import Message
from shared.events.envelope import Envelope, epoch_ms
from shared.operators import Operator, SeamlessWallet, seamless_wallet_of
from shared.waits import wait_until_async

from services.seamless_saga.adapters.outbox import Outbox
from services.seamless_saga.core.decide import SeamlessCore
from services.seamless_saga.core.state import OPEN_PHASES, Phase
from tests.support.seamless import PLAYER, SIGNER, RunningWallet
from tests.support.seamless_saga import debit, sent, settle, wager_id

OPERATOR = "op-s"


def seamless_operator(wallet: RunningWallet, key_dir: Path, protocol: str) -> tuple[SeamlessWallet, SeamlessCore]:
    """`OPERATOR` on `wallet` (400 ms a call, 2 s to answer a bet, a minute of win retries), its key in `key_dir`."""
    key_file = key_dir / "reelstream.pem"
    key_file.write_bytes(SIGNER.private_pem())
    settings = SeamlessWallet(wallet.url, protocol, SIGNER.key_id, str(key_file), 400, 2_000, 60)
    configured = (Operator(OPERATOR, "seamless", settings),)
    core = SeamlessCore(random.random, lambda operator_id: seamless_wallet_of(operator_id, configured))
    return settings, core


def now_message(command: Envelope[Any]) -> Message:
    """The spin's command sent now (the saga refuses one older than the de-duplication window)."""
    now = datetime.now(timezone.utc)
    payload = sent(command.data, now)
    return Message(payload, epoch_ms(now), proof=records.checked_awards(payload.data))


async def settled(outbox: Outbox, n: int, phase: Phase | None = None) -> Phase:
    """Step the outbox until round `n` is closed (or in `phase`), within a bounded time."""

    async def closed():
        await outbox.step()
        current = outbox.book.rounds[str(wager_id(n))].phase
        return current if (current == phase if phase else current not in OPEN_PHASES) else None

    return await wait_until_async(closed, 20, 0.05, what=f"round {n} settled")


async def play_three_rounds(outbox: Outbox, wallet: RunningWallet) -> None:
    """Round 1 bet 100 and won 250; round 2 a bet that times out (never applied), its rollback retried until the
    wallet answers again; round 3 a bet applied whose answer is lost, rolled back."""
    await outbox.decide(now_message(debit(1, 100, OPERATOR, PLAYER)))
    assert await settled(outbox, 1, Phase.ACCEPTED)
    await outbox.decide(now_message(settle(1, 250, player_id=PLAYER)))
    assert await settled(outbox, 1) is Phase.WON
    wallet.set_faults(timeout_ppm=1_000_000, hang_ms=1_000)
    await outbox.decide(now_message(debit(2, 100, OPERATOR, PLAYER)))
    assert await settled(outbox, 2, Phase.ROLLING_BACK)
    wallet.set_faults()
    assert await settled(outbox, 2) is Phase.ROLLED_BACK
    wallet.set_faults(lost_ppm=1_000_000)
    await outbox.decide(now_message(debit(3, 100, OPERATOR, PLAYER)))
    assert await settled(outbox, 3, Phase.ROLLING_BACK)
    wallet.set_faults()
    assert await settled(outbox, 3) is Phase.ROLLED_BACK
