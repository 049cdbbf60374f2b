"""Drive the demo: deposits, one client thread per player, a meter follower, and the live view until the deadline."""

from __future__ import annotations

import random
import secrets
import threading
import time
from dataclasses import dataclass

from rich.console import Console
from rich.live import Live

from reelstream.client import ReelstreamClient
from reelstream.demo import operator_wallet
from reelstream.demo.stats import DemoStats
from reelstream.demo.view import live_view, summary
from shared.config import Settings
from shared import operators, records
from shared.events.jackpot import JackpotMeter
from shared.kafka import consumer
from shared.topics import JACKPOT_METERS

DEPOSIT_MINOR = {"EUR": 20_000, "DKK": 200_000}
# Rising Joker players vary their stake; Stjernestøv players keep theirs (the bonus ring locks it) except one who
# forfeits the ring now and then to show the feature.
RISING_JOKER_STAKES = (10, 20, 50, 100, 200)
STJERNESTOEV_STAKES = (100, 200, 500)


@dataclass(frozen=True)
class DemoPlayer:
    player_id: str
    game: str
    currency: str
    stake_minor: int
    # A seamless operator's player: its money is in that operator's wallet, its spins name the operator.
    operator_id: str | None = None
    wallet: operators.SeamlessWallet | None = None


def demo_players(run_id: str, per_game: int, seamless: tuple[operators.Operator, ...] = ()) -> list[DemoPlayer]:
    """`per_game` players of each game; the last Rising Joker players are one per seamless operator's (the same
    number of players and spins either way)."""
    players = [
        DemoPlayer(f"demo-{run_id}-rj{i + 1}", "rising-joker", "EUR", RISING_JOKER_STAKES[i % 5])
        for i in range(per_game)
    ]
    for index, operator in zip(range(per_game - 1, -1, -1), seamless):
        stake_minor = RISING_JOKER_STAKES[index % 5]
        player_id = f"demo-{run_id}-{operator.id}-rj{index + 1}"
        players[index] = DemoPlayer(player_id, "rising-joker", "EUR", stake_minor, operator.id, operator.wallet)
    players += [
        DemoPlayer(f"demo-{run_id}-sn{i + 1}", "stjernestoev", "DKK", STJERNESTOEV_STAKES[i % 3])
        for i in range(per_game)
    ]
    return players


def fund(client, player: DemoPlayer) -> int | None:
    """The player's opening balance: a deposit on our ledger, or a seamless operator's wallet opening its account."""
    if player.wallet is not None:
        operator_wallet.fund(player.wallet, player.player_id, player.currency, DEPOSIT_MINOR[player.currency])
        return DEPOSIT_MINOR[player.currency]
    deposited = client.deposit(player.player_id, DEPOSIT_MINOR[player.currency], player.currency, timeout_s=30)
    return getattr(deposited, "balance_after_minor", None)


def follow_meters(settings: Settings, stats: DemoStats, lock: threading.Lock, stop: threading.Event) -> None:
    meters = consumer(
        settings.kafka_bootstrap_servers,
        settings.topic(JACKPOT_METERS),
        group_id=None,
        consumer_timeout_ms=500,
        role="game-client",
    )
    try:
        while not stop.is_set():
            for record in meters:
                message, _ = records.trusted_event(JACKPOT_METERS, record)  # what the jackpot wrote, nothing else
                if message is not None and isinstance(message.data, JackpotMeter):
                    with lock:
                        stats.meter(message.data.pool_id, message.data.currency, message.data.level_minor)
                if stop.is_set():
                    break
    finally:
        meters.close()


def play(
    settings: Settings,
    client,
    player: DemoPlayer,
    stats: DemoStats,
    lock: threading.Lock,
    deadline: float,
    stop: threading.Event,
) -> None:
    """One player's loop through the shared client (it is thread-safe: answers are matched by request id)."""
    from shared.session import issue_token

    token = issue_token(settings.session_secret, player.player_id, expires_at_ms=int(time.time() * 1000) + 3_600_000)
    chooser = random.Random(secrets.randbits(64))
    stake_minor = player.stake_minor
    opened_minor = fund(client, player)
    with lock:
        stats.players[player.player_id].balance_minor = opened_minor
    for spin_number in range(1, 100_000):
        if stop.is_set() or time.monotonic() >= deadline:
            return
        forfeit = False
        if player.game == "rising-joker":
            stake_minor = chooser.choice(RISING_JOKER_STAKES)
        elif player.player_id.endswith("sn1") and spin_number % 25 == 0:
            stake_minor, forfeit = chooser.choice(STJERNESTOEV_STAKES), True
        started = time.monotonic()
        answer = client.spin(
            player.player_id,
            player.game,
            stake_minor,
            player.currency,
            token,
            forfeit_bonus_ring=forfeit,
            operator_id=player.operator_id,
            timeout_s=30,
        )
        latency_ms = (time.monotonic() - started) * 1000
        _record(stats, lock, player, stake_minor, answer, latency_ms)


def _record(
    stats: DemoStats, lock: threading.Lock, player: DemoPlayer, stake_minor: int, answer, latency_ms: float
) -> None:
    data = getattr(answer, "data", answer)
    with lock:
        if hasattr(data, "win_minor"):
            awards = [f"{a.pool_id} {a.amount_minor} minor" for a in getattr(data, "jackpot_awards", ())]
            stats.settled(player.player_id, stake_minor, data.win_minor, data.balance_after_minor, latency_ms, awards)
        else:
            stats.rejected(player.player_id, data.code, latency_ms)


def run_demo(settings: Settings, duration_s: float, per_game: int, console: Console) -> DemoStats:
    run_id = secrets.token_hex(2)
    players = demo_players(run_id, per_game, operators.seamless_operators())
    stats, lock, stop = DemoStats(), threading.Lock(), threading.Event()
    for player in players:
        stats.add_player(player.player_id, player.game, player.currency, DEPOSIT_MINOR[player.currency])
    console.print(f"{len(players)} players deposit and play: {', '.join(p.player_id for p in players)}")
    for player in players:
        if player.wallet is not None:
            console.print(
                f"{player.player_id}: bets and wins at {player.operator_id}'s own wallet, {player.wallet.url}"
            )
    started = time.monotonic()
    deadline = started + duration_s
    threads = [threading.Thread(target=follow_meters, args=(settings, stats, lock, stop), daemon=True)]
    # One SDK client for all players, as a game server hosts many: each client reads spin.events and wallet.events
    # whole, so a client per player costs that many times the reading (docs/client-guide.md).
    client = ReelstreamClient(bootstrap_servers=settings.kafka_bootstrap_servers, topic_prefix=settings.topic_prefix)
    threads += [
        threading.Thread(target=play, args=(settings, client, p, stats, lock, deadline, stop), daemon=True)
        for p in players
    ]
    for thread in threads:
        thread.start()
    try:
        with Live(console=console, refresh_per_second=4) as live:
            while time.monotonic() < deadline and any(t.is_alive() for t in threads[1:]):
                with lock:
                    live.update(live_view(stats, time.monotonic() - started, duration_s))
                time.sleep(0.25)
    except KeyboardInterrupt:
        console.print("interrupted: stopping the clients")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=35)
        client.close()
    console.print(summary(stats, time.monotonic() - started))
    return stats
