"""A settled spin's logic CPU per service, without a broker: the spin service's decision on a request, the wallet's on
the PlaceWager it wrote, the spin's on the wallet's two facts, the jackpot's on the Contribute."""

# Each service's own record handling (`SpinRunner.decide`, the wallet's emitter, `JackpotService.decide`) is fed the
# others' real bytes, so this is the saga's work minus what the null sagas also do (fetch, produce, transactions,
# signatures): the part #17's burst and rate targets need smaller (docs/spin.md, "Three hops: the logic's CPU
# per spin").
# `make bench-saga-cpu` (under `flock /tmp/reelstream-bench.lock`): medians of ROUNDS rounds, µs per settled spin, each
# round on fresh books (PLAYERS funded players, SPINS spins of Rising Joker). Records are not signed (the environment's
# signing directory is set aside while it runs): `reelstream bench signing` measures the signatures.

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiokafka.structs import ConsumerRecord

from services.jackpot.adapters.records import INPUTS as JACKPOT_INPUTS
from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from services.spin.adapters.runner import SPECS, SnapshotPolicy, SpinRunner
from services.spin.app import warm_up
from services.spin.core.book import SpinBook
from services.spin.core.catalog import registry_catalog
from services.spin.core.effects import Context
from services.wallet.adapters.handler import INPUTS as WALLET_INPUTS
from services.wallet.adapters.handler import emitter as wallet_emitter
from services.wallet.adapters.written import Written
from services.wallet.core.book import WalletBook
from shared import inbound, records
from shared.config import load_settings
from shared.events import decode, encode, envelope
from shared.events.envelope import broker_time
from shared.events.spin import SpinRequested, SpinSettled
from shared.events.wallet import Deposit
from shared.session import issue_token, key_ring, token_problem
from shared.signing import SIGNING_DIR_ENV
from shared.topics import (
    JACKPOT_INTERNAL,
    SPIN_JACKPOT_ANSWERS,
    SPIN_REQUESTS,
    WALLET_COMMANDS,
    WALLET_EVENTS,
    WALLET_INTERNAL,
)

SERVICES = ("spin request", "wallet", "spin wallet facts", "jackpot", "spin jackpot answers")
GAME, STAKE, CURRENCY = "rising-joker", 10, "EUR"
_NOW_MS = 1_800_000_000_000
_LOG_APPEND_TIME = 1  # the timestamp type of the platform's topics (the broker's time)
_KEYS = "bench:" + "k" * 40  # a session key of the bench's own (the spin checks each request's token with it)


@dataclass
class Saga:
    """The three services' deciders on fresh books, one partition each, fed each other's records."""

    spin: SpinRunner
    jackpot: JackpotService
    spin_book: SpinBook = field(default_factory=SpinBook)
    wallet_book: WalletBook = field(default_factory=lambda: WalletBook(0))
    jackpot_states: dict = field(default_factory=dict)
    offset: int = 0
    wallet_written: Written = field(default_factory=Written)  # where the wallet's facts are (for its repeats)
    wallet: Any = field(default_factory=lambda: wallet_emitter(WALLET_EVENTS, WALLET_COMMANDS))
    wallet_events: int = 0

    def spin_step(self, topic: str, key: bytes | None, value: bytes, headers: Sequence, at_ms: int) -> list[Any]:
        record = self._consumed(topic, key, value, headers, at_ms)
        return self.spin.decide(0, self.spin_book, [inbound.read(SPECS[topic], record, 0, self.spin_book)])

    def wallet_step(self, topic: str, key: bytes | None, value: bytes, headers: Sequence, at_ms: int) -> list[Any]:
        record = self._consumed(topic, key, value, headers, at_ms)
        spec = WALLET_INPUTS[1] if topic == WALLET_INTERNAL else WALLET_INPUTS[0]
        self.wallet_written.begin()  # each record a batch of its own, committed at once: the most bookkeeping a record
        found = inbound.read(spec, record, None)
        outputs = self.wallet.batch(0, self.wallet_book, [found], self.wallet_written)[0]
        events = sum(1 for out in outputs if not out.dead_letter and out.topic is None)
        self.wallet_written.committed(list(range(self.wallet_events, self.wallet_events + events)))
        self.wallet_events += events
        return outputs

    def jackpot_step(self, key: bytes | None, value: bytes, headers: Sequence, at_ms: int) -> list[Any]:
        record = self._consumed(JACKPOT_INTERNAL, key, value, headers, at_ms)
        return self.jackpot.decide(0, self.jackpot_states, [inbound.read(JACKPOT_INPUTS[1], record, None)])

    def _consumed(self, topic: str, key: bytes | None, value: bytes, headers: Sequence, at_ms: int) -> ConsumerRecord:
        """The record as the services' loops hand one over: aiokafka's own type, broker (LogAppendTime) time."""
        self.offset += 1
        sizes = (len(key) if key is not None else -1, len(value))
        return ConsumerRecord(topic, 0, self.offset, at_ms, _LOG_APPEND_TIME, key, value, None, *sizes, tuple(headers))


