"""What the demo shows, as a pure fold over answers and meters (no I/O, no clock: times come in as arguments)."""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from shared.money import format_minor


@dataclass
class PlayerView:
    player_id: str
    game: str
    currency: str
    spins: int = 0
    rejected: int = 0
    staked_minor: int = 0
    won_minor: int = 0
    balance_minor: int | None = None
    last: str = ""


@dataclass
class DemoStats:
    players: dict[str, PlayerView] = field(default_factory=dict)
    meters: dict[str, tuple[str, int]] = field(default_factory=dict)  # pool id -> (currency, level_minor)
    jackpots: list[str] = field(default_factory=list)
    big_wins: list[str] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    rejections: dict[str, int] = field(default_factory=dict)

    def add_player(self, player_id: str, game: str, currency: str, balance_minor: int) -> None:
        self.players[player_id] = PlayerView(player_id, game, currency, balance_minor=balance_minor)

    def settled(
        self, player_id: str, stake_minor: int, win_minor: int, balance_minor: int, latency_ms: float, awards: list[str]
    ) -> None:
        view = self.players[player_id]
        view.spins += 1
        view.staked_minor += stake_minor
        view.won_minor += win_minor
        view.balance_minor = balance_minor
        view.last = f"{format_minor(win_minor, view.currency)} on {format_minor(stake_minor, view.currency)}"
        self.latencies_ms.append(latency_ms)
        for award in awards:
            self.jackpots.append(f"{player_id}: {award}")
        if win_minor >= 50 * stake_minor:
            self.big_wins.append(
                f"{player_id}: {win_minor / stake_minor:.0f}× stake, {format_minor(win_minor, view.currency)}"
            )

    def rejected(self, player_id: str, code: str, latency_ms: float) -> None:
        view = self.players[player_id]
        view.rejected += 1
        view.last = f"rejected {code}"
        self.latencies_ms.append(latency_ms)
        self.rejections[code] = self.rejections.get(code, 0) + 1

    def meter(self, pool_id: str, currency: str, level_minor: int) -> None:
        self.meters[pool_id] = (currency, level_minor)

    @property
    def spins(self) -> int:
        return sum(view.spins for view in self.players.values())

    def rtp_by_game(self) -> dict[str, float]:
        totals: dict[str, list[int]] = {}
        for view in self.players.values():
            staked_won = totals.setdefault(view.game, [0, 0])
            staked_won[0] += view.staked_minor
            staked_won[1] += view.won_minor
        return {game: (won / staked if staked else 0.0) for game, (staked, won) in totals.items()}

    def latency_percentiles(self) -> tuple[float, float]:
        if not self.latencies_ms:
            return (0.0, 0.0)
        ordered = sorted(self.latencies_ms)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return (median(ordered), p99)
