"""Jackpot messages: contributions and claims on jackpot.internal (the spin service's; keyed by network id, so totally
ordered per network), pool admin commands on jackpot.commands (the operator's, same keys and partitions), pool facts
on jackpot.events, and the compacted live meters on jackpot.meters (keyed by pool id)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import Field

from shared.events.base import CommandData, CurrencyCode, EventData, Ident, Int, Micro, Minor, Part, PlayerId
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_INTERNAL, JACKPOT_METERS


class _JackpotCommand(CommandData):
    SUBJECT_FIELD = "network_id"
    TOPIC = JACKPOT_COMMANDS

    network_id: Ident


class _InternalCommand(_JackpotCommand):
    """The spin service's commands: on jackpot.internal, which only the spin service may write."""

    TOPIC = JACKPOT_INTERNAL


class Contribute(_InternalCommand):
    """Spin service: one wager's contribution to a network (id = the wager id, so it is counted once).

    The jackpot service splits `stake_minor` by each pool's contribution_ppm, and `breakage_micro` (Rising Joker's
    sub-cent remainder) by the same rates; `contribution_micro` is the spin service's total, checked to be equal.
    """

    TYPE = "reelstream.jackpot.contribute.v1"
    PACKABLE = True  # a spin transaction's contributions to one network, in order: one record
    contribution_id: uuid.UUID
    game: Ident
    currency: CurrencyCode
    stake_minor: Minor
    contribution_micro: Micro
    breakage_micro: Micro = 0
    player_id: PlayerId
    operator_id: Ident | None = None


class Claim(_InternalCommand):
    """Spin service: a spin won a tier of the network; the jackpot service answers with JackpotWon or ClaimRejected."""

    TYPE = "reelstream.jackpot.claim.v1"
    claim_id: uuid.UUID
    request_id: uuid.UUID
    player_id: PlayerId
    game: Ident
    tier: Ident
    currency: CurrencyCode
    stake_minor: Minor
    operator_id: Ident | None = None


class PoolMovement(Part):
    """One pool's change in one event: opening + contributions + seeds - paid = closing, exactly, in micro-units.

    Only a decommissioning moves a balance between pools: transferred_in/out are 0 on every other event, and the
    identity is then opening + contributions + seeds + transferred_in - transferred_out - paid = closing.
    """

    pool_id: str
    opening_micro: Micro
    contributions_micro: Micro = 0
    seeds_micro: Micro = 0
    paid_micro: Micro = 0
    closing_micro: Micro
    transferred_in_micro: Micro = 0
    transferred_out_micro: Micro = 0

    def balanced(self) -> bool:
        inflow = self.contributions_micro + self.seeds_micro + self.transferred_in_micro
        outflow = self.paid_micro + self.transferred_out_micro
        return self.opening_micro + inflow - outflow == self.closing_micro


class AppliedContribution(Part):
    contribution_id: uuid.UUID
    game: str
    player_id: str
    operator_id: str | None = None
    stake_minor: Minor
    amount_micro: Micro
    # The part of amount_micro that came from the spin's breakage (the rest is stake x rate).
    breakage_micro: Micro = 0


class _JackpotEvent(EventData):
    SUBJECT_FIELD = "network_id"
    TOPIC = JACKPOT_EVENTS

    network_id: str
    recorded_at: datetime


class ContributionsApplied(_JackpotEvent):
    """Contributions applied to a network's pools, in partition order: one a wager (a record written before the seam
    may hold a run of up to 1,000); the loop packs consecutive ones into one batch-envelope record."""

    TYPE = "reelstream.jackpot.contributions-applied.v1"
    PACKABLE = True
    currency: str
    contributions: tuple[AppliedContribution, ...]
    movements: tuple[PoolMovement, ...]


class JackpotWon(_JackpotEvent):
    """A claim answered: the pool share the spin service pays in its one settlement."""

    TYPE = "reelstream.jackpot.won.v1"
    claim_id: uuid.UUID
    request_id: uuid.UUID
    player_id: str
    operator_id: str | None = None
    pool_id: str
    tier: str
    currency: str
    stake_minor: Minor
    share_ppm: Int
    amount_minor: Minor
    level_before_micro: Micro
    level_after_micro: Micro
    movement: PoolMovement


class PoolReseeded(_JackpotEvent):
    """The operator put the seed back after a win (operator-funded; not part of the players' RTP)."""

    TYPE = "reelstream.jackpot.pool-reseeded.v1"
    pool_id: str
    currency: str
    seed_micro: Micro
    cause_claim_id: uuid.UUID | None = None
    movement: PoolMovement


class ClaimRejected(_JackpotEvent):
    TYPE = "reelstream.jackpot.claim-rejected.v1"
    claim_id: uuid.UUID
    request_id: uuid.UUID
    player_id: str
    tier: str
    code: str
    message: str
    stake_minor: Minor | None = None
    pool_id: str | None = None


