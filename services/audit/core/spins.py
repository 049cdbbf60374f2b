"""Every spin, checked: re-derived from its recorded inputs, against its seed in the journal, and against the wallet."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from services.audit.core.collect import Fact
from services.audit.core.findings import Discrepancy
from services.audit.core.ledger import Ledger
from services.audit.core.rederive import EngineLookup, as_json, compare_settled, first_difference, refused_pins, replay
from shared.events.spin import BonusRingForfeited, RemainderStranded, SeedDrawn, SpinSettled, SpinVoided
from shared.pools import PoolsConfig


@dataclass
class Spins:
    settled: dict[str, Fact] = field(default_factory=dict)  # request id -> spin.settled
    seeds: dict[str, Fact] = field(default_factory=dict)  # request id -> seed-drawn
    forfeits: dict[str, Fact] = field(default_factory=dict)  # request id -> bonus-ring-forfeited (the last one read)
    strands: dict[str, Fact] = field(default_factory=dict)  # request id -> remainder-stranded by its stake
    # (player, game) -> remainders the wallet credited (self-exclusion, closure), in journal order, until the chain
    # reaches the next seed journaled after them.
    pending: dict[tuple[str, str], list[Fact]] = field(default_factory=dict)
    claims: dict[str, tuple[str, ...]] = field(default_factory=dict)  # request id -> re-derived claim tiers
    last_state: dict[tuple[str, str], Any] = field(default_factory=dict)  # (player, game) -> state after, as JSON
    rederived: int = 0
    discrepancies: list[Discrepancy] = field(default_factory=list)


def check_spins(
    facts: list[Fact],
    ledger: Ledger,
    config: PoolsConfig,
    lookup: EngineLookup,
    in_scope: Any = lambda fact: True,
    spins: Spins | None = None,
    seamless: Collection[str] = frozenset(),
) -> Spins:
    """Re-derive every in-scope spin; chain states per player and game over the whole history read. `spins`: the
    state to continue from (an audit resumed from a checkpoint): its settled spins are checked against the wallet and
    the journal again, as the wallet's state has grown since. `seamless`: the requests whose stake a seamless
    operator's wallet holds, checked against their rounds instead of the ledger (core/seamless.py)."""
    spins = spins or Spins()
    spins.forfeits.update((str(f.data.request_id), f) for f in facts if isinstance(f.data, BonusRingForfeited))
    for fact in facts:
        if isinstance(fact.data, RemainderStranded) and fact.data.reason == "stake-change":
            spins.strands[str(fact.data.request_id)] = fact
        elif isinstance(fact.data, RemainderStranded):
            spins.pending.setdefault((fact.data.player_id, fact.data.game), []).append(fact)
    for fact in facts:
        if isinstance(fact.data, SeedDrawn):
            spins.seeds.setdefault(str(fact.data.request_id), fact)
    for fact in facts:
        data = fact.data
        if not isinstance(data, SpinSettled):
            continue
        request_id = str(data.request_id)
        if request_id in spins.settled:
            spins.discrepancies.append(
                _found("spin-settled-twice", fact, f"first at {spins.settled[request_id].where}")
            )
            continue
        spins.settled[request_id] = fact
        _check_chain(spins, fact, lookup)
        if in_scope(fact):
            _rederive(spins, fact, lookup, config)
    for fact in spins.settled.values():
        if in_scope(fact):
            _check_seed(spins, fact)
            if str(fact.data.request_id) not in seamless:
                _check_wallet(spins, fact, ledger, config)
    _rederive_unsettled(spins, lookup, config)
    _check_voided(spins, facts, ledger)
    return spins


