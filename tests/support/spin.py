"""The spin core under test: `spin_core(ctx).given(facts).when(message, now).then(facts)` (tests/support/gwt.py) with
the messages the loop hands it (`request`, `fact`), hand-written fakes (a stateless and a stateful game whose outcome
is read off the seed), and `handle_request` / `handle_event`, which take a record the way the runner does (the loop's
read, the core's decision, the adapter's records out, no broker): for tests of the adapter's bytes."""

from __future__ import annotations

import uuid
import weakref
from dataclasses import dataclass
from typing import Any

from services.spin.adapters.answers import kept_answers
from services.spin.adapters.outputs import emits
from services.spin.adapters.runner import SPECS
from tests.support.reads import request_message
from services.spin.core.book import SpinBook
from services.spin.core.catalog import Catalog
from services.spin.core.decide import SpinCore
from services.spin.core.effects import Context
from services.spin.core.progress import WALLET_TYPES
from shared.decision import Decision, Message
from shared import inbound
from shared.emit import Emitter
from shared.inbound import Inbound
from shared.repeats import Repeats
from shared.topics import SPIN_JACKPOT_ANSWERS, SPIN_JOURNAL, SPIN_REQUESTS, WALLET_EVENTS
from tests.support.gwt import Core
from games import GameResult
from games.registry import UnknownModel
from games.rng import SpinRng
from shared.events import Envelope, decode, encode, envelope
from shared.events.envelope import broker_time, epoch_ms
from shared.events.spin import SpinRequested
from shared.pools import load_pools

NOW_MS = 1_800_000_000_000
GOOD_TOKEN = "good"


class _NoRemainder:
    """The fakes carry no sub-cent remainder (the real Rising Joker engine is used where one matters)."""

    def remainder_micro(self, state: dict[str, Any]) -> int | None:
        return None

    def stranded_remainder_micro(self, state: dict[str, Any], stake_minor: int) -> int:
        return 0

    def without_remainder(self, state: dict[str, Any]) -> dict[str, Any]:
        return state


@dataclass
class SeedReadingSlot(_NoRemainder):
    """Stateless (like Rising Joker): win = first seed word % 3 x stake; a claim of "green" when the word % 7 == 0."""

    game: str = "rising-joker"
    currency: str = "EUR"
    model_version: str = "fake-slot-v1"
    model_sha256: str = "a" * 64
    outcome_manifest_sha256: str = "c" * 64
    stakes_minor: tuple[int, ...] = (10, 20, 100)
    fail: bool = False

    def initial_state(self) -> dict[str, Any]:
        return {}

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        return None

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        return state

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        if self.fail:
            raise RuntimeError("engine broken")
        word = rng.next_u64()
        claims = ("green",) if word % 7 == 0 else ()
        return GameResult(word % 3 * stake_minor, 5, claims, {"word": word}, {})


@dataclass
class RingGame(_NoRemainder):
    """Stateful (like Stjernestøv): an odd first word adds a bonus symbol to the ring, locking the stake."""

    game: str = "stjernestoev"
    currency: str = "DKK"
    model_version: str = "fake-ring-v1"
    model_sha256: str = "b" * 64
    outcome_manifest_sha256: str = "c" * 64
    stakes_minor: tuple[int, ...] = (50, 100)

    def initial_state(self) -> dict[str, Any]:
        return {"ring": 0, "stake": None}

    def locked_stake(self, state: dict[str, Any]) -> int | None:
        return state["stake"] if state["ring"] else None

    def forfeit(self, state: dict[str, Any]) -> dict[str, Any]:
        return self.initial_state()

    def play(self, state: dict[str, Any], stake_minor: int, rng: SpinRng) -> GameResult:
        assert self.locked_stake(state) in (None, stake_minor)
        word = rng.next_u64()
        after = {"ring": state["ring"] + 1, "stake": stake_minor} if word % 2 else {"ring": 0, "stake": None}
        claims = ("supernova",) if word % 5 == 0 else ()
        return GameResult(0, 0, claims, {"word": word}, after)


