"""JackpotWon records as the jackpot service writes them on jackpot.events, and the proof a settlement carries of one,
made the way the jackpot and the spin service make it (records.proof_header, then records.forwarded_proof)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from shared import records
from shared.events import encode, envelope
from shared.events.envelope import broker_time
from shared.events.jackpot import JackpotWon, PoolMovement
from shared.events.wallet import JackpotWonProof
from shared.topics import JACKPOT_EVENTS

NOW_MS = 1_800_000_000_000


@dataclass(frozen=True)
class Written:
    """A record as a consumer reads it (key, value, headers; where it sits does not matter here)."""

    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]] = field(default_factory=list)
    topic: str = JACKPOT_EVENTS
    partition: int = 0
    offset: int = 0


def jackpot_won(
    wager_id: uuid.UUID,
    player_id: str,
    amount_minor: int,
    stake_minor: int,
    *,
    network_id: str = "net-1",
    currency: str = "EUR",
    claim_id: uuid.UUID | None = None,
) -> JackpotWon:
    level_micro = 10**12
    return JackpotWon(
        network_id=network_id,
        recorded_at=broker_time(NOW_MS),
        claim_id=claim_id or uuid.uuid5(wager_id, "claim"),
        request_id=wager_id,
        player_id=player_id,
        pool_id="dm-green",
        tier="green",
        currency=currency,
        stake_minor=stake_minor,
        share_ppm=100_000,
        amount_minor=amount_minor,
        level_before_micro=level_micro,
        level_after_micro=level_micro - amount_minor * 10**6,
        movement=PoolMovement(
            pool_id="dm-green",
            opening_micro=level_micro,
            paid_micro=amount_minor * 10**6,
            closing_micro=level_micro - amount_minor * 10**6,
        ),
    )


def written_by(writer: str, won: JackpotWon) -> Written:
    """The JackpotWon on jackpot.events as `writer` writes it (signed with its key when the environment has a signing
    directory, as every writer signs)."""
    value = encode(envelope(won, source=f"reelstream/{writer}", time=won.recorded_at))
    key = won.network_id.encode()
    return Written(key, value, records.signed_headers(writer, JACKPOT_EVENTS, key, value))


def proof_of(record: Written) -> JackpotWonProof:
    """What the settlement carries of `record`: through the jackpot's copy's proof header and the spin's read."""
    forwarded = Written(b"player", record.value, [records.proof_header(record)])
    proof = records.forwarded_proof(forwarded)
    assert proof is not None
    return proof


def proven(won: JackpotWon, writer: str = "jackpot") -> JackpotWonProof:
    return proof_of(written_by(writer, won))
