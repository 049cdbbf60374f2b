"""A partition's seamless rounds: each round's phase, the one call it owes the operator's wallet (if any) and the
answers it has recorded. Folded from wallet.seamless alone (core/evolve.py)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from shared.config import DEDUP_WINDOW_MS
from shared.remainders import credit_minor


class Phase(StrEnum):
    BETTING = "BETTING"  # the bet is decided, no answer yet
    ACCEPTED = "ACCEPTED"  # the operator took the stake; the round waits for its settlement
    WINNING = "WINNING"  # the win is decided, not acknowledged yet
    WON = "WON"  # closed: the win is acknowledged
    REFUSED = "REFUSED"  # closed: the bet was surely not applied
    ROLLING_BACK = "ROLLING_BACK"  # the rollback is decided, not acknowledged yet
    ROLLED_BACK = "ROLLED_BACK"  # closed: the bet is undone
    REPORTED = "REPORTED"  # closed here: the win went unacknowledged past its retry time


OPEN_PHASES = frozenset({Phase.BETTING, Phase.ACCEPTED, Phase.WINNING, Phase.ROLLING_BACK})


@dataclass
class OpenCall:
    """The call a round owes the wallet: its id (the request and transaction id), kind, attempt and when it is due."""

    call_id: str
    kind: str
    attempt: int
    due_ms: int


@dataclass
class Round:
    wager_id: str
    player_id: str
    operator_id: str
    currency: str
    game: str
    amount_minor: int
    fingerprint: str
    bet_call_id: str
    answer_by_ms: int
    phase: Phase = Phase.BETTING
    # The sub-cent remainder the wager stranded (None: none), owed to the player in the round's win.
    remainder_stranded_micro: int | None = None
    # A win known with the wager (PlaceWager) or decided later (SettleWager): id, house and jackpot amounts.
    settlement_id: str | None = None
    house_win_minor: int | None = None
    jackpot_win_minor: int = 0
    settle_fingerprint: str | None = None
    win_call_id: str | None = None
    give_up_ms: int | None = None
    rollback_call_id: str | None = None
    open_call: OpenCall | None = None
    last_status: str = ""
    # (call id, attempt) of every answer recorded: a repeat of one changes nothing.
    answered: set[tuple[str, int]] = field(default_factory=set)

    @property
    def remainder_credit_minor(self) -> int | None:
        """The stranded remainder rounded up to a minor unit, as the ledger credits one (None: nothing stranded)."""
        if self.remainder_stranded_micro is None:
            return None
        return credit_minor(self.remainder_stranded_micro)

    def call_kind(self, call_id: str) -> str | None:
        kinds = {self.bet_call_id: "bet", self.win_call_id: "win", self.rollback_call_id: "rollback"}
        return kinds.get(call_id)


@dataclass
class SeamlessBook:
    """One partition's rounds by wager id, and which round each call id belongs to."""

    partition: int
    rounds: dict[str, Round] = field(default_factory=dict)
    round_of_call: dict[str, str] = field(default_factory=dict)
    # Closed rounds by wager id, in the order they closed, with when: kept for the de-duplication window (a command
    # older than that is refused anyway), then forgotten, so the book holds the open rounds and an hour of closed ones.
    closed_ms: dict[str, int] = field(default_factory=dict)
    # The rounds with a call owed, by wager id: what the outbox looks through at every commit, never the whole window
    # of closed rounds (kept by `owes`, which evolve calls after each event).
    owing: dict[str, Round] = field(default_factory=dict)
    # The wager ids `owes` saw since the adapter last took them (`take_touched`): what a batch changed, not state.
    touched: set[str] = field(default_factory=set, compare=False, repr=False)

    def owes(self, round_: Round) -> None:
        """`round_` as its latest event left it: among the owing while it has an open call."""
        self.touched.add(round_.wager_id)
        if round_.open_call is None:
            self.owing.pop(round_.wager_id, None)
        else:
            self.owing[round_.wager_id] = round_

    def take_touched(self) -> set[str]:
        """The wager ids of the rounds changed since the last take."""
        touched, self.touched = self.touched, set()
        return touched

    def close(self, wager_id: str, now_ms: int) -> None:
        self.closed_ms[wager_id] = now_ms

    def prune(self, now_ms: int) -> None:
        """Forget the rounds closed more than the de-duplication window before `now_ms`."""
        while self.closed_ms:
            wager_id, closed_ms = next(iter(self.closed_ms.items()))
            if now_ms - closed_ms <= DEDUP_WINDOW_MS:
                return
            del self.closed_ms[wager_id]
            self.touched.discard(wager_id)  # a fold nobody takes from (a tool's) keeps it no longer than the round
            round_ = self.rounds.pop(wager_id)
            for call_id in (round_.bet_call_id, round_.win_call_id, round_.rollback_call_id):
                self.round_of_call.pop(call_id, None)

    def due(self, now_ms: int) -> list[tuple[Round, OpenCall]]:
        """The calls owed now, oldest due first."""
        return due_calls(self.owing.values(), now_ms)

    def next_due_ms(self) -> int | None:
        """When the next owed call falls due (None: nothing owed)."""
        return min((r.open_call.due_ms for r in self.owing.values()), default=None)


def due_calls(owing: Iterable[Round], now_ms: int) -> list[tuple[Round, OpenCall]]:
    """Of rounds owing a call, the calls owed now, oldest due first (a book's, or the outbox's committed view)."""
    owed = [(round_, round_.open_call) for round_ in owing if round_.open_call.due_ms <= now_ms]
    return sorted(owed, key=lambda pair: pair[1].due_ms)