class Seeds:
    """A seed source that hands out given seeds in order (then counts up), and remembers how often it was asked."""

    def __init__(self, *seeds: bytes) -> None:
        self.queue = list(seeds)
        self.drawn = 0

    def __call__(self, player_id: str, request_id: uuid.UUID) -> bytes:
        self.drawn += 1
        return self.queue.pop(0) if self.queue else self.drawn.to_bytes(32, "big")


def seed_for(predicate, game) -> bytes:
    """The first counter seed whose first RNG word satisfies predicate(word)."""
    for n in range(1, 10_000):
        seed = n.to_bytes(32, "big")
        if predicate(SpinRng(seed).next_u64()):
            return seed
    raise AssertionError("no seed found")


# Seeds of the stand-in slot (SeedReadingSlot): its first RNG word decides whether the spin claims a jackpot tier.
NO_CLAIM = seed_for(lambda word: word % 7 != 0 and word % 3 == 2, "rising-joker")
CLAIM = seed_for(lambda word: word % 7 == 0, "rising-joker")


def make_context(seeds: Seeds | None = None, slot: SeedReadingSlot | None = None, shipped: bool = True) -> Context:
    """`shipped=False`: the recorded model version is not in this build (its spins cannot be played)."""
    games = {"rising-joker": slot or SeedReadingSlot(), "stjernestoev": RingGame()}
    pools = load_pools()

    def engine(game: str):
        return games[game]

    def engine_for_model(game: str, version: str):
        if not shipped:
            raise UnknownModel(f"{game} has no released model {version!r}")
        return games[game]

    return Context(
        catalog=Catalog(engine, engine_for_model, pools.network_for_game),
        token_problem=lambda token, player, now_ms: None if token == GOOD_TOKEN else "bad signature",
        draw_seed=seeds or Seeds(),
    )


def request_bytes(
    player="p-1",
    game="rising-joker",
    stake=10,
    currency="EUR",
    token=GOOD_TOKEN,
    request_id: uuid.UUID | None = None,
    time_ms: int = NOW_MS,
    forfeit: bool = False,
    event_id: uuid.UUID | None = None,
    operator: str | None = None,
) -> tuple[uuid.UUID, bytes]:
    request_id = request_id or uuid.uuid4()
    data = SpinRequested(
        request_id=request_id,
        player_id=player,
        game=game,
        stake_minor=stake,
        currency=currency,
        session_token=token,
        operator_id=operator,
        forfeit_bonus_ring=forfeit,
    )
    return request_id, encode(
        envelope(data, source="test-client", time=broker_time(time_ms), id=event_id or uuid.uuid4())
    )


def decoded(out) -> Any:
    """The payload of a decided message (an Envelope) or of a record out (its bytes decoded)."""
    return out.data if isinstance(out, Envelope) else decode(out.value).data


def wallet_event(data) -> Any:
    return decode(encode(envelope(data, source="test-wallet", time=broker_time(NOW_MS), id=uuid.uuid4())))


def debited_for(debit_out, balance_after_minor: int = 1000):
    from shared.events.wallet import WagerDebited

    command = decoded(debit_out)
    return wallet_event(
        WagerDebited(
            transaction_id=command.transaction_id,
            player_id=command.player_id,
            recorded_at=broker_time(NOW_MS),
            currency=command.currency,
            postings=(),
            balance_after_minor=balance_after_minor,
            amount_minor=command.amount_minor,
            game=command.game,
        )
    )


def debit_refused_for(wager_out, code: str = "INSUFFICIENT_FUNDS"):
    """The wallet's refusal of a wager command (a DebitWager or a PlaceWager: its command_type says which)."""
    from shared.events.wallet import CommandRejected

    command = decoded(wager_out)
    return wallet_event(
        CommandRejected(
            transaction_id=command.transaction_id,
            player_id=command.player_id,
            recorded_at=broker_time(NOW_MS),
            command_type=command.TYPE,
            code=code,
            message="no",
        )
    )


