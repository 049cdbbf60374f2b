"""A settlement pays pool shares only with the jackpot's own JackpotWon for each, answering this very wager once each
and summing to its jackpot amount; the signature check is the adapter's port (`ProofCheck`)."""

from __future__ import annotations

from collections.abc import Callable

from shared.events import DecodeError, decode
from shared.events.jackpot import JackpotWon
from shared.events.wallet import JackpotWonProof, SettleWager

# Why a JackpotWon the settlement carries is not the jackpot service's signed record, or None.
ProofCheck = Callable[[JackpotWonProof], str | None]


def no_proof_check(proof: JackpotWonProof) -> str | None:
    """The default port: nothing is verified, so nothing is proven (a caller that pays jackpots must bind a check)."""
    return "no check of the jackpot's signature is bound"


def unproven(command: SettleWager, stake_minor: int, check: ProofCheck) -> str | None:
    """Why the settlement's jackpot_win_minor is not what the jackpot awarded this wager, or None."""
    proofs = command.jackpot_proofs or ()
    if not proofs:
        if command.jackpot_win_minor == 0:
            return None
        return f"a jackpot amount of {command.jackpot_win_minor} without the jackpot's JackpotWon"
    claims: set[str] = set()
    total_minor = 0
    for index, proof in enumerate(proofs):
        won = _won(proof)
        if won is None:
            return f"proof {index} is not a JackpotWon"
        if problem := _foreign(command, stake_minor, won):
            return f"proof {index} (claim {won.claim_id}) {problem}"
        if str(won.claim_id) in claims:
            return f"claim {won.claim_id} is proven twice"
        claims.add(str(won.claim_id))
        total_minor += won.amount_minor
    if total_minor != command.jackpot_win_minor:
        return f"the JackpotWon amounts sum to {total_minor}, the settlement pays {command.jackpot_win_minor}"
    for index, proof in enumerate(proofs):  # last: the one costly step, only for a settlement consistent otherwise
        if problem := check(proof):
            return f"proof {index} is not the jackpot's record: {problem}"
    return None


def _won(proof: JackpotWonProof) -> JackpotWon | None:
    try:
        data = decode(proof.value.encode(), expect_kind="event").data
    except DecodeError:
        return None
    return data if isinstance(data, JackpotWon) else None


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