def new_saga(players: int) -> Saga:
    catalog = registry_catalog()
    warm_up(catalog)
    ring = key_ring(_KEYS)
    ctx = Context(
        catalog=catalog,
        token_problem=lambda token, player, now_ms: _problem(token_problem(ring, token, player, now_ms)),
        draw_seed=lambda _player, _request: os.urandom(32),
    )
    spin = SpinRunner(load_settings(), ctx, SnapshotPolicy(enabled=False))
    jackpot = JackpotService(JackpotConfig.on_prefix("localhost:1", ""))
    saga = Saga(spin, jackpot)
    cashier = tuple(records.headers_for("cashier"))
    for n in range(players):
        deposit = Deposit(transaction_id=uuid.uuid4(), player_id=_player(n), amount_minor=10**9, currency=CURRENCY)
        message = envelope(deposit, source="bench", time=broker_time(_NOW_MS))
        (fact,) = saga.wallet_step(WALLET_COMMANDS, message.key, encode(message), cashier, _NOW_MS)
        assert not fact.dead_letter, "a deposit is accepted"
    return saga


def _problem(problem: Any) -> str | None:
    return None if problem is None else problem.value


def _player(n: int) -> str:
    return f"bench-{n}"


def requests(spins: int, players: int) -> list[tuple[bytes, bytes]]:
    """Each spin's request record (key, value), as a game client writes it (built before the timing)."""
    made = []
    for n in range(spins):
        player = _player(n % players)
        token = issue_token(_KEYS, player, _NOW_MS + 3_600_000)
        data = SpinRequested(
            request_id=uuid.uuid4(),
            player_id=player,
            game=GAME,
            stake_minor=STAKE,
            currency=CURRENCY,
            session_token=token,
        )
        message = envelope(data, source="bench-client", time=broker_time(_NOW_MS))
        made.append((message.key, encode(message)))
    return made


_TO_WALLET = {"place", "debit", "settle", "refund"}
_TO_JACKPOT = {"contribute", "claim"}


def one_round(spins: int, players: int) -> dict[str, float]:
    """µs of CPU (the thread's) per settled spin in each service's decisions, over one round on fresh books: each
    spin's records handed from service to service until it is answered (a spin with a jackpot claim takes its longer
    way: debit, contribution and claim, the jackpot's answer, the settlement)."""
    saga, asked = new_saga(players), requests(spins, players)
    spent = dict.fromkeys(SERVICES, 0.0)
    clock = time.thread_time  # CPU time: what the VM steals from the process is not counted
    claimed = 0
    for n, (key, value) in enumerate(asked):
        at = _NOW_MS + n
        started = clock()
        pending = saga.spin_step(SPIN_REQUESTS, key, value, (), at)
        spent["spin request"] += clock() - started
        answers = []
        while pending:
            out = pending.pop(0)
            started = clock()
            if out.tag in _TO_WALLET:
                facts = saga.wallet_step(WALLET_INTERNAL, out.key, out.value, out.headers, at)
                spent["wallet"] += clock() - started
                started = clock()
                for fact in facts:
                    pending += saga.spin_step(WALLET_EVENTS, fact.key, fact.value, fact.headers, at)
                spent["spin wallet facts"] += clock() - started
            elif out.tag in _TO_JACKPOT:
                claimed += out.tag == "claim"
                sent = saga.jackpot_step(out.key, out.value, out.headers, at)
                answered = saga.jackpot.derived(0, sent)
                spent["jackpot"] += clock() - started
                started = clock()
                for answer in answered:
                    pending += saga.spin_step(SPIN_JACKPOT_ANSWERS, answer.key, answer.value, answer.headers, at)
                spent["spin jackpot answers"] += clock() - started
            elif out.tag == "answer":
                answers.append(out)
        _check(answers)
    figures = {name: seconds / spins * 1e6 for name, seconds in spent.items()}
    return figures | {"claims_per_spin": claimed / spins}


def _check(answers: list[Any]) -> None:
    """Every spin of the round settled: a round that stops short measures nothing."""
    assert len(answers) == 1 and isinstance(decode(answers[0].value).data, SpinSettled), "the spin is settled"


@contextlib.contextmanager
def _unsigned() -> Iterator[None]:
    """The records unsigned while measuring: the signing directory set aside, then put back."""
    kept = os.environ.pop(SIGNING_DIR_ENV, None)
    try:
        yield
    finally:
        if kept is not None:
            os.environ[SIGNING_DIR_ENV] = kept


def measure(spins: int = 2_000, players: int = 1_000, rounds: int = 5) -> dict[str, float]:
    """Medians over `rounds` of µs per settled spin, per service and in all (the rounds' own totals' median)."""
    with _unsigned():
        one_round(200, 50)  # imports, the compiled kernel, first-use caches
        taken = [one_round(spins, players) for _ in range(rounds)]
    medians = {name: statistics.median(r[name] for r in taken) for name in (*SERVICES, "claims_per_spin")}
    medians["total"] = statistics.median(sum(r[name] for name in SERVICES) for r in taken)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spins", type=int, default=2_000, help="settled spins a round (default 2,000)")
    parser.add_argument("--players", type=int, default=1_000, help="funded players a round (default 1,000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds; medians are quoted (default 5)")
    parser.add_argument("--out", help="write the figures as JSON here too")
    args = parser.parse_args()
    for name, value, low in (("spins", args.spins, 1), ("players", args.players, 1), ("rounds", args.rounds, 1)):
        if not low <= value <= 1_000_000:
            parser.error(f"--{name} must be between {low} and 1,000,000")
    figures = measure(args.spins, args.players, args.rounds)
    print(f"logic CPU per settled spin, µs, medians of {args.rounds} rounds of {args.spins:,} spins:")
    for name, value in figures.items():
        print(f"  {name:20s} {value:8.1f}")
    if args.out:
        document = {"spins": args.spins, "players": args.players, "rounds": args.rounds, "us_per_spin": figures}
        with open(args.out, "w") as handle:
            json.dump(document, handle, indent=2)


if __name__ == "__main__":
    main()