def settled_for(settle_out, balance_after_minor: int = 2000):
    """The wallet's WagerSettled for a SettleWager, or for the settlement half of a PlaceWager."""
    from shared.events.wallet import PlaceWager, WagerSettled

    command = decoded(settle_out)
    placed = isinstance(command, PlaceWager)
    jackpot_win = 0 if placed else command.jackpot_win_minor
    return wallet_event(
        WagerSettled(
            transaction_id=command.settlement_id if placed else command.transaction_id,
            player_id=command.player_id,
            recorded_at=broker_time(NOW_MS),
            currency=command.currency,
            postings=(),
            balance_after_minor=balance_after_minor,
            wager_id=command.transaction_id if placed else command.wager_id,
            win_minor=command.house_win_minor + jackpot_win,
            house_win_minor=command.house_win_minor,
            jackpot_win_minor=jackpot_win,
            breakage_micro=command.breakage_micro,
            contribution_micro=command.contribution_micro,
            network_id=command.network_id,
        )
    )


def placed_for(place_out, balance_after_minor: int = 2000) -> tuple[Any, Any]:
    """The two facts the wallet writes for an accepted PlaceWager: its debit, then its settlement."""
    return debited_for(place_out), settled_for(place_out, balance_after_minor)


def refunded_for(refund_out):
    from shared.events.wallet import WagerRefunded

    command = decoded(refund_out)
    return wallet_event(
        WagerRefunded(
            transaction_id=command.transaction_id,
            player_id=command.player_id,
            recorded_at=broker_time(NOW_MS),
            currency=command.currency,
            postings=(),
            balance_after_minor=1000,
            wager_id=command.wager_id,
            amount_minor=10,
            reason=command.reason,
        )
    )


def won_for(claim_out, amount_minor: int = 777):
    from shared.events.jackpot import JackpotWon, PoolMovement

    claim = decoded(claim_out)
    movement = PoolMovement(
        pool_id="dm-green",
        opening_micro=10**9,
        paid_micro=amount_minor * 10**6,
        closing_micro=10**9 - amount_minor * 10**6,
    )
    event = wallet_event(
        JackpotWon(
            network_id=claim.network_id,
            recorded_at=broker_time(NOW_MS),
            claim_id=claim.claim_id,
            request_id=claim.request_id,
            player_id=claim.player_id,
            pool_id="dm-green",
            tier=claim.tier,
            currency=claim.currency,
            stake_minor=claim.stake_minor,
            share_ppm=5000,
            amount_minor=amount_minor,
            level_before_micro=10**9,
            level_after_micro=10**9 - amount_minor * 10**6,
            movement=movement,
        )
    )
    return event, encode(event)


def claim_refused_for(claim_out):
    from shared.events.jackpot import ClaimRejected

    claim = decoded(claim_out)
    event = wallet_event(
        ClaimRejected(
            network_id=claim.network_id,
            recorded_at=broker_time(NOW_MS),
            claim_id=claim.claim_id,
            request_id=claim.request_id,
            player_id=claim.player_id,
            tier=claim.tier,
            code="POOL_DISABLED",
            message="off",
        )
    )
    return event, encode(event)


def only(outs, kind: str):
    found = [out for out in outs if out.kind == kind]
    assert len(found) == 1, f"expected one {kind}, got {[o.kind for o in outs]}"
    return found[0]


def wager_out(outs):
    """The one command that takes an accepted spin's wager: a PlaceWager, or a DebitWager for a spin with a claim."""
    found = [out for out in outs if out.kind in ("place", "debit")]
    assert len(found) == 1, f"expected one wager command, got {[o.kind for o in outs]}"
    return found[0]


