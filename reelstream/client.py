"""The Python client SDK of reelstream (kafka-python): one spin request in, one settled outcome or rejection out.
Operators' roles, threads and safe retries: docs/client-guide.md."""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from kafka import TopicPartition
from kafka.errors import KafkaError

from reelstream.cashier_balance import CashierBalance, cashier_balances
from shared.config import load_settings
from shared.events import DecodeError, decode, encode, envelope, may_be
from shared.events.spin import SpinRejected, SpinRequested, SpinSettled
from shared.events.wallet import (
    AccountClosed,
    CloseAccount,
    CommandRejected,
    Deposit,
    Deposited,
    SelfExclude,
    SelfExcluded,
    Withdraw,
    Withdrawn,
)
from shared.kafka import kafka_consumer, producer as make_producer
from shared.operators import answers_topic, cashier_role, wallet_answers_topic
from shared.records import signed_headers
from shared.topics import SPIN_EVENTS, SPIN_REQUESTS, WALLET_COMMANDS, WALLET_EVENTS

# The answers a client waits for; every other record of spin.events and wallet.events is skipped unvalidated.
_CASHIER_ANSWERS = (Deposited, Withdrawn, SelfExcluded, AccountClosed)
_ANSWER_TYPES = frozenset(
    {SpinSettled.TYPE, SpinRejected.TYPE, CommandRejected.TYPE, *(answer.TYPE for answer in _CASHIER_ANSWERS)}
)
_CASHIER_TYPES = (Deposit.TYPE, Withdraw.TYPE, SelfExclude.TYPE, CloseAccount.TYPE)

_SEEN_MAX = 200_000
_RECENT_MAX = 20_000
# A poll that failed (the broker restarting, a truncated log after an unclean leader change) is tried again after this.
_READ_ERROR_PAUSE_S = 0.5


@dataclass(frozen=True)
class Settled:
    event_id: uuid.UUID
    data: SpinSettled

    @property
    def request_id(self) -> uuid.UUID:
        return self.data.request_id

    @property
    def win_minor(self) -> int:
        return self.data.win_minor

    @property
    def balance_after_minor(self) -> int | None:
        """None only for a seamless operator whose wallet acknowledged the win without a balance."""
        return self.data.balance_after_minor


@dataclass(frozen=True)
class Rejected:
    event_id: uuid.UUID
    data: SpinRejected

    @property
    def request_id(self) -> uuid.UUID | None:
        return self.data.request_id

    @property
    def code(self) -> str:
        return self.data.code

    @property
    def message(self) -> str:
        return self.data.message


class SpinTimeout(TimeoutError):
    """No answer in time; retry with `spin(..., request_id=error.request_id)` (safe: same id, same answer)."""

    def __init__(self, request_id: uuid.UUID, timeout_s: float) -> None:
        super().__init__(f"no answer to spin request {request_id} within {timeout_s:.1f} s")
        self.request_id = request_id


class _Waiter:
    def __init__(self, game: str, stake_minor: int) -> None:
        self.game, self.stake_minor = game, stake_minor
        self.done = threading.Event()
        self.answer: Any = None

    def offer(self, answer: Any) -> None:
        # One request id may carry two answers when a client reused it for another spin: the original's answer and a
        # DUPLICATE_CONFLICT for the other. Each names its own game and stake; take only the one about our request.
        data = answer.data
        if isinstance(data, (SpinSettled, SpinRejected)) and data.game is not None:
            if (data.game, data.stake_minor) != (self.game, self.stake_minor):
                return
        if not self.done.is_set():
            self.answer = answer
            self.done.set()


