"""Well-formed messages of each input topic as JSON-ready dicts (pure), for the fuzzer to break: every id is given, so
the same draws make the same bytes."""

from __future__ import annotations

import random
import uuid
from datetime import datetime
from typing import Any

from shared.events import envelope
from shared.events import jackpot as jp
from shared.events.seamless import RecordCallOutcome, SeamlessBetAccepted, SeamlessWinAcknowledged
from shared.events.spin import SpinRequested
from shared.events.wallet import DebitWager, Deposit, SettleWager, Withdraw

NETWORK = "diamond-mystery"
POOL = "dm-green"


def ids_from(salt: int, count: int) -> tuple[uuid.UUID, ...]:
    """`count` version-4 UUIDs made from one drawn number (hypothesis skews the choices drawn after many large draws
    of one kind towards their simplest value, and a repeated salt is a replay of the same ids)."""
    rng = random.Random(salt)
    return tuple(uuid.UUID(int=rng.getrandbits(128), version=4) for _ in range(count))


def _dumped(data: Any, now: datetime, event_id: uuid.UUID) -> dict[str, Any]:
    return envelope(data, source="fuzzer", time=now, id=event_id).model_dump(mode="json", exclude_none=True)


def valid(topic: str, player_id: str, now: datetime, ids: tuple[uuid.UUID, uuid.UUID]) -> dict[str, Any]:
    """A well-formed message of the topic (a wager debit on the topics that take none from outside)."""
    request_id, event_id = ids
    if topic == "spin.requests":
        data: Any = SpinRequested(
            request_id=request_id,
            player_id=player_id,
            game="rising-joker",
            stake_minor=10,
            currency="EUR",
            session_token="v1.x.1.y",
        )
    elif topic == "wallet.commands":
        data = Withdraw(transaction_id=request_id, player_id=player_id, amount_minor=10, currency="EUR")
    elif topic == "wallet.seamless":  # what the spin reads there: the operator took a wager's stake
        data = SeamlessBetAccepted(
            wager_id=request_id,
            player_id=player_id,
            operator_id="fz-op",
            recorded_at=now,
            amount_minor=10,
            currency="EUR",
        )
    elif topic == "wallet.seamless-calls":
        data = _outcome(player_id, request_id, 10)
    elif topic in ("jackpot.commands", "jackpot.internal"):  # a claim: the spin's to send, on either topic
        data = jp.Claim(
            network_id=NETWORK,
            claim_id=request_id,
            request_id=request_id,
            player_id=player_id,
            game="rising-joker",
            tier="green",
            currency="EUR",
            stake_minor=10,
        )
    else:
        data = DebitWager(
            transaction_id=request_id, player_id=player_id, amount_minor=10, currency="EUR", game="rising-joker"
        )
    return _dumped(data, now, event_id)


def internal(topic: str, player_id: str, now: datetime, huge: int, ids: tuple[uuid.UUID, ...]) -> dict[str, Any]:
    """An internal command or a service's own fact, well formed, with an amount no honest writer would send."""
    wager, transaction, event_id = ids
    if topic in ("jackpot.commands", "jackpot.internal"):
        data: Any = jp.Contribute(
            network_id=NETWORK,
            contribution_id=wager,
            game="rising-joker",
            currency="EUR",
            stake_minor=huge,
            contribution_micro=huge,
            player_id=player_id,
        )
    elif topic == "wallet.seamless":  # an operator's win acknowledged, far past any round's
        data = SeamlessWinAcknowledged(
            wager_id=wager,
            player_id=player_id,
            operator_id="fz-op",
            recorded_at=now,
            settlement_id=transaction,
            amount_minor=huge if huge >= 0 else -huge,
            currency="EUR",
            balance_after_minor=huge if huge >= 0 else -huge,
        )
    elif topic == "wallet.seamless-calls":
        data = _outcome(player_id, wager, huge)
    elif topic in ("wallet.commands", "wallet.internal"):
        data = SettleWager(
            transaction_id=transaction,
            player_id=player_id,
            wager_id=wager,
            currency="EUR",
            house_win_minor=huge,
            jackpot_win_minor=0,
            breakage_micro=0,
            contribution_micro=0,
            network_id=NETWORK,
        )
    else:
        data = Deposit(transaction_id=wager, player_id=player_id, amount_minor=huge, currency="EUR")
    return _dumped(data, now, event_id)


def other_type(topic: str, player_id: str, now: datetime, ids: tuple[uuid.UUID, uuid.UUID]) -> dict[str, Any]:
    """A well-formed message of the other seamless topic's type (an outcome on the facts' topic, a fact on the
    outcomes' topic): neither reader takes it there."""
    other = "wallet.seamless-calls" if topic == "wallet.seamless" else "wallet.seamless"
    return valid(other, player_id, now, ids)


def _outcome(player_id: str, call_id: uuid.UUID, balance_minor: int) -> RecordCallOutcome:
    return RecordCallOutcome(
        player_id=player_id,
        call_id=call_id,
        attempt=1,
        status="OK",
        operator_status="RS_OK",
        balance_minor=balance_minor,
    )


def own_command(
    topic: str, player_id: str, now: datetime, amount_minor: int, operator_id: str | None, ids: tuple[uuid.UUID, ...]
) -> dict[str, Any]:
    """What the outside role that writes `topic` may send: a cashier's deposit or withdrawal, an operator's command
    that changes a pool's status (the kind the signature class signs with the writer's own key)."""
    command_id, event_id = ids
    if topic == "wallet.commands":
        kind = Deposit if amount_minor % 2 else Withdraw
        data: Any = kind(
            transaction_id=command_id,
            player_id=player_id,
            amount_minor=amount_minor,
            currency="EUR",
            operator_id=operator_id,
        )
    else:
        kind = jp.DisablePool if amount_minor % 2 else jp.DecommissionPool
        extra = {} if kind is jp.DisablePool else {"transfer_to_pool_id": "dm-red"}
        data = kind(network_id=NETWORK, command_id=command_id, pool_id=POOL, reason="fuzz", **extra)
    return _dumped(data, now, event_id)