def _check_voided(spins: Spins, facts: list[Fact], ledger: Ledger) -> None:
    """A voided spin's wager was refused: its outcome is never shown, and the wallet holds no wager for it (an
    incremental audit checks the voids it reads; the full audit every one)."""
    for fact in facts:
        if not isinstance(fact.data, SpinVoided):
            continue
        request_id = str(fact.data.request_id)
        if request_id in spins.settled:
            spins.discrepancies.append(
                _found("voided-outcome-shown", fact, f"settled at {spins.settled[request_id].where}")
            )
        if request_id in ledger.wagers:
            spins.discrepancies.append(_found("voided-wager-taken", fact, "the wallet debited the voided spin's wager"))


def _drop_tiers(config: PoolsConfig, game: str) -> tuple[str, ...]:
    """Every wager on a network with must-drop pools claims each of them (the jackpot answers won or NO_DROP)."""
    try:
        return tuple(pool.tier for pool in config.network_for_game(game).drop_pools())
    except KeyError:
        return ()


def _rederive(spins: Spins, fact: Fact, lookup: EngineLookup, config: PoolsConfig) -> None:
    data: SpinSettled = fact.data
    try:
        refused = refused_pins(lookup, data)
        if refused:
            spins.discrepancies.extend(_found("spin-pin-mismatch", fact, problem) for problem in refused)
            return
        result = replay(lookup, data.game, data.model_version, data.state_before, data.stake_minor, data.seed)
    except Exception as error:  # noqa: BLE001 - any failure to re-play is itself the finding
        spins.discrepancies.append(_found("spin-rederivation-failed", fact, f"{type(error).__name__}: {error}"))
        return
    spins.rederived += 1
    drop_tiers = _drop_tiers(config, data.game)
    spins.claims[str(data.request_id)] = tuple(result.claims) + drop_tiers
    for problem in compare_settled(data, result, drop_tiers):
        spins.discrepancies.append(_found("spin-rederivation-mismatch", fact, problem))
    jackpot_minor = sum(award.amount_minor for award in data.jackpot_awards)
    if data.jackpot_win_minor != jackpot_minor or data.win_minor != data.house_win_minor + data.jackpot_win_minor:
        spins.discrepancies.append(
            _found("spin-rederivation-mismatch", fact, "win_minor != house win + Σ jackpot awards")
        )


def _rederive_unsettled(spins: Spins, lookup: EngineLookup, config: PoolsConfig) -> None:
    """Spins in flight (seed drawn, not settled yet) are re-derived from the journal, so their claims are known."""
    for request_id, fact in spins.seeds.items():
        if request_id in spins.claims:
            continue
        data: SeedDrawn = fact.data
        try:
            result = replay(lookup, data.game, data.model_version, data.state_before, data.stake_minor, data.seed)
        except Exception:  # noqa: BLE001 - reported when the spin settles; an unsettled spin can claim nothing
            continue
        spins.claims[request_id] = tuple(result.claims) + _drop_tiers(config, data.game)


def _check_seed(spins: Spins, fact: Fact) -> None:
    data: SpinSettled = fact.data
    drawn = spins.seeds.get(str(data.request_id))
    if drawn is None:
        spins.discrepancies.append(_found("seed-mismatch", fact, "no seed-drawn fact in spin.journal for this request"))
        return
    for name in ("seed", "model_version", "stake_minor", "game", "player_id"):
        if getattr(drawn.data, name) != getattr(data, name):
            spins.discrepancies.append(_found("seed-mismatch", fact, f"{name} differs from the journal's seed-drawn"))
    if as_json(drawn.data.state_before) != as_json(data.state_before):
        spins.discrepancies.append(_found("seed-mismatch", fact, "state_before differs from the journal's seed-drawn"))


