"""The operator-wallet conformance kit: the seamless protocol's cases, in order, against a wallet with a named test
player; each case says what it saw. It leaves the player's balance where it found it."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import orjson

from seamless.client import WalletClient
from seamless.port import AnyCall, Answered, BalanceCall, BetCall, NoAnswer, Outcome, RollbackCall, Status, WinCall
from seamless.signatures import Signer

ROUND_PREFIX = "conformance-"
GAME = "rising-joker"
# The player needs the stake three times over: two bets stand open at once at most, and one margin.
STAKES_NEEDED = 3


@dataclass
class Kit:
    client: WalletClient
    player_id: str
    currency: str
    stake_minor: int
    session_token: str | None = None
    start_minor: int = 0
    calls: dict[str, AnyCall] = field(default_factory=dict)
    answers: dict[str, Outcome] = field(default_factory=dict)

    def bet(self, name: str, amount_minor: int | None = None, transaction_id: uuid.UUID | None = None) -> BetCall:
        tid = transaction_id or uuid.uuid4()
        return BetCall(
            request_id=uuid.uuid4() if transaction_id else tid,
            transaction_id=tid,
            player_id=self.player_id,
            currency=self.currency,
            amount_minor=self.stake_minor if amount_minor is None else amount_minor,
            round_id=ROUND_PREFIX + name,
            game=GAME,
            session_token=self.session_token,
        )

    def win(self, bet: BetCall, amount_minor: int) -> WinCall:
        tid = uuid.uuid4()
        return WinCall(
            request_id=tid,
            transaction_id=tid,
            bet_transaction_id=bet.transaction_id,
            player_id=self.player_id,
            currency=self.currency,
            amount_minor=amount_minor,
            round_id=bet.round_id,
            game=GAME,
            session_token=self.session_token,
        )

    def rollback(self, bet: BetCall) -> RollbackCall:
        tid = uuid.uuid4()
        return RollbackCall(
            request_id=tid,
            transaction_id=tid,
            bet_transaction_id=bet.transaction_id,
            player_id=self.player_id,
            currency=self.currency,
            round_id=bet.round_id,
            game=GAME,
            session_token=self.session_token,
        )

    async def balance(self) -> int | None:
        call = BalanceCall(request_id=uuid.uuid4(), player_id=self.player_id, session_token=self.session_token)
        outcome = await self.client.call(call)
        return outcome.balance_minor if isinstance(outcome, Answered) and outcome.status is Status.OK else None


def expect(outcome: Outcome, status: Status, balance_minor: int | None = None) -> list[str]:
    if isinstance(outcome, NoAnswer):
        return [f"no answer ({outcome.reason.value}{': ' + outcome.detail if outcome.detail else ''})"]
    problems = []
    if outcome.status is not status:
        problems.append(f"status {outcome.operator_status or outcome.status.value}, expected {status.value}")
    if balance_minor is not None and outcome.balance_minor != balance_minor:
        problems.append(f"balance {outcome.balance_minor} in the answer, expected {balance_minor}")
    return problems


async def unchanged(kit: Kit, balance_minor: int, what: str) -> list[str]:
    now = await kit.balance()
    return [] if now == balance_minor else [f"the balance is {now} after {what}, expected {balance_minor}"]


async def case_balance(kit: Kit) -> list[str]:
    outcome = await kit.client.call(BalanceCall(request_id=uuid.uuid4(), player_id=kit.player_id))
    problems = expect(outcome, Status.OK)
    if problems:
        return problems
    assert isinstance(outcome, Answered)
    if outcome.currency != kit.currency:
        problems.append(f"currency {outcome.currency}, expected {kit.currency}")
    kit.start_minor = outcome.balance_minor or 0
    if kit.start_minor < STAKES_NEEDED * kit.stake_minor:
        problems.append(f"the test player holds {kit.start_minor}; the kit needs {STAKES_NEEDED * kit.stake_minor}")
    return problems


async def case_bet(kit: Kit) -> list[str]:
    kit.calls["bet"] = call = kit.bet("bet")
    kit.answers["bet"] = outcome = await kit.client.call(call)
    after = kit.start_minor - kit.stake_minor
    return expect(outcome, Status.OK, after) + await unchanged(kit, after, "the bet")


async def case_bet_repeated(kit: Kit) -> list[str]:
    again = await kit.client.call(kit.calls["bet"])
    problems = [] if again == kit.answers["bet"] else [f"the repeat got {again}, the first {kit.answers['bet']}"]
    return problems + await unchanged(kit, kit.start_minor - kit.stake_minor, "the repeated bet")


async def case_bet_retried_under_a_new_request_id(kit: Kit) -> list[str]:
    retry = kit.bet("bet", transaction_id=kit.calls["bet"].transaction_id)
    outcome = await kit.client.call(retry)
    return expect(outcome, Status.OK) + await unchanged(kit, kit.start_minor - kit.stake_minor, "the retried bet")


async def case_transaction_id_reused_for_another_amount(kit: Kit) -> list[str]:
    other = kit.bet("bet", amount_minor=kit.stake_minor + 1, transaction_id=kit.calls["bet"].transaction_id)
    outcome = await kit.client.call(other)
    return expect(outcome, Status.DUPLICATE_CONFLICT) + await unchanged(
        kit, kit.start_minor - kit.stake_minor, "the conflicting bet"
    )


async def case_win(kit: Kit) -> list[str]:
    kit.calls["win"] = call = kit.win(kit.calls["bet"], kit.stake_minor)
    kit.answers["win"] = outcome = await kit.client.call(call)
    return expect(outcome, Status.OK, kit.start_minor) + await unchanged(kit, kit.start_minor, "the win")


async def case_win_repeated(kit: Kit) -> list[str]:
    again = await kit.client.call(kit.calls["win"])
    problems = [] if again == kit.answers["win"] else [f"the repeat got {again}, the first {kit.answers['win']}"]
    return problems + await unchanged(kit, kit.start_minor, "the repeated win")


async def case_win_for_an_unknown_bet(kit: Kit) -> list[str]:
    outcome = await kit.client.call(kit.win(kit.bet("unknown-win"), kit.stake_minor))
    return expect(outcome, Status.UNKNOWN_TRANSACTION) + await unchanged(kit, kit.start_minor, "a win for no bet")


async def case_rollback(kit: Kit) -> list[str]:
    kit.calls["rolled"] = bet = kit.bet("rollback")
    problems = expect(await kit.client.call(bet), Status.OK, kit.start_minor - kit.stake_minor)
    kit.calls["rollback"] = call = kit.rollback(bet)
    kit.answers["rollback"] = outcome = await kit.client.call(call)
    return problems + expect(outcome, Status.OK, kit.start_minor) + await unchanged(kit, kit.start_minor, "rollback")


async def case_rollback_repeated(kit: Kit) -> list[str]:
    again = await kit.client.call(kit.calls["rollback"])
    first = kit.answers["rollback"]
    problems = [] if again == first else [f"the repeat got {again}, the first {first}"]
    return problems + await unchanged(kit, kit.start_minor, "the repeated rollback")


async def case_win_after_rollback(kit: Kit) -> list[str]:
    outcome = await kit.client.call(kit.win(kit.calls["rolled"], kit.stake_minor))
    return expect(outcome, Status.ALREADY_ROLLED_BACK) + await unchanged(kit, kit.start_minor, "a win after rollback")


async def case_rollback_of_an_unknown_bet(kit: Kit) -> list[str]:
    never = kit.bet("unknown-rollback")
    problems = expect(await kit.client.call(kit.rollback(never)), Status.UNKNOWN_TRANSACTION)
    late = await kit.client.call(never)
    if isinstance(late, Answered) and late.status is Status.OK:
        problems.append("the bet arriving after its rollback was applied")
    return problems + await unchanged(kit, kit.start_minor, "a rollback of no bet and the late bet")


async def case_insufficient_funds(kit: Kit) -> list[str]:
    outcome = await kit.client.call(kit.bet("insufficient", amount_minor=kit.start_minor + 1))
    return expect(outcome, Status.INSUFFICIENT_FUNDS) + await unchanged(kit, kit.start_minor, "a refused bet")


async def case_signature_refused(kit: Kit) -> list[str]:
    call = kit.bet("unsigned")
    path, body = kit.client.encode(call)
    stranger = Signer.generate(kit.client.signer.key_id)
    outcome = await kit.client.send(call, path, body, kit.client.signed(body, stranger))
    return expect(outcome, Status.SIGNATURE_REFUSED) + await unchanged(kit, kit.start_minor, "a bet by another key")


async def case_tampered_body_refused(kit: Kit) -> list[str]:
    call = kit.bet("tampered")
    path, body = kit.client.encode(call)
    tampered = orjson.loads(body)
    tampered["round" if "round" in tampered else "round_id"] = ROUND_PREFIX + "changed"
    outcome = await kit.client.send(call, path, orjson.dumps(tampered), kit.client.signed(body))
    return expect(outcome, Status.SIGNATURE_REFUSED) + await unchanged(kit, kit.start_minor, "a tampered bet")


Case = Callable[[Kit], Awaitable[list[str]]]
CASES: tuple[tuple[str, Case], ...] = (
    ("balance", case_balance),
    ("bet", case_bet),
    ("bet repeated", case_bet_repeated),
    ("bet retried under a new request id", case_bet_retried_under_a_new_request_id),
    ("transaction id reused for another amount", case_transaction_id_reused_for_another_amount),
    ("win", case_win),
    ("win repeated", case_win_repeated),
    ("win for an unknown bet", case_win_for_an_unknown_bet),
    ("rollback", case_rollback),
    ("rollback repeated", case_rollback_repeated),
    ("win after rollback", case_win_after_rollback),
    ("rollback of an unknown bet", case_rollback_of_an_unknown_bet),
    ("insufficient funds", case_insufficient_funds),
    ("signature refused", case_signature_refused),
    ("tampered body refused", case_tampered_body_refused),
)


async def verify_wallet(kit: Kit, report: Callable[[str, list[str]], None]) -> int:
    """Run every case in order; the number that failed. Without a player the balance answers, nothing else runs."""
    assert kit.player_id, "the kit runs only against a named test player"
    failed = 0
    for name, case in CASES:
        problems = await case(kit)
        report(name, problems)
        failed += bool(problems)
        if problems and name == "balance":
            return len(CASES)
    return failed