def spin_core(ctx: Context) -> Core[SpinBook]:
    """The spin core with its ports bound; `given` facts are folded as a restore reads them back (their bytes are the
    adapter's, not the core's)."""
    core = SpinCore(ctx)
    return Core(
        lambda: core.new_state(0), lambda book, event, raw=None: core.evolve(book, read_back(event)), core.decide
    )


def read_back(event: Envelope[Any], proof: Any = None) -> Message:
    """A fact of the spin's own log as a restore folds it: written at its own time, its proof kept."""
    return Message(event, epoch_ms(event.time), proof=proof)


_ANSWERS: dict[int, Repeats] = {}


def answers_of(book: SpinBook) -> Repeats:
    """The answers the adapter keeps beside `book` as first written (the runner keeps one per partition)."""
    if id(book) not in _ANSWERS:
        _ANSWERS[id(book)] = kept_answers()
        weakref.finalize(book, _ANSWERS.pop, id(book), None)
    return _ANSWERS[id(book)]


@dataclass(frozen=True)
class Record:
    """A consumed record, as the runner sees one."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int
    headers: tuple = ()


def request(
    raw: bytes | None,
    key: bytes | None = b"p-1",
    now_ms: int = NOW_MS,
    partition: int = 0,
    offset: int = 0,
    partitions: int = 0,
) -> Message:
    """A spin.requests record as the loop hands it to the core (shared/inbound.py; `partitions` 0: not checked)."""
    return request_message(Record(SPIN_REQUESTS, partition, offset, key, raw, now_ms), partitions)


def fact(event: Envelope[Any], now_ms: int = NOW_MS, proof: Any = None) -> Message:
    """A wallet fact or jackpot answer as the loop hands it to the core: its owner vouches for it, `proof` attached."""
    wallet = isinstance(event.data, WALLET_TYPES)
    logical = WALLET_EVENTS if wallet else SPIN_JACKPOT_ANSWERS
    writer = "wallet" if wallet else "jackpot"
    return Message(event, now_ms, writer, proof=proof, key=event.subject, cause=(logical, 0, 0))


def one(messages: tuple[Envelope[Any], ...], kind: type) -> Envelope[Any]:
    """The one message of a Decision's events, commands or answers whose payload is a `kind`."""
    found = [message for message in messages if isinstance(message.data, kind)]
    assert len(found) == 1, f"expected one {kind.__name__}, got {[type(m.data).__name__ for m in messages]}"
    return found[0]


def wager(decision: Decision) -> Envelope[Any]:
    """The one command of a Decision that takes an accepted spin's wager: a PlaceWager, or a DebitWager (a claim)."""
    from shared.events.wallet import DebitWager, PlaceWager

    found = [command for command in decision.commands if isinstance(command.data, (PlaceWager, DebitWager))]
    assert len(found) == 1, f"expected one wager command, got {[type(c.data).__name__ for c in decision.commands]}"
    return found[0]


def play_out(given: Any, asked: Any, now: Any = None) -> list[Any]:
    """An accepted spin's wager taken and settled by a wallet that accepts it (claims answered as won), each step
    decided by the spin `given` (gwt), and the steps; [] when the request was refused."""
    from shared.events.jackpot import Claim
    from shared.events.wallet import DebitWager, PlaceWager, SettleWager

    now, steps = now or broker_time(NOW_MS), []
    wager = [command for command in asked.decision.commands if isinstance(command.data, (PlaceWager, DebitWager))]
    if not wager:
        return steps
    if isinstance(wager[0].data, PlaceWager):
        return [given.when(fact(placed), now) for placed in placed_for(wager[0])]
    steps.append(given.when(fact(debited_for(wager[0])), now))
    settle = [command for command in steps[-1].decision.commands if isinstance(command.data, SettleWager)]
    for claim in [command for command in steps[-1].decision.commands if isinstance(command.data, Claim)]:
        steps.append(given.when(fact(won_for(claim)[0]), now))
        settle += [command for command in steps[-1].decision.commands if isinstance(command.data, SettleWager)]
    if settle:
        steps.append(given.when(fact(settled_for(settle[-1])), now))
    return steps


