"""The wallet core under test: `WALLET.given(events).when(message, now).then(events)` (tests/support/gwt.py), and
`Wallet`, one player's wallet that decides each command at `now` through it, as the service does, answering a repeat
with the facts it emitted before (the loop's part: shared/repeats.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from shared import records
from shared.decision import Decision, Message
from shared.events import envelope
from shared.events.envelope import Envelope, epoch_ms
from shared.events.wallet import DebitWager, Deposit, JackpotWonProof, PlaceWager, RefundWager, SelfExclude, SetLimit
from shared.events.wallet import SettleWager, Withdraw

from services.wallet.core import WalletBook, WalletCore, WalletState
from tests.support.gwt import Core, Given
from tests.support.proofs import jackpot_won, proven

CORE = WalletCore()


def sent(payload: Any, now: datetime, *, operator: str | None = None) -> Message:
    """A command (or an undecodable record) as the loop hands it to the core at broker time `now`: a settlement's
    JackpotWons checked by the record module as the loop checks them; `operator`: the one its cashier key binds (None:
    the plain cashier's key, or the spin's command)."""
    if isinstance(payload, Message):
        return payload
    awards = records.checked_awards(payload.data) if isinstance(payload, Envelope) else None
    return Message(payload, epoch_ms(now), operator=operator, proof=awards)


def _evolve(book: WalletBook, event: Envelope[Any], raw: bytes | None = None) -> WalletBook:
    """gwt hands each given fact with its bytes (the spin keeps an answer's); the wallet's core folds the fact alone."""
    return CORE.evolve(book, event)


WALLET = Core(lambda: CORE.new_state(0), _evolve, lambda book, payload, now: CORE.decide(book, sent(payload, now), now))

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)  # a Monday
PLAYER = "player-1"


def tx(n: int) -> uuid.UUID:
    return uuid.UUID(int=n)


@dataclass
class Wallet:
    """One player's wallet: every command is decided at `now` and its events folded in, like the service does."""

    book: WalletBook = field(default_factory=lambda: WalletBook(0))
    now: datetime = T0
    emitted: list[Envelope[Any]] = field(default_factory=list)
    last: Decision = field(default_factory=Decision)  # the core's decision of the last command

    @property
    def state(self) -> WalletState:
        """What decide reads of the player (a view of the book, as in the service)."""
        return self.book.state_of(PLAYER)

    def send(self, data, *, sent_at: datetime | None = None, envelope_id: uuid.UUID | None = None):
        events = self.send_all(data, sent_at=sent_at, envelope_id=envelope_id)
        assert len(events) == 1
        return events[0]

    def send_all(
        self, data, *, sent_at: datetime | None = None, envelope_id: uuid.UUID | None = None, operator=None
    ) -> tuple:
        """Every event of one command (an accepted PlaceWager writes its debit and its settlement); a repeat's are the
        facts emitted before that the core names again, as the loop re-emits them."""
        command = envelope(data, source="test", time=sent_at or self.now, id=envelope_id)
        self.last = Given(WALLET, self.book).when(sent(command, self.now, operator=operator), self.now).decision
        assert not (self.last.events and self.last.repeated), "a command is new or a repeat, never both"
        self.emitted.extend(self.last.events)
        first = {str(event.id): event for event in reversed(self.emitted)}
        return self.last.events + tuple(first[fact_id] for fact_id in self.last.repeated)

    def place(
        self,
        n: int,
        amount_minor: int,
        house_win_minor: int = 0,
        currency: str = "EUR",
        breakage_micro: int = 0,
        contribution_micro: int = 0,
        game: str = "rising-joker",
        remainder: dict[str, Any] | None = None,
        **kw,
    ) -> tuple:
        """A whole spin in one command: wager `tx(n)`, its settlement `tx(n + 10_000)`; `remainder`: its remainder
        fields (remainder_before_micro, remainder_stranded, remainder_after_micro)."""
        data = PlaceWager(
            **(remainder or {}),
            transaction_id=tx(n),
            player_id=PLAYER,
            amount_minor=amount_minor,
            currency=currency,
            game=game,
            settlement_id=tx(n + 10_000),
            house_win_minor=house_win_minor,
            breakage_micro=breakage_micro,
            contribution_micro=contribution_micro,
            network_id="net-1",
        )
        return self.send_all(data, **kw)

    def later(self, **delta: float) -> "Wallet":
        self.now = self.now + timedelta(**delta)
        return self

    def balance(self, currency: str = "EUR") -> int | None:
        return self.state.player.balances_minor.get(currency)

    def deposit(self, n: int, amount_minor: int, currency: str = "EUR", **kw):
        return self.send(
            Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency=currency), **kw
        )

    def withdraw(self, n: int, amount_minor: int, currency: str = "EUR"):
        return self.send(Withdraw(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount_minor, currency=currency))

    def debit(self, n: int, amount_minor: int, currency: str = "EUR", **kw):
        return self.send(self.debit_command(n, amount_minor, currency), **kw)

    def debit_command(self, n: int, amount_minor: int, currency: str = "EUR", **fields) -> DebitWager:
        return DebitWager(
            transaction_id=tx(n),
            player_id=PLAYER,
            amount_minor=amount_minor,
            currency=currency,
            game="rising-joker",
            **fields,
        )

    def settle(
        self,
        n: int,
        wager: int,
        house_win_minor: int = 0,
        jackpot_win_minor: int = 0,
        currency: str = "EUR",
        breakage_micro: int = 0,
        contribution_micro: int = 0,
        proofs: tuple[JackpotWonProof, ...] | None = None,
        remainder_after_micro: int | None = None,
        every: bool = False,
    ):
        """`proofs` default: for a jackpot amount, the jackpot's JackpotWon of this wager paying all of it. `every`:
        all the events (a settlement may be followed by a remainder's credit), else the one."""
        if proofs is None and jackpot_win_minor:
            proofs = (proven(jackpot_won(tx(wager), PLAYER, jackpot_win_minor, self.stake(wager), currency=currency)),)
        return (self.send_all if every else self.send)(
            SettleWager(
                remainder_after_micro=remainder_after_micro,
                transaction_id=tx(n),
                player_id=PLAYER,
                wager_id=tx(wager),
                currency=currency,
                house_win_minor=house_win_minor,
                jackpot_win_minor=jackpot_win_minor,
                breakage_micro=breakage_micro,
                contribution_micro=contribution_micro,
                network_id="net-1",
                jackpot_proofs=proofs,
            )
        )

    def stake(self, wager: int) -> int:
        """The open wager's stake (0 when it is not open: the settlement is refused before its proofs count)."""
        open_wager = self.state.player.open_wagers.get(str(tx(wager)))
        return open_wager.amount_minor if open_wager is not None else 0

    def refund(self, n: int, wager: int, currency: str = "EUR"):
        return self.send(
            RefundWager(transaction_id=tx(n), player_id=PLAYER, wager_id=tx(wager), currency=currency, reason="test")
        )

    def set_limit(self, n: int, kind: str, period: str, amount_minor: int | None, currency: str = "EUR"):
        return self.send(
            SetLimit(
                transaction_id=tx(n),
                player_id=PLAYER,
                currency=currency,
                kind=kind,
                period=period,
                amount_minor=amount_minor,
            )
        )

    def self_exclude(self, n: int, until: datetime | None):
        return self.send(SelfExclude(transaction_id=tx(n), player_id=PLAYER, until=until))


def code(event) -> str | None:
    return getattr(event.data, "code", None)
