"""An account belongs to the operator of its first deposit signed with an operator's cashier key: another operator's
cashier commands and wagers under another operator's token are refused OPERATOR_MISMATCH (owning no id, moving
nothing); the owner, the plain cashier and commands naming no operator are decided as before. The binding is folded
from wallet.events (a restore has it; its snapshot keeps it: tests/unit/wallet/adapters/test_wallet_snapshot.py)."""

from __future__ import annotations

from shared.events import envelope
from shared.events.wallet import CommandRejected, DebitWager, Deposit, Deposited, SetLimit, Withdraw
from shared.operators import OPERATORS

from services.wallet.core import WalletBook
from tests.support.gwt import Given
from tests.support.wallet import PLAYER, T0, WALLET, sent, tx

A, B = OPERATORS[:2]


def _decide(book: WalletBook, data, operator: str | None):
    """When the command, its cashier key binding `operator`, then its events (against `book`, as given so far)."""
    return (
        Given(WALLET, book)
        .when(sent(envelope(data, source="test", time=T0), T0, operator=operator), T0)
        .decision.events
    )


def _deposit(n: int, amount: int = 1_000) -> Deposit:
    return Deposit(transaction_id=tx(n), player_id=PLAYER, amount_minor=amount, currency="EUR")


def _balance(book: WalletBook) -> int:
    return book.state_of(PLAYER).player.balances_minor.get("EUR", 0)


def test_the_first_operator_deposit_binds_the_account_and_another_operators_cashier_is_refused():
    book = WalletBook(0)
    [opened] = _decide(book, _deposit(1), A)
    assert isinstance(opened.data, Deposited) and opened.data.operator_id == A
    assert book.state_of(PLAYER).player.operator_id == A
    withdraw = Withdraw(transaction_id=tx(2), player_id=PLAYER, amount_minor=900, currency="EUR")
    [refused] = _decide(book, withdraw, B)
    assert isinstance(refused.data, CommandRejected) and refused.data.code == "OPERATOR_MISMATCH"
    assert A not in refused.data.message and _balance(book) == 1_000  # the owner is not told to another operator
    limit = SetLimit(transaction_id=tx(3), player_id=PLAYER, currency="EUR", kind="loss", period="day", amount_minor=5)
    [refused] = _decide(book, limit, B)
    assert refused.data.code == "OPERATOR_MISMATCH" and book.state_of(PLAYER).player.limits == {}
    # The id stays free: the owner's own command under it is decided.
    [withdrawn] = _decide(book, withdraw, A)
    assert withdrawn.data.TYPE == "reelstream.wallet.withdrawn.v1" and _balance(book) == 100
    # The plain cashier (the platform's own) and a deposit naming no operator are not refused.
    [plain] = _decide(book, _deposit(4), None)
    assert isinstance(plain.data, Deposited) and plain.data.operator_id is None and _balance(book) == 1_100
    assert book.state_of(PLAYER).player.operator_id == A


def test_a_wager_under_another_operators_token_is_refused_and_the_owners_is_taken():
    book = WalletBook(0)
    _decide(book, _deposit(1), A)
    wager = lambda n, op: DebitWager(  # noqa: E731
        transaction_id=tx(n), player_id=PLAYER, amount_minor=10, currency="EUR", game="rising-joker", operator_id=op
    )
    [refused] = _decide(book, wager(10, B), None)
    assert refused.data.code == "OPERATOR_MISMATCH" and _balance(book) == 1_000
    [debited] = _decide(book, wager(11, A), None)
    assert debited.data.TYPE == "reelstream.wallet.wager-debited.v1" and _balance(book) == 990
    [untagged] = _decide(book, wager(12, None), None)
    assert untagged.data.TYPE == "reelstream.wallet.wager-debited.v1"


def test_an_account_opened_by_the_plain_cashier_is_bound_by_its_first_operator_deposit():
    book = WalletBook(0)
    _decide(book, _deposit(1), None)
    assert book.state_of(PLAYER).player.operator_id is None
    _decide(book, _deposit(2), B)
    assert book.state_of(PLAYER).player.operator_id == B
    [refused] = _decide(book, _deposit(3), A)
    assert refused.data.code == "OPERATOR_MISMATCH" and _balance(book) == 2_000


def test_the_binding_is_folded_from_the_events():
    events = _decide(WalletBook(0), _deposit(1), A)
    folded = WALLET.given(*events).state
    assert folded.state_of(PLAYER).player.operator_id == A
