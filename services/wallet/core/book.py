"""The wallet state of one partition: players and the de-duplication memory; `core.evolve.evolve` is the one way it
changes, live and on recovery (docs/wallet.md). Where its facts and inputs stand in the logs is the adapter's."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from services.wallet.core.memory import RETENTION_MS
from services.wallet.core.state import PlayerState, Remembered, WalletState


@dataclass
class WalletBook:
    partition: int
    players: dict[str, PlayerState] = field(default_factory=dict)
    memory: dict[str, dict[str, Remembered]] = field(default_factory=dict)
    # (recorded_ms, player id, transaction id, seq) in the order the entries were written.
    fifo: deque[tuple[int, str, str, int]] = field(default_factory=deque)
    # Σ of every player's balance by currency, kept as players change: the liability gauge reads it without a pass over
    # the players (a scrape would otherwise hold the event loop for a pass over every one).
    liabilities_minor: dict[str, int] = field(default_factory=dict)

    def put(self, player: PlayerState) -> None:
        """Keep `player` as its id's state; the liabilities move by its balances' change."""
        totals = self.liabilities_minor
        old = self.players.get(player.player_id)
        if old is not None:
            for currency, balance_minor in old.balances_minor.items():
                totals[currency] -= balance_minor
        for currency, balance_minor in player.balances_minor.items():
            totals[currency] = totals.get(currency, 0) + balance_minor
        self.players[player.player_id] = player

    def state_of(self, player_id: str) -> WalletState:
        """What `decide` reads: the player and its memory (the live dict, not a copy; decide does not mutate it)."""
        player = self.players.get(player_id) or PlayerState(player_id)
        return WalletState(player, self.memory.get(player_id, {}))

    def remember(self, player_id: str, entry: Remembered) -> None:
        self.memory.setdefault(player_id, {})[entry.transaction_id] = entry
        self.fifo.append((entry.recorded_ms, player_id, entry.transaction_id, entry.seq))

    def live_entries(self) -> list[tuple[str, Remembered]]:
        """(player id, entry) of every memory entry, in FIFO order (what a snapshot stores)."""
        entries = []
        for _, player_id, transaction_id, seq in self.fifo:
            entry = self.memory.get(player_id, {}).get(transaction_id)
            if entry is not None and entry.seq == seq:
                entries.append((player_id, entry))
        return entries

    def prune(self, now_ms: int) -> None:
        """Forget entries older than the window at `now_ms`: a repeat of them is refused by age anyway."""
        while self.fifo and now_ms - self.fifo[0][0] > RETENTION_MS:
            _, player_id, transaction_id, seq = self.fifo.popleft()
            memory = self.memory.get(player_id)
            entry = memory.get(transaction_id) if memory else None
            if entry is not None and entry.seq == seq:  # an id used anew after expiry has a newer entry: keep it
                del memory[transaction_id]
                if not memory:
                    del self.memory[player_id]
