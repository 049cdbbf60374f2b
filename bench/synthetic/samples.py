"""Sample traffic for tests and the benchmark: a deterministic stream of contract events (ids derived from an index),
shaped like the real services' output — deposits, debits, seeds, contributions, settlements, wins, meters, refusals."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from shared.events import Envelope, derived_id, envelope
from shared.events import jackpot as jp
from shared.events import spin, wallet
from shared.money import contribution_micro
from shared.pools import load_pools

MICRO = 1_000_000
SOURCE = "reelstream-samples"


@dataclass(frozen=True)
class Sample:
    topic: str  # contract topic name (un-prefixed)
    envelope: Envelope[Any]


class SampleStream:
    """Spins of `players` players on the Rising Joker network; every `win_every`-th spin wins the green pool."""

    def __init__(self, start: datetime, players: int = 50, win_every: int = 97, tag: str = "s") -> None:
        self.now = start
        self.players = players
        self.win_every = win_every
        self.tag = tag
        self.network = load_pools().network_for_game("rising-joker")
        self.levels = {pool.pool_id: pool.seed_minor * MICRO for pool in self.network.pools}
        self.balances: dict[str, int] = {}
        self.spins = 0

    def _env(self, data: Any, *parts: object) -> Envelope[Any]:
        self.now += timedelta(milliseconds=1)
        return envelope(data, source=SOURCE, time=self.now, id=derived_id(self.tag, *parts))

    def spin(self, index: int) -> list[Sample]:
        player = f"{self.tag}-p{index % self.players:04d}"
        out: list[Sample] = []
        if player not in self.balances:
            out.append(self._deposit(player, 1_000_000))
        stake = 100 + (index % 5) * 20
        if index % 41 == 40:
            return out + [self._rejected(index, player, stake)]
        request = derived_id(self.tag, "request", index)
        out.append(self._debit(index, player, request, stake))
        out.append(
            Sample(
                "spin.journal",
                self._env(
                    spin.SeedDrawn(
                        request_id=request,
                        player_id=player,
                        game="rising-joker",
                        stake_minor=stake,
                        currency="EUR",
                        model_version="rising-joker-v1",
                        seed=f"{index:064x}",
                        state_before={"index": index},
                        drawn_at=self.now,
                    ),
                    "seed",
                    index,
                ),
            )
        )
        out.append(self._contribution(index, player, request, stake))
        won = self._win(index, player, request, stake) if index % self.win_every == self.win_every - 1 else []
        out += won
        jackpot_minor = won[0].envelope.data.amount_minor if won else 0
        out += self._settle(index, player, request, stake, house_win=(index % 3) * stake, jackpot=jackpot_minor)
        self.spins += 1
        return out

    def _deposit(self, player: str, amount: int) -> Sample:
        self.balances[player] = amount
        postings = (
            wallet.Posting(account=wallet.player_account(player), amount_micro=amount * MICRO),
            wallet.Posting(account=wallet.CASHIER, amount_micro=-amount * MICRO),
        )
        data = wallet.Deposited(
            transaction_id=derived_id(self.tag, "deposit", player),
            player_id=player,
            recorded_at=self.now,
            currency="EUR",
            postings=postings,
            balance_after_minor=amount,
            amount_minor=amount,
        )
        return Sample("wallet.events", self._env(data, "deposited", player))

    def _rejected(self, index: int, player: str, stake: int) -> Sample:
        data = spin.SpinRejected(
            request_id=derived_id(self.tag, "request", index),
            player_id=player,
            code="LIMIT_EXCEEDED",
            message="loss limit reached",
            game="rising-joker",
            stake_minor=stake,
        )
        return Sample("spin.events", self._env(data, "rejected", index))

    def _debit(self, index: int, player: str, request: uuid.UUID, stake: int) -> Sample:
        self.balances[player] -= stake
        postings = (
            wallet.Posting(account=wallet.player_account(player), amount_micro=-stake * MICRO),
            wallet.Posting(account=wallet.HOUSE, amount_micro=stake * MICRO),
        )
        data = wallet.WagerDebited(
            transaction_id=request,
            player_id=player,
            recorded_at=self.now,
            currency="EUR",
            postings=postings,
            balance_after_minor=self.balances[player],
            amount_minor=stake,
            game="rising-joker",
            operator_id="op-1",
        )
        return Sample("wallet.events", self._env(data, "debited", index))

    def _contribution(self, index: int, player: str, request: uuid.UUID, stake: int) -> Sample:
        movements, total = [], 0
        for pool in self.network.pools:
            amount = contribution_micro(stake, pool.contribution_ppm)
            opening = self.levels[pool.pool_id]
            self.levels[pool.pool_id] = opening + amount
            total += amount
            movements.append(
                jp.PoolMovement(
                    pool_id=pool.pool_id,
                    opening_micro=opening,
                    contributions_micro=amount,
                    closing_micro=opening + amount,
                )
            )
        applied = jp.AppliedContribution(
            contribution_id=request,
            game="rising-joker",
            player_id=player,
            operator_id="op-1",
            stake_minor=stake,
            amount_micro=total,
        )
        data = jp.ContributionsApplied(
            network_id=self.network.network_id,
            recorded_at=self.now,
            currency="EUR",
            contributions=(applied,),
            movements=tuple(movements),
        )
        return Sample("jackpot.events", self._env(data, "contributed", index))

    def _win(self, index: int, player: str, request: uuid.UUID, stake: int) -> list[Sample]:
        pool = self.network.pools[0]
        level = self.levels[pool.pool_id]
        paid = level - level % MICRO
        claim = derived_id(self.tag, "claim", index)
        won_move = jp.PoolMovement(
            pool_id=pool.pool_id, opening_micro=level, paid_micro=paid, closing_micro=level - paid
        )
        won = jp.JackpotWon(
            network_id=self.network.network_id,
            recorded_at=self.now,
            claim_id=claim,
            request_id=request,
            player_id=player,
            operator_id="op-1",
            pool_id=pool.pool_id,
            tier=pool.tier,
            currency="EUR",
            stake_minor=stake,
            share_ppm=1_000_000,
            amount_minor=paid // MICRO,
            level_before_micro=level,
            level_after_micro=level - paid,
            movement=won_move,
        )
        seed = pool.seed_minor * MICRO
        reseed_move = jp.PoolMovement(
            pool_id=pool.pool_id, opening_micro=level - paid, seeds_micro=seed, closing_micro=level - paid + seed
        )
        self.levels[pool.pool_id] = level - paid + seed
        reseeded = jp.PoolReseeded(
            network_id=self.network.network_id,
            recorded_at=self.now,
            pool_id=pool.pool_id,
            currency="EUR",
            seed_micro=seed,
            cause_claim_id=claim,
            movement=reseed_move,
        )
        meter = jp.JackpotMeter(
            pool_id=pool.pool_id,
            network_id=self.network.network_id,
            currency="EUR",
            level_minor=self.levels[pool.pool_id] // MICRO,
            as_of=self.now,
        )
        return [
            Sample("jackpot.events", self._env(won, "won", index)),
            Sample("jackpot.events", self._env(reseeded, "reseeded", index)),
            Sample("jackpot.meters", self._env(meter, "meter", index)),
        ]

    def _settle(
        self, index: int, player: str, request: uuid.UUID, stake: int, house_win: int, jackpot: int
    ) -> list[Sample]:
        contribution = self.network.wager_contribution_micro(stake)
        win = house_win + jackpot
        self.balances[player] += win
        jackpot_account = wallet.jackpot_account(self.network.network_id)
        postings = (
            wallet.Posting(account=wallet.player_account(player), amount_micro=win * MICRO),
            wallet.Posting(account=wallet.HOUSE, amount_micro=-(house_win * MICRO + contribution)),
            wallet.Posting(account=jackpot_account, amount_micro=contribution - jackpot * MICRO),
        )
        settled = wallet.WagerSettled(
            transaction_id=derived_id(self.tag, "settle", index),
            player_id=player,
            recorded_at=self.now,
            currency="EUR",
            postings=postings,
            balance_after_minor=self.balances[player],
            wager_id=request,
            win_minor=win,
            house_win_minor=house_win,
            jackpot_win_minor=jackpot,
            breakage_micro=0,
            contribution_micro=contribution,
            network_id=self.network.network_id,
        )
        outcome = spin.SpinSettled(
            request_id=request,
            player_id=player,
            game="rising-joker",
            stake_minor=stake,
            currency="EUR",
            win_minor=win,
            house_win_minor=house_win,
            jackpot_win_minor=jackpot,
            breakage_micro=0,
            contribution_micro=contribution,
            balance_after_minor=self.balances[player],
            model_version="rising-joker-v1",
            seed=f"{index:064x}",
            state_before={"index": index},
            state_after={"index": index + 1},
            outcome={"board": [[index % 7, 1, 2]] * 3, "wins": []},
            operator_id="op-1",
            settled_at=self.now,
        )
        return [
            Sample("wallet.events", self._env(settled, "settled", index)),
            Sample("spin.events", self._env(outcome, "spin-settled", index)),
        ]


def sample_events(count_spins: int, start: datetime, tag: str = "s", first: int = 0) -> list[Sample]:
    stream = SampleStream(start, tag=tag)
    return [sample for index in range(first, first + count_spins) for sample in stream.spin(index)]