def sent(decision: Decision) -> list[str]:
    """What a Decision sends out of the book (every output but its journal facts): its commands' and answers' payload
    class names, its rerouted answers' and its dead letters' codes, in that order."""
    every = (*decision.commands, *decision.answers)
    return (
        [type(m.data).__name__ for m in every]
        + [m.data.code for m in decision.rerouted]
        + [refusal.code for refusal in decision.dead_letters]
    )


@dataclass(frozen=True)
class Out:
    """A record out as the spin's adapter tests read it: its logical topic, and its kind (the runner's tag for it, or
    "dlq" for a dead letter)."""

    topic: str
    key: bytes | None
    value: bytes
    kind: str
    headers: tuple[tuple[str, bytes], ...] = ()
    partition: int | None = None


@dataclass
class Effects:
    """The records of one input's Decision: its journal facts, then everything else, in the order they are sent."""

    journal: list[Out]
    outputs: list[Out]


def effects_of(outputs: list[Any]) -> Effects:
    """The spin's Outputs of one input (shared/emit.py, on unprefixed topics) as Effects."""
    outs = [
        Out(
            out.topic,
            out.key,
            out.value,
            "dlq" if out.dead_letter else out.tag,
            tuple(out.headers),
            out.partition,
        )
        for out in outputs
    ]
    journal = [out for out in outs if out.topic == SPIN_JOURNAL and out.kind != "dlq"]
    return Effects(journal, [out for out in outs if out not in journal])


def _emitter(ctx: Context, core: Any = None) -> Emitter:
    """The spin's path (shared/emit.py with services/spin/adapters/outputs.py), on unprefixed topics."""
    return Emitter(emits(ctx), core or SpinCore(ctx), lambda logical: logical, None)


@dataclass(frozen=True)
class _Decided:
    """A core that decides what it is told."""

    decision: Decision

    def decide(self, state: Any, message: Message, now: Any) -> Decision:
        return self.decision


def emitted(book: SpinBook, ctx: Context, found: Inbound, partition: int) -> Effects:
    """One read record through the spin's path, the book's answers kept beside it (`answers_of`)."""
    return effects_of(_emitter(ctx).batch(partition, book, [found], answers_of(book))[0])


def outputs_of(decision: Decision, book: SpinBook | None = None, logical: str = SPIN_REQUESTS) -> Effects:
    """The records of a Decision on a record of `logical` the test does not need."""
    found = Inbound(Record(logical, 0, 0, None, b"", NOW_MS), SPECS[logical], Message(None, NOW_MS))
    book = book if book is not None else SpinBook()
    return effects_of(_emitter(make_context(), _Decided(decision)).batch(0, book, [found], answers_of(book))[0])


def handle_request(
    book: SpinBook,
    ctx: Context,
    raw: bytes | None,
    key: bytes | None,
    now_ms: int,
    partition: int,
    offset: int,
    partitions: int = 0,
) -> Effects:
    """One spin.requests record through the runner's path: its message, the core's decision, the records out."""
    record = Record(SPIN_REQUESTS, partition, offset, key, raw, now_ms)
    found = inbound.read(SPECS[SPIN_REQUESTS], record, partitions)
    assert found.message is not None, "every spin.requests record is read"
    return emitted(book, ctx, found, partition)


def handle_event(
    book: SpinBook, ctx: Context, event, now_ms: int = NOW_MS, partition: int = 0, proof: Any = None
) -> Effects:
    """A decoded wallet fact or jackpot answer decided, and the records out."""
    record = Record(WALLET_EVENTS, partition, 0, event.key, encode(event), now_ms)
    return emitted(book, ctx, Inbound(record, SPECS[WALLET_EVENTS], fact(event, now_ms, proof)), partition)