CLAIM_REJECTION_CODES = (
    "UNKNOWN_TIER",
    "WRONG_GAME",
    "CURRENCY_MISMATCH",
    "POOL_DISABLED",
    "POOL_DECOMMISSIONED",
    "CLAIM_EXPIRED",
    "NO_DROP",
)


class _PoolCommand(_JackpotCommand):
    """Ops: an administrative command on one pool; `command_id` makes a repeat change nothing."""

    command_id: uuid.UUID
    pool_id: Ident
    reason: str = Field(default="", max_length=500)


class OpenPool(_PoolCommand):
    """Open a configured pool at its seed before any wager reaches it (a network's pools also open on first use)."""

    TYPE = "reelstream.jackpot.open-pool.v1"


class DisablePool(_PoolCommand):
    """Stop paying a pool (claims get ClaimRejected POOL_DISABLED); contributions keep accruing to it."""

    TYPE = "reelstream.jackpot.disable-pool.v1"


class ResumePool(_PoolCommand):
    """Pay a disabled pool again."""

    TYPE = "reelstream.jackpot.resume-pool.v1"


class DecommissionPool(_PoolCommand):
    """Close a pool for good: its balance and later contributions move to `transfer_to_pool_id` (same network)."""

    TYPE = "reelstream.jackpot.decommission-pool.v1"
    transfer_to_pool_id: Ident


class PoolOpened(_JackpotEvent):
    """A pool started at its seed (operator-funded: the movement's seeds)."""

    TYPE = "reelstream.jackpot.pool-opened.v1"
    pool_id: str
    tier: str
    currency: str
    seed_micro: Micro
    command_id: uuid.UUID | None = None
    movement: PoolMovement
    # must-drop-by-amount | must-drop-by-time | reserve (hidden, funds reseeds); absent for a random pool, so the
    # events of pools-v1 stay byte for byte what they were.
    kind: str | None = None


class DropPointCommitted(_JackpotEvent):
    """A must-drop pool's hidden drop point for one cycle, fixed before any wager of the cycle is applied.

    `commitment` = SHA-256 over the drop value (8 bytes, big-endian: minor units for a drop by amount, epoch ms for a
    drop by time) followed by the 32-byte salt; `sealed` is both, encrypted under the jackpot service's own key
    (AES-256-GCM, base64 of nonce ‖ ciphertext), so a restore can read them and nobody else can.
    """

    TYPE = "reelstream.jackpot.drop-point-committed.v1"
    pool_id: str
    kind: str
    cycle: Int
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    sealed: str = Field(max_length=200)
    ceiling_micro: Micro
    window_start: datetime | None = None
    window_end: datetime | None = None


class DropRevealed(_JackpotEvent):
    """The drop happened: the drop value and salt of the cycle, so anyone can recompute the commitment."""

    TYPE = "reelstream.jackpot.drop-revealed.v1"
    pool_id: str
    kind: str
    cycle: Int
    commitment: str
    drop_value: Int
    salt: str
    claim_id: uuid.UUID
    contribution_id: uuid.UUID
    level_micro: Micro


class PoolFundedFromReserve(_JackpotEvent):
    """Part of a must-drop pool's reseed taken from the network's hidden reserve pool (movements: out, in)."""

    TYPE = "reelstream.jackpot.pool-funded-from-reserve.v1"
    pool_id: str
    reserve_pool_id: str
    amount_micro: Micro
    cause_claim_id: uuid.UUID
    movements: tuple[PoolMovement, ...]


class PoolStatusChanged(_JackpotEvent):
    """A pool was disabled, resumed or decommissioned; a decommissioning carries both pools' movements."""

    TYPE = "reelstream.jackpot.pool-status-changed.v1"
    pool_id: str
    command_id: uuid.UUID
    status: Literal["open", "disabled", "decommissioned"]
    reason: str = ""
    transfer_to_pool_id: str | None = None
    movements: tuple[PoolMovement, ...] = ()


class PoolCommandRejected(_JackpotEvent):
    """An administrative command that does not apply (unknown pool, wrong status, bad transfer target)."""

    TYPE = "reelstream.jackpot.pool-command-rejected.v1"
    command_id: uuid.UUID
    pool_id: str
    command_type: str
    code: str
    message: str


class JackpotMeter(EventData):
    """The live level of one pool, rounded down to the minor unit (compacted topic: the latest per pool)."""

    TYPE = "reelstream.jackpot.meter.v1"
    SUBJECT_FIELD = "pool_id"
    TOPIC = JACKPOT_METERS

    pool_id: str
    network_id: str
    currency: str
    level_minor: Minor
    as_of: datetime
    kind: str | None = None  # absent for a random pool (the meters of pools-v1 are unchanged)
    # Must-drop pools: the ceiling ("must drop before ..."), the current cycle's commitment, a time pool's deadline.
    ceiling_minor: Minor | None = None
    commitment: str | None = None
    cycle: Int | None = None
    drop_by: datetime | None = None
