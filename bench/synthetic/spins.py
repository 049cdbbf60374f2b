"""Consistent synthetic histories for audit tests, benches and demos: what the four services would have written, built
with the shared payload models (no Kafka here; an adapter produces them). Randomness and time come in as arguments."""

# `StandInEngine` is a tiny GameEngine for tests while (or instead of) the real engines: deterministic from the RNG,
# with wins, breakage, claims and a per-player state, so every audit rule has something to bite on.

from __future__ import annotations

import hashlib
import random
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from services.audit.core.collect import RawRecord
from services.audit.core.rederive import EngineLookup
from games import GameResult
from games.pins import pins
from games.rng import SpinRng
from shared.events import Envelope, broker_time, derived_id, envelope, encode
from shared.events import jackpot as jp
from shared.events import spin as sp
from shared.events import wallet as wl
from shared.money import MICRO_PER_MINOR, PPM, contribution_micro, split_by_weights
from shared.pools import NetworkConfig, PoolsConfig, load_pools
from shared.records import headers_as_owner


@dataclass(frozen=True)
class StandInEngine:
    """A stand-in game: 3 symbols drawn per spin; pays, breaks cents, claims tiers and counts spins in its state."""

    game: str
    currency: str
    model_version: str = "stand-in-v1"
    model_sha256: str = hashlib.sha256(b"stand-in-v1").hexdigest()
    outcome_manifest_sha256: str = hashlib.sha256(b"bench.synthetic.spins.StandInEngine").hexdigest()
    stakes_minor: tuple[int, ...] = (10, 50, 100, 200, 2000)
    tiers: tuple[str, ...] = ("green",)

    def initial_state(self) -> dict[str, Any]:
        return {"spins": 0}

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        return None

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        board = [rng.below(5) for _ in range(3)]
        same = board[0] == board[1] == board[2]
        factor_hundredths = 205 if same else (5 if board[0] == board[1] else 0)
        exact_micro = factor_hundredths * stake_minor * (MICRO_PER_MINOR // 100)
        win_minor, breakage_micro = divmod(exact_micro, MICRO_PER_MINOR)
        claims = (self.tiers[rng.below(len(self.tiers))],) if factor_hundredths == 0 and rng.below(8) == 0 else ()
        outcome = {"board": board, "factor_hundredths": factor_hundredths, "claims": list(claims)}
        return GameResult(win_minor, breakage_micro, claims, outcome, {"spins": state.get("spins", 0) + 1})


def stand_in_lookup(game: str, model_version: str) -> StandInEngine:
    tiers = {"rising-joker": ("green", "blue", "red", "diamond"), "stjernestoev": ("jackpot", "supernova")}[game]
    currency = {"rising-joker": "EUR", "stjernestoev": "DKK"}[game]
    if model_version != "stand-in-v1":
        raise KeyError(f"unknown model version {model_version!r}")
    return StandInEngine(game, currency, tiers=tiers)


@dataclass
class Emitted:
    topic: str
    envelope: Envelope[Any]
    timestamp_ms: int


@dataclass
class SyntheticPlatform:
    """Plays deposits and spins the way the services do and keeps every event they would have written, in order."""

    rng: random.Random
    lookup: EngineLookup = stand_in_lookup
    config: PoolsConfig = field(default_factory=load_pools)
    now_ms: int = 1_767_225_600_000  # midnight UTC at the start of the synthetic history's first day
    step_ms: int = 1_000
    emitted: list[Emitted] = field(default_factory=list)
    balances_minor: dict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    levels_micro: dict[str, int] = field(default_factory=dict)
    states: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    model_versions: dict[str, str] = field(
        default_factory=lambda: {"rising-joker": "stand-in-v1", "stjernestoev": "stand-in-v1"}
    )

    def _emit(self, topic: str, data: Any, *parts: object) -> Envelope[Any]:
        self.now_ms += self.step_ms
        if topic == "wallet.events" and getattr(data, "command_fingerprint", "") is None:
            # The wallet remembers each fact with its command's content hash; there is no command here, so the
            # stand-in content is the fact's type and transaction id (a wallet can then fold these events).
            content = f"{data.TYPE}:{data.transaction_id}".encode()
            data = data.model_copy(update={"command_fingerprint": hashlib.sha256(content).hexdigest()})
        message = envelope(
            data, source=f"bench/synthetic/{topic}", time=self._now(), id=derived_id("synthetic", *parts)
        )
        self.emitted.append(Emitted(topic, message, self.now_ms))
        return message

    def _now(self) -> datetime:
        return broker_time(self.now_ms)

    def deposit(self, player_id: str, amount_minor: int, currency: str) -> None:
        transaction_id = uuid.UUID(int=self.rng.getrandbits(128))
        self.balances_minor[(player_id, currency)] += amount_minor
        data = wl.Deposited(
            transaction_id=transaction_id,
            player_id=player_id,
            recorded_at=self._now(),
            currency=currency,
            postings=_postings(
                (wl.player_account(player_id), amount_minor * MICRO_PER_MINOR),
                (wl.CASHIER, -amount_minor * MICRO_PER_MINOR),
            ),
            balance_after_minor=self.balances_minor[(player_id, currency)],
            amount_minor=amount_minor,
        )
        self._emit("wallet.events", data, transaction_id, "deposited")

    def spin(self, player_id: str, game: str, stake_minor: int, operator_id: str | None = "op-1") -> uuid.UUID:
        network = self.config.network_for_game(game)
        request_id = uuid.UUID(int=self.rng.getrandbits(128))
        engine = self.lookup(game, self.model_versions[game])
        state_before = self.states.get((player_id, game), engine.initial_state())
        stake_minor = engine.locked_stake(state_before) or stake_minor  # a locked bonus ring keeps its stake
        self._debit(request_id, player_id, game, stake_minor, network.currency, operator_id)
        seed = self.rng.getrandbits(256).to_bytes(32, "big").hex()
        self._emit(
            "spin.journal",
            sp.SeedDrawn(
                request_id=request_id,
                player_id=player_id,
                game=game,
                stake_minor=stake_minor,
                currency=network.currency,
                model_version=engine.model_version,
                seed=seed,
                state_before=state_before,
                drawn_at=self._now(),
            ),
            request_id,
            "seed",
        )
        result = engine.play(dict(state_before), stake_minor, SpinRng.from_hex(seed))
        self._contribute(network, request_id, player_id, game, stake_minor, result.breakage_micro, operator_id)
        awards = tuple(
            self._claim(network, request_id, player_id, tier, stake_minor, operator_id) for tier in result.claims
        )
        jackpot_minor = sum(award.amount_minor for award in awards)
        contribution = network.wager_contribution_micro(stake_minor)
        balance = self._settle(request_id, player_id, network, result, jackpot_minor, contribution)
        self.states[(player_id, game)] = result.state_after
        self._emit(
            "spin.events",
            sp.SpinSettled(
                request_id=request_id,
                player_id=player_id,
                game=game,
                stake_minor=stake_minor,
                currency=network.currency,
                win_minor=result.win_minor + jackpot_minor,
                house_win_minor=result.win_minor,
                jackpot_win_minor=jackpot_minor,
                breakage_micro=result.breakage_micro,
                contribution_micro=contribution,
                balance_after_minor=balance,
                model_version=engine.model_version,
                seed=seed,
                state_before=state_before,
                state_after=result.state_after,
                outcome=result.outcome,
                jackpot_awards=awards,
                operator_id=operator_id,
                settled_at=self._now(),
                **pins(engine),
            ),
            request_id,
            "settled",
        )
        return request_id

    def _debit(self, request_id, player_id, game, stake_minor, currency, operator_id) -> None:
        self.balances_minor[(player_id, currency)] -= stake_minor
        self._emit(
            "wallet.events",
            wl.WagerDebited(
                transaction_id=request_id,
                player_id=player_id,
                recorded_at=self._now(),
                currency=currency,
                postings=_postings(
                    (wl.player_account(player_id), -stake_minor * MICRO_PER_MINOR),
                    (wl.HOUSE, stake_minor * MICRO_PER_MINOR),
                ),
                balance_after_minor=self.balances_minor[(player_id, currency)],
                amount_minor=stake_minor,
                game=game,
                operator_id=operator_id,
            ),
            request_id,
            "debited",
        )

    def _open(self, network: NetworkConfig) -> None:
        for pool in network.pools:
            if pool.pool_id not in self.levels_micro:
                self._open_pool(network, pool.pool_id)

    def _open_pool(self, network: NetworkConfig, pool_id: str) -> None:
        """A pool starts at its seed with a PoolOpened, as the jackpot service opens it (so the service can fold it)."""
        seed_micro = network.pool(pool_id).seed_minor * MICRO_PER_MINOR
        self.levels_micro[pool_id] = seed_micro
        self._emit(
            "jackpot.events",
            jp.PoolOpened(
                network_id=network.network_id,
                recorded_at=self._now(),
                pool_id=pool_id,
                tier=network.pool(pool_id).tier,
                currency=network.currency,
                seed_micro=seed_micro,
                movement=jp.PoolMovement(
                    pool_id=pool_id, opening_micro=0, seeds_micro=seed_micro, closing_micro=seed_micro
                ),
            ),
            network.network_id,
            pool_id,
            "pool-opened",
        )

    def _reseed(self, network: NetworkConfig, pool_id: str, cause: uuid.UUID | None) -> None:
        seed_micro = network.pool(pool_id).seed_minor * MICRO_PER_MINOR
        opening = self.levels_micro[pool_id]
        if opening >= seed_micro:
            return
        top_up = seed_micro - opening
        self.levels_micro[pool_id] = seed_micro
        self._emit(
            "jackpot.events",
            jp.PoolReseeded(
                network_id=network.network_id,
                recorded_at=self._now(),
                pool_id=pool_id,
                currency=network.currency,
                seed_micro=top_up,
                cause_claim_id=cause,
                movement=jp.PoolMovement(
                    pool_id=pool_id, opening_micro=opening, seeds_micro=top_up, closing_micro=seed_micro
                ),
            ),
            pool_id,
            cause,
            "reseeded",
        )

    def _contribute(self, network, request_id, player_id, game, stake_minor, breakage_micro, operator_id) -> None:
        self._open(network)
        rates = [pool.contribution_ppm for pool in network.pools]
        breakage_parts = split_by_weights(breakage_micro, rates) if breakage_micro else [0] * len(rates)
        parts = [contribution_micro(stake_minor, rate) + extra for rate, extra in zip(rates, breakage_parts)]
        movements = []
        for pool, part in zip(network.pools, parts):
            opening = self.levels_micro[pool.pool_id]
            self.levels_micro[pool.pool_id] = opening + part
            movements.append(
                jp.PoolMovement(
                    pool_id=pool.pool_id, opening_micro=opening, contributions_micro=part, closing_micro=opening + part
                )
            )
        applied = jp.AppliedContribution(
            contribution_id=request_id,
            game=game,
            player_id=player_id,
            operator_id=operator_id,
            stake_minor=stake_minor,
            amount_micro=sum(parts),
        )
        self._emit(
            "jackpot.events",
            jp.ContributionsApplied(
                network_id=network.network_id,
                recorded_at=self._now(),
                currency=network.currency,
                contributions=(applied,),
                movements=tuple(movements),
            ),
            request_id,
            "applied",
        )

    def _claim(self, network, request_id, player_id, tier, stake_minor, operator_id) -> sp.JackpotAward:
        pool = network.pool_for_tier(tier)
        claim_id = derived_id(request_id, "claim", tier)
        level = self.levels_micro[pool.pool_id]
        if pool.payout.policy == "full":
            share_ppm, amount_minor = PPM, level // MICRO_PER_MINOR
        else:
            full = pool.payout.full_share_stake_minor
            share_ppm = min(PPM, stake_minor * PPM // full)
            amount_minor = level * min(stake_minor, full) // (full * MICRO_PER_MINOR)
        after = level - amount_minor * MICRO_PER_MINOR
        self.levels_micro[pool.pool_id] = after
        self._emit(
            "jackpot.events",
            jp.JackpotWon(
                network_id=network.network_id,
                recorded_at=self._now(),
                claim_id=claim_id,
                request_id=request_id,
                player_id=player_id,
                operator_id=operator_id,
                pool_id=pool.pool_id,
                tier=tier,
                currency=network.currency,
                stake_minor=stake_minor,
                share_ppm=share_ppm,
                amount_minor=amount_minor,
                level_before_micro=level,
                level_after_micro=after,
                movement=jp.PoolMovement(
                    pool_id=pool.pool_id,
                    opening_micro=level,
                    paid_micro=amount_minor * MICRO_PER_MINOR,
                    closing_micro=after,
                ),
            ),
            claim_id,
            "won",
        )
        self._reseed(network, pool.pool_id, claim_id)
        return sp.JackpotAward(
            claim_id=claim_id,
            network_id=network.network_id,
            pool_id=pool.pool_id,
            tier=tier,
            amount_minor=amount_minor,
            share_ppm=share_ppm,
        )

    def _settle(self, request_id, player_id, network, result: GameResult, jackpot_minor: int, contribution: int) -> int:
        win_minor = result.win_minor + jackpot_minor
        self.balances_minor[(player_id, network.currency)] += win_minor
        balance = self.balances_minor[(player_id, network.currency)]
        self._emit(
            "wallet.events",
            wl.WagerSettled(
                transaction_id=derived_id(request_id, "settle"),
                player_id=player_id,
                recorded_at=self._now(),
                currency=network.currency,
                postings=_postings(
                    (wl.player_account(player_id), win_minor * MICRO_PER_MINOR),
                    (wl.HOUSE, -(result.win_minor * MICRO_PER_MINOR + result.breakage_micro + contribution)),
                    (
                        wl.jackpot_account(network.network_id),
                        contribution + result.breakage_micro - jackpot_minor * MICRO_PER_MINOR,
                    ),
                ),
                balance_after_minor=balance,
                wager_id=request_id,
                win_minor=win_minor,
                house_win_minor=result.win_minor,
                jackpot_win_minor=jackpot_minor,
                breakage_micro=result.breakage_micro,
                contribution_micro=contribution,
                network_id=network.network_id,
            ),
            request_id,
            "wager-settled",
        )
        return balance

    def records(self) -> list[RawRecord]:
        """The history as raw records, one partition per topic, offsets in emission order."""
        offsets: dict[str, int] = defaultdict(int)
        out = []
        for item in self.emitted:
            out.append(
                RawRecord(
                    item.topic,
                    0,
                    offsets[item.topic],
                    item.timestamp_ms,
                    item.envelope.key,
                    encode(item.envelope),
                    tuple(headers_as_owner(item.topic, "synthetic", item.envelope.key, encode(item.envelope))),
                )
            )
            offsets[item.topic] += 1
        return out


def _postings(*pairs: tuple[str, int]) -> tuple[wl.Posting, ...]:
    return tuple(wl.Posting(account=account, amount_micro=amount) for account, amount in pairs if amount != 0)


def play_history(
    seed: int,
    players: int = 3,
    spins_per_player: int = 40,
    lookup: EngineLookup = stand_in_lookup,
    model_versions: dict[str, str] | None = None,
) -> SyntheticPlatform:
    """A small consistent history over both games: deposits, then spins at varied stakes."""
    platform = _platform(seed, lookup, model_versions)
    for _ in _play(platform, players, spins_per_player):
        pass
    return platform


def history_in_rounds(
    seed: int, players: int, spins_per_player: int, lookup: EngineLookup = stand_in_lookup
) -> Iterator[list[Emitted]]:
    """The same history as `play_history`, handed over a round at a time (the deposits, then one spin per player) and
    forgotten once handed: memory stays at one round's events however long the history (a benchmark's 1M spins)."""
    platform = _platform(seed, lookup, None)
    for _ in _play(platform, players, spins_per_player):
        handed, platform.emitted = platform.emitted, []
        yield handed


def _platform(seed: int, lookup: EngineLookup, model_versions: dict[str, str] | None) -> SyntheticPlatform:
    platform = SyntheticPlatform(random.Random(seed), lookup)
    if model_versions:
        platform.model_versions = dict(model_versions)
    return platform


def _play(platform: SyntheticPlatform, players: int, spins_per_player: int) -> Iterator[None]:
    """Plays the history on `platform`, pausing after the deposits and after each round."""
    stakes = {"rising-joker": (10, 50, 200, 2000), "stjernestoev": (50, 100, 200)}
    for index in range(players):
        player = f"p-{index}"
        platform.deposit(player, 500_000, "EUR")
        platform.deposit(player, 500_000, "DKK")
    yield
    for round_ in range(spins_per_player):
        for index in range(players):
            game = ("rising-joker", "stjernestoev")[(round_ + index) % 2]
            platform.spin(f"p-{index}", game, platform.rng.choice(stakes[game]))
        yield