def _check_chain(spins: Spins, fact: Fact, lookup: EngineLookup) -> None:
    """The spin's state_before is the player's state after the previous spin, changed only by what the journal holds
    between them: a remainder the wallet credited, then this spin's forfeit of a ring or its stranded remainder."""
    data: SpinSettled = fact.data
    key, request_id = (data.player_id, data.game), str(data.request_id)
    if key in spins.last_state:
        expected = spins.last_state[key]
    else:
        try:
            expected = as_json(lookup(data.game, data.model_version).initial_state())
        except Exception:  # noqa: BLE001 - the re-derivation reports an unknown game or model
            expected = as_json(data.state_before)
    seed = spins.seeds.get(request_id)
    changes = _credited_before(spins, key, seed) + [spins.forfeits.get(request_id), spins.strands.get(request_id)]
    for change in changes:
        if change is None:
            continue
        if as_json(change.data.state_before) != expected:
            what = "forfeit" if isinstance(change.data, BonusRingForfeited) else "stranded remainder"
            spins.discrepancies.append(
                _found("state-chain-broken", change, f"{what}'s state_before is not the last state")
            )
        expected = as_json(change.data.state_after)
    difference = first_difference(expected, as_json(data.state_before), "state_before")
    if difference:
        spins.discrepancies.append(_found("state-chain-broken", fact, difference))
    spins.last_state[key] = as_json(data.state_after)


def _credited_before(spins: Spins, key: tuple[str, str], seed: Fact | None) -> list[Fact]:
    """The wallet's credits journaled before this spin's seed (taken off the pending list)."""
    pending = spins.pending.get(key, [])
    if seed is None:
        return []
    before = [f for f in pending if (f.partition, f.offset) < (seed.partition, seed.offset)]
    if before:
        spins.pending[key] = [f for f in pending if f not in before]
    return before


def state_now(spins: Spins, key: tuple[str, str]) -> Any:
    """The player's state after the chain read so far and every credit journaled after its last spin (None: none)."""
    if key not in spins.last_state:
        return None
    state = spins.last_state[key]
    for change in spins.pending.get(key, []):
        state = as_json(change.data.state_after)
    return state


def _check_wallet(spins: Spins, fact: Fact, ledger: Ledger, config: PoolsConfig) -> None:
    data: SpinSettled = fact.data
    wager = ledger.wagers.get(str(data.request_id))
    if wager is None:
        spins.discrepancies.append(_found("spin-without-debit", fact, "the wallet never debited this request"))
        return
    debit = wager.data
    if (debit.amount_minor, debit.currency, debit.game, debit.player_id) != (
        data.stake_minor,
        data.currency,
        data.game,
        data.player_id,
    ):
        spins.discrepancies.append(
            _found("spin-wallet-mismatch", fact, "stake, currency, game or player differs from the debit")
        )
    try:
        rate_micro = config.network_for_game(data.game).wager_contribution_micro(data.stake_minor)
    except KeyError:
        rate_micro = 0
    if data.contribution_micro != rate_micro:
        spins.discrepancies.append(
            _found(
                "spin-wallet-mismatch",
                fact,
                f"contribution {data.contribution_micro} micro, the pools' rates give {rate_micro}",
            )
        )
    if wager.settlement is None:
        detail = "the wager was refunded" if wager.refund is not None else "the wallet has not settled this wager"
        spins.discrepancies.append(_found("spin-unsettled-in-wallet", fact, detail))
        return
    settled = wager.settlement.data
    for name in (
        "win_minor",
        "house_win_minor",
        "jackpot_win_minor",
        "breakage_micro",
        "contribution_micro",
        "balance_after_minor",
    ):
        if getattr(settled, name) != getattr(data, name):
            spins.discrepancies.append(
                _found(
                    "spin-wallet-mismatch",
                    fact,
                    f"{name} {getattr(data, name)} in spin.settled, {getattr(settled, name)} in the wallet",
                )
            )


def _found(check: str, fact: Fact, detail: str) -> Discrepancy:
    data = fact.data
    return Discrepancy(
        check,
        f"spin {data.request_id}",
        f"{fact.envelope.type}: {detail}",
        event_id=fact.id,
        where=fact.where,
        at_ms=fact.timestamp_ms,
        player_id=data.player_id,
    )