class ReelstreamClient:
    def __init__(
        self,
        bootstrap_servers: str | None = None,
        topic_prefix: str | None = None,
        client_id: str = "reelstream-client",
        role: str | None = None,
        operator_id: str | None = None,
    ) -> None:
        settings = load_settings()
        # operator_id: the front end of one operator (shared/operators.py, role game-client.<O>): its spins name it and
        # its answers come from spin.answers.<O>, the only answer topic that role may read; None: spin.events.
        self.operator_id = operator_id
        answers = (answers_topic(operator_id),) if operator_id else (SPIN_EVENTS, WALLET_EVENTS)
        # role cashier.<O>: the operator's cashier signs with its own key and reads wallet.answers.<O> alone.
        self._cashier = "cashier"
        if operator_id is not None and role == cashier_role(operator_id):
            self._cashier, answers = role, (wallet_answers_topic(operator_id),)
        self._bootstrap = bootstrap_servers or settings.kafka_bootstrap_servers
        prefix = settings.topic_prefix if topic_prefix is None else topic_prefix
        self._prefix, self._role = prefix, role
        self._topic = lambda name: f"{prefix}{name}"
        # role: the principal the client connects as (shared.security); None: the process's ($REELSTREAM_KAFKA_ROLE).
        self._producer = make_producer(self._bootstrap, client_id=client_id, role=role, linger_ms=0)
        self._consumer = kafka_consumer(
            self._bootstrap,
            role=role,
            group_id=None,
            client_id=client_id,
            enable_auto_commit=False,
            isolation_level="read_committed",
        )
        tps = [
            TopicPartition(self._topic(name), partition)
            for name in answers
            for partition in self._consumer.partitions_for_topic(self._topic(name)) or ()
        ]
        self._consumer.assign(tps)
        self._consumer.seek_to_end(*tps)
        for tp in tps:
            self._consumer.position(tp)  # resolve "end" now: every answer to a later request is read
        self._lock = threading.Lock()
        self._waiters: dict[tuple[str, uuid.UUID], _Waiter] = {}
        self._recent: OrderedDict[tuple[str, uuid.UUID], Any] = OrderedDict()
        self._seen: OrderedDict[uuid.UUID, None] = OrderedDict()
        self.duplicates_dropped = 0
        # Polls that raised and were tried again, and the last one's error; `reader_error`: why the reader stopped.
        self.read_errors = 0
        self.last_read_error: str | None = None
        self.reader_error: str | None = None
        self._stopping = threading.Event()
        self._reader = threading.Thread(target=self._read_answers, name="reelstream-client-answers", daemon=True)
        self._reader.start()

    def spin(
        self,
        player_id: str,
        game: str,
        stake_minor: int,
        currency: str,
        token: str,
        *,
        request_id: uuid.UUID | None = None,
        timeout_s: float = 10.0,
        operator_id: str | None = None,
        forfeit_bonus_ring: bool = False,
    ) -> Settled | Rejected:
        """One spin: Settled or Rejected; raises SpinTimeout (retry with its request_id) when no answer comes in
        time."""
        request_id = request_id or uuid.uuid4()
        data = SpinRequested(
            request_id=request_id,
            player_id=player_id,
            game=game,
            stake_minor=stake_minor,
            currency=currency,
            session_token=token,
            operator_id=operator_id or self.operator_id,
            forfeit_bonus_ring=forfeit_bonus_ring,
        )
        value = encode(envelope(data, source="reelstream-client", time=datetime.now(timezone.utc)))
        waiter = _Waiter(game, stake_minor)
        with self._lock:
            self._waiters[("spin", request_id)] = waiter
            earlier = self._recent.get(("spin", request_id))
        if earlier is not None:
            waiter.offer(earlier)
        try:
            return self._send_and_wait(self._topic(SPIN_REQUESTS), player_id, value, waiter, request_id, timeout_s)
        finally:
            with self._lock:
                self._waiters.pop(("spin", request_id), None)

    def deposit(
        self,
        player_id: str,
        amount_minor: int,
        currency: str,
        *,
        transaction_id: uuid.UUID | None = None,
        timeout_s: float = 10.0,
        operator_id: str | None = None,
    ) -> Any:
        """Cashier deposit for demos and tests: the wallet's Deposited or CommandRejected payload. An operator's cashier
        names its operator (`operator_id` names another: the wallet refuses it OPERATOR_MISMATCH)."""
        return self._cashier_command(Deposit, player_id, amount_minor, currency, transaction_id, timeout_s, operator_id)

    def withdraw(
        self,
        player_id: str,
        amount_minor: int,
        currency: str,
        *,
        transaction_id: uuid.UUID | None = None,
        timeout_s: float = 10.0,
        operator_id: str | None = None,
    ) -> Any:
        """Cashier withdrawal: the wallet's Withdrawn or CommandRejected payload (as `deposit`)."""
        return self._cashier_command(
            Withdraw, player_id, amount_minor, currency, transaction_id, timeout_s, operator_id
        )

    def balances(self, player_id: str) -> list[CashierBalance]:
        """An operator's cashier's view of one of its players: per currency, the balance the player's latest result on
        wallet.answers.<O> carries, as of that result (`as_of`): spins since are not in it, and a player with no cashier
        result within the topic's retention (7 days) has none. Records without the wallet's signature are skipped."""
        if self._cashier == "cashier" or self.operator_id is None:
            raise ValueError(
                "balances() reads wallet.answers.<O>: use ReelstreamClient(operator_id=O, role='cashier.O')"
            )
        return cashier_balances(self._bootstrap, self._prefix, self.operator_id, player_id, self._cashier).balances

    def self_exclude(self, player_id: str, until: datetime | None, *, timeout_s: float = 10.0) -> Any:
        """Self-exclusion until `until` (None: indefinitely): the wallet's SelfExcluded or CommandRejected payload."""
        return self._send_cashier(
            SelfExclude(transaction_id=uuid.uuid4(), player_id=player_id, until=until, operator_id=self._named(None)),
            timeout_s,
        )

    def close_account(self, player_id: str, *, timeout_s: float = 10.0) -> Any:
        """Close the account for good: the wallet's AccountClosed or CommandRejected payload."""
        return self._send_cashier(
            CloseAccount(transaction_id=uuid.uuid4(), player_id=player_id, operator_id=self._named(None)), timeout_s
        )

    def _named(self, operator_id: str | None) -> str | None:
        return operator_id or (self.operator_id if self._cashier != "cashier" else None)

    def _cashier_command(
        self,
        model: type[Deposit] | type[Withdraw],
        player_id: str,
        amount_minor: int,
        currency: str,
        transaction_id: uuid.UUID | None,
        timeout_s: float,
        operator_id: str | None,
    ) -> Any:
        data = model(
            transaction_id=transaction_id or uuid.uuid4(),
            player_id=player_id,
            amount_minor=amount_minor,
            currency=currency,
            operator_id=self._named(operator_id),
        )
        return self._send_cashier(data, timeout_s)

    def _send_cashier(self, data: Any, timeout_s: float) -> Any:
        transaction_id, player_id = data.transaction_id, data.player_id
        value = encode(envelope(data, source="reelstream-client", time=datetime.now(timezone.utc)))
        waiter = _Waiter("", 0)
        with self._lock:
            self._waiters[("cashier", transaction_id)] = waiter
            earlier = self._recent.get(("cashier", transaction_id))
        if earlier is not None:  # asked again after a timeout: the answer came meanwhile (a repeat has its event id)
            waiter.offer(earlier)
        try:
            headers = signed_headers(self._cashier, WALLET_COMMANDS, player_id.encode(), value)
            return self._send_and_wait(
                self._topic(WALLET_COMMANDS), player_id, value, waiter, transaction_id, timeout_s, headers
            ).data
        finally:
            with self._lock:
                self._waiters.pop(("cashier", transaction_id), None)

    def _send_and_wait(
        self,
        topic: str,
        key: str,
        value: bytes,
        waiter: _Waiter,
        request_id: uuid.UUID,
        timeout_s: float,
        headers: list[tuple[str, bytes]] | None = None,
    ) -> Any:
        # Resend the identical record once halfway: a lost request is then still answered, a delivered one is a repeat.
        deadline = time.monotonic() + timeout_s
        for attempt in range(2):
            if not waiter.done.is_set():
                self._producer.send(topic, key=key.encode(), value=value, headers=headers).get(
                    timeout=max(1.0, timeout_s)
                )
            wait_s = deadline - time.monotonic() if attempt else timeout_s / 2
            if waiter.done.wait(max(0.0, wait_s)):
                return waiter.answer
        raise SpinTimeout(request_id, timeout_s)

    def _read_answers(self) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    polled = self._consumer.poll(timeout_ms=100)
                except KafkaError as error:
                    # Answers stay on the topic: a reader that stopped here would leave every later call of this
                    # client unanswered for good, so the poll is tried again.
                    with self._lock:
                        self.read_errors += 1
                        self.last_read_error = repr(error)
                    self._stopping.wait(_READ_ERROR_PAUSE_S)
                    continue
                for records in polled.values():
                    for record in records:
                        self._dispatch(record.value)
        except BaseException as error:
            self.reader_error = repr(error)
            raise

    def _dispatch(self, value: bytes | None) -> None:
        if not may_be(value, _ANSWER_TYPES):
            return  # most of wallet.events answers no client request: not worth a validation each
        try:
            message = decode(value, expect_kind="event")
        except DecodeError:
            return  # not ours to judge: the services dead-letter what they cannot read
        data = message.data
        if isinstance(data, SpinSettled):
            answer, key = Settled(message.id, data), ("spin", data.request_id)
        elif isinstance(data, SpinRejected) and data.request_id is not None:
            answer, key = Rejected(message.id, data), ("spin", data.request_id)
        elif isinstance(data, _CASHIER_ANSWERS) or (
            isinstance(data, CommandRejected) and data.command_type in _CASHIER_TYPES
        ):
            answer, key = message, ("cashier", data.transaction_id)
        else:
            return
        with self._lock:
            if message.id in self._seen:
                self.duplicates_dropped += 1
                return
            self._seen[message.id] = None
            _bound(self._seen, _SEEN_MAX)
            # These answer one record, not the request id: a later request with the id must wait for its own answer.
            if not (isinstance(answer, Rejected) and answer.code in ("DUPLICATE_CONFLICT", "WRONG_PARTITION")):
                self._recent[key] = answer
                _bound(self._recent, _RECENT_MAX)
            waiter = self._waiters.get(key)
        if waiter is not None:
            waiter.offer(answer)

    @property
    def reading(self) -> bool:
        """Whether the background answer reader still runs (a record it cannot parse would stop it)."""
        return self._reader.is_alive()

    def close(self) -> None:
        self._stopping.set()
        self._reader.join(timeout=5)
        self._consumer.close(autocommit=False)
        self._producer.close(timeout=10)

    def __enter__(self) -> "ReelstreamClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _bound(ordered: OrderedDict, limit: int) -> None:
    while len(ordered) > limit:
        ordered.popitem(last=False)
