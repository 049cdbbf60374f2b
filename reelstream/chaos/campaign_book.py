"""What the probes' own traffic should have left behind (pure): each probe player's balance, the settled spins, the
contributions and wins of probe spins only; and what the audit's ledger and pool facts show beyond that."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from shared.events.jackpot import ContributionsApplied, JackpotWon, PoolStatusChanged
from shared.events.wallet import player_account
from shared.money import MICRO_PER_MINOR

PLAYER = player_account("")


@dataclass
class ProbeBook:
    balances_minor: Counter = field(default_factory=Counter)  # (player, currency) -> deposits - stakes + wins
    settled_by_game: Counter = field(default_factory=Counter)
    spin_requests: set[uuid.UUID] = field(default_factory=set)
    pool_commands: set[uuid.UUID] = field(default_factory=set)

    def deposited(self, player: str, currency: str, amount_minor: int, balance_after_minor: int) -> list[str]:
        """Book an accepted deposit; what its answer shows that the probes alone do not explain."""
        self.balances_minor[(player, currency)] += amount_minor
        return self._balance(player, currency, balance_after_minor, "deposit")

    def settled(self, player: str, game: str, currency: str, request_id: uuid.UUID, answer) -> list[str]:
        """Book a settled spin (`answer`: its SpinSettled); what its balance shows beyond the probes."""
        self.spin_requests.add(request_id)
        self.settled_by_game[game] += 1
        self.balances_minor[(player, currency)] += answer.win_minor - answer.stake_minor
        return self._balance(player, currency, answer.balance_after_minor, "spin")

    def _balance(self, player: str, currency: str, shown_minor: int, what: str) -> list[str]:
        expected = self.balances_minor[(player, currency)]
        if shown_minor == expected:
            return []
        return [f"{player} {currency}: the {what}'s answer shows {shown_minor}, the probes alone make {expected}"]

    def ledger_problems(self, balances_micro: dict[tuple[str, str], int]) -> list[str]:
        """Every player balance the audit recomputed (or the probes expect) that the probes' deposits, stakes and
        wins do not explain."""
        found = {(account, currency): amount for (account, currency), amount in balances_micro.items() if amount}
        wanted = {(player_account(p), c): m * MICRO_PER_MINOR for (p, c), m in self.balances_minor.items() if m}
        problems = []
        for account, currency in sorted(set(found) | set(wanted)):
            if account.startswith(PLAYER) and found.get((account, currency), 0) != wanted.get((account, currency), 0):
                shown, expected = found.get((account, currency), 0), wanted.get((account, currency), 0)
                problems.append(f"{account} {currency}: the ledger holds {shown} micro, the probes explain {expected}")
        return problems

    def pool_problems(self, facts: Iterable) -> list[str]:
        """Every trusted jackpot fact that moved or changed a pool for something other than a probe."""
        problems = []
        for fact in facts:
            data = fact.data
            if isinstance(data, ContributionsApplied):
                foreign = [c for c in data.contributions if c.contribution_id not in self.spin_requests]
                problems += [f"{fact.where}: contribution {c.contribution_id} of {c.player_id}" for c in foreign]
            elif isinstance(data, JackpotWon) and data.request_id not in self.spin_requests:
                problems.append(f"{fact.where}: {data.pool_id} paid {data.amount_minor} to {data.player_id}")
            elif isinstance(data, PoolStatusChanged) and data.command_id not in self.pool_commands:
                problems.append(f"{fact.where}: {data.pool_id} became {data.status}")
        return problems
