"""Each fault switch of the reference wallet, met through the client: the client reports no answer for a timeout, a
lost response, an HTTP 500 and a late answer, never guesses; a repeat of the same request then gets the applied answer,
or applies the call once if it was never applied. The ledger is read directly to see what was applied."""

from __future__ import annotations

import asyncio
import uuid

import orjson
import pytest

from refwallet.faults import PPM
from seamless.client import ANSWER_BYTES_MAX, WalletClient
from seamless.feed import FEED_PAGE, read_feed
from seamless.port import Answered, BalanceCall, BetCall, NoAnswer, NoAnswerReason, RollbackCall, Status, WinCall
from seamless.protocols import HUB88, NATIVE, PROTOCOLS
from tests.support.seamless import PLAYER, SIGNER, START_MINOR

pytestmark = pytest.mark.integration
TIMEOUT_S = 0.5


def a_bet(amount_minor: int = 100) -> BetCall:
    tid = uuid.uuid4()
    return BetCall(
        request_id=tid,
        transaction_id=tid,
        player_id=PLAYER,
        currency="EUR",
        amount_minor=amount_minor,
        round_id=f"r-{tid}",
        game="rising-joker",
    )


def a_win(bet: BetCall, amount_minor: int) -> WinCall:
    tid = uuid.uuid4()
    return WinCall(
        request_id=tid,
        transaction_id=tid,
        bet_transaction_id=bet.transaction_id,
        player_id=PLAYER,
        currency="EUR",
        amount_minor=amount_minor,
        round_id=bet.round_id,
        game=bet.game,
    )


def a_rollback(bet: BetCall) -> RollbackCall:
    tid = uuid.uuid4()
    return RollbackCall(
        request_id=tid,
        transaction_id=tid,
        bet_transaction_id=bet.transaction_id,
        player_id=PLAYER,
        round_id=bet.round_id,
        game=bet.game,
    )


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
async def test_a_round_and_its_repeats_move_money_once(wallet, protocol):
    async with WalletClient(wallet.url, PROTOCOLS[protocol], SIGNER, timeout_s=5) as client:
        bet = a_bet(300)
        first = await client.call(bet)
        assert first == Answered(
            request_id=bet.request_id,
            status=Status.OK,
            balance_minor=START_MINOR - 300,
            currency="EUR",
            operator_status="RS_OK" if protocol == "hub88" else "OK",
        )
        assert await client.call(bet) == first
        win = a_win(bet, 500)
        assert (await client.call(win)).balance_minor == START_MINOR + 200
        assert (await client.call(win)).balance_minor == START_MINOR + 200
        assert await client.call(bet) == first, "a repeat gets the first answer, not today's balance"
        assert await wallet.balance_minor() == START_MINOR + 200
        balance = await client.call(BalanceCall(request_id=uuid.uuid4(), player_id=PLAYER))
        assert (balance.status, balance.balance_minor) == (Status.OK, START_MINOR + 200)


async def test_a_timeout_is_no_answer_and_nothing_was_applied(wallet):
    wallet.set_faults(timeout_ppm=PPM, hang_ms=2_000)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=TIMEOUT_S) as client:
        bet = a_bet()
        outcome = await client.call(bet)
        assert isinstance(outcome, NoAnswer)
        assert outcome.reason is NoAnswerReason.TIMEOUT
        assert await wallet.balance_minor() == START_MINOR
        wallet.set_faults()
        assert (await client.call(bet)).balance_minor == START_MINOR - 100


async def test_a_lost_response_is_no_answer_and_its_repeat_gets_the_applied_answer(wallet):
    wallet.set_faults(lost_ppm=PPM)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=TIMEOUT_S) as client:
        bet = a_bet()
        outcome = await client.call(bet)
        assert isinstance(outcome, NoAnswer)
        assert outcome.reason is NoAnswerReason.LOST
        assert await wallet.balance_minor() == START_MINOR - 100, "the bet was applied before the answer was lost"
        wallet.set_faults()
        again = await client.call(bet)
        assert (again.status, again.balance_minor) == (Status.OK, START_MINOR - 100)
        assert await wallet.balance_minor() == START_MINOR - 100


async def test_an_http_500_is_no_answer_and_nothing_was_applied(wallet):
    wallet.set_faults(http_500_ppm=PPM)
    async with WalletClient(wallet.url, NATIVE, SIGNER, timeout_s=TIMEOUT_S) as client:
        outcome = await client.call(a_bet())
        assert isinstance(outcome, NoAnswer)
        assert (outcome.reason, outcome.detail) == (NoAnswerReason.HTTP_ERROR, "HTTP 500")
        assert await wallet.balance_minor() == START_MINOR


