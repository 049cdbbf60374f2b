"""A settlement pays pool shares only with the jackpot's own JackpotWon for each, answering this very wager once each
and summing to its jackpot amount. The loop decodes each JackpotWon and judges its signature once, as it reads the
command (`CheckedAward`, the message's provenance); the core weighs what it found."""

from __future__ import annotations

from collections.abc import Sequence

from shared.decision import CheckedAward
from shared.events.jackpot import JackpotWon
from shared.events.wallet import SettleWager

# The JackpotWons a settlement carries as the loop checked them, in order (None: it checked none).
Awards = Sequence[CheckedAward] | None


def unproven(command: SettleWager, stake_minor: int, awards: Awards) -> str | None:
    """Why the settlement's jackpot_win_minor is not what the jackpot awarded this wager, or None."""
    proofs = command.jackpot_proofs or ()
    if not proofs:
        if command.jackpot_win_minor == 0:
            return None
        return f"a jackpot amount of {command.jackpot_win_minor} without the jackpot's JackpotWon"
    if awards is None or len(awards) != len(proofs):
        return "its JackpotWons were not checked as the command was read, so none is proven"
    claims: set[str] = set()
    total_minor = 0
    for index, award in enumerate(awards):
        won = award.won
        if not isinstance(won, JackpotWon):
            return f"proof {index} is not a JackpotWon"
        if problem := _foreign(command, stake_minor, won):
            return f"proof {index} (claim {won.claim_id}) {problem}"
        if str(won.claim_id) in claims:
            return f"claim {won.claim_id} is proven twice"
        claims.add(str(won.claim_id))
        total_minor += won.amount_minor
    if total_minor != command.jackpot_win_minor:
        return f"the JackpotWon amounts sum to {total_minor}, the settlement pays {command.jackpot_win_minor}"
    for index, award in enumerate(awards):
        if award.problem is not None:
            return f"proof {index} is not the jackpot's record: {award.problem}"
    return None


def _foreign(command: SettleWager, stake_minor: int, won: JackpotWon) -> str | None:
    """Why the award is not one of this wager's (another request, player, network, currency or stake), or None."""
    expected = {
        "request_id": command.wager_id,
        "player_id": command.player_id,
        "network_id": command.network_id,
        "currency": command.currency,
        "stake_minor": stake_minor,
    }
    for name, value in expected.items():
        if getattr(won, name) != value:
            return f"answers {name} {getattr(won, name)!s:.64}, not {value!s:.64}"
    return None