async def test_a_late_answer_is_no_answer_and_the_repeat_gets_the_answer_applied_meanwhile(wallet):
    wallet.set_faults(late_ppm=PPM, late_ms=1_500)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=TIMEOUT_S) as client:
        bet = a_bet()
        outcome = await client.call(bet)
        assert isinstance(outcome, NoAnswer)
        assert outcome.reason is NoAnswerReason.TIMEOUT
        assert await wallet.balance_minor() == START_MINOR - 100
        wallet.set_faults()
        assert (await client.call(bet)).balance_minor == START_MINOR - 100


async def test_duplicate_deliveries_apply_once_and_answer_alike(wallet):
    wallet.set_faults(duplicate_ppm=PPM)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=5) as client:
        bet = a_bet()
        outcomes = await asyncio.gather(*(client.call(bet) for _ in range(8)))
        assert len(set(outcomes)) == 1
        assert outcomes[0].balance_minor == START_MINOR - 100
        assert await wallet.balance_minor() == START_MINOR - 100


async def test_latency_past_the_timeout_is_no_answer_and_within_it_an_answer(wallet):
    wallet.set_faults(latency_ms=800)
    call = BalanceCall(request_id=uuid.uuid4(), player_id=PLAYER)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=TIMEOUT_S) as client:
        assert isinstance(await client.call(call), NoAnswer)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=5) as client:
        assert (await client.call(call)).status is Status.OK


async def test_a_bet_rolled_back_after_no_answer_is_undone_once_and_its_late_win_changes_nothing(wallet):
    wallet.set_faults(lost_ppm=PPM)
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=TIMEOUT_S) as client:
        bet = a_bet()
        assert isinstance(await client.call(bet), NoAnswer)
        wallet.set_faults()
        back = a_rollback(bet)
        assert (await client.call(back)).status is Status.OK
        assert (await client.call(a_rollback(bet))).status is Status.ALREADY_ROLLED_BACK
        assert (await client.call(a_win(bet, 900))).status is Status.ALREADY_ROLLED_BACK
        assert await wallet.balance_minor() == START_MINOR


async def test_a_seeded_run_meets_its_faults_in_the_same_places(wallet):
    async def run() -> list[str]:
        wallet.set_faults(seed=11, http_500_ppm=300_000, lost_ppm=300_000)
        ids = [uuid.UUID(int=i + 1) for i in range(20)]
        async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=5) as client:
            outcomes = []
            for tid in ids:
                call = a_bet(1).model_copy(update={"request_id": tid, "transaction_id": tid, "round_id": f"r-{tid}"})
                outcome = await client.call(call)
                outcomes.append(outcome.reason.value if isinstance(outcome, NoAnswer) else outcome.status.value)
            return outcomes

    first = await run()
    assert {"HTTP_ERROR", "LOST", "OK"} <= set(first)
    assert await run() == first


async def test_the_feed_lists_every_transaction_in_commit_order(wallet):
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=5) as client:
        bet = a_bet()
        await client.call(bet)
        await client.call(a_win(bet, 0))
        other = a_bet()
        await client.call(other)
        await client.call(a_rollback(other))
        page = await client.transactions(0, 100)
        kinds = [(row["kind"], row["status"]) for row in page["transactions"]]
        assert kinds == [("bet", "OK"), ("win", "OK"), ("bet", "OK"), ("rollback", "OK")]
        assert [row["rolled_back"] for row in page["transactions"]] == [False, False, True, False]
        later = await client.transactions(page["transactions"][1]["position"], 100)
        assert len(later["transactions"]) == 2


async def test_a_full_feed_page_longer_than_a_calls_answer_is_read_whole(wallet):
    """A thousand-row page is several times a call's answer bound: the feed has its own (it was cut and unreadable)."""
    await wallet.ledger.pool.execute(
        "INSERT INTO refwallet.transactions (transaction_id, kind, player_id, currency, amount_minor, round_id, "
        "status, balance_after_minor) SELECT gen_random_uuid(), 'bet', $1, 'EUR', 1, 'round-' || n, 'OK', 0 "
        "FROM generate_series(1, $2) AS n",
        PLAYER,
        FEED_PAGE,
    )
    async with WalletClient(wallet.url, HUB88, SIGNER, timeout_s=10) as client:
        page = await client.transactions(0, FEED_PAGE)
        assert len(orjson.dumps(page)) > ANSWER_BYTES_MAX
        assert [row["round_id"] for row in page["transactions"]] == [f"round-{n}" for n in range(1, FEED_PAGE + 1)]
        assert len(await read_feed(client)) == FEED_PAGE


async def test_an_unsigned_or_foreign_signed_call_is_refused_and_applies_nothing(wallet):
    from seamless.signatures import Signer

    stranger = Signer.generate(SIGNER.key_id)
    async with WalletClient(wallet.url, HUB88, stranger, timeout_s=5) as client:
        outcome = await client.call(a_bet())
        assert (outcome.status, outcome.operator_status) == (Status.SIGNATURE_REFUSED, "RS_ERROR_INVALID_SIGNATURE")
        assert await client.transactions(0, 10) == NoAnswerReason.HTTP_ERROR
    assert await wallet.balance_minor() == START_MINOR
