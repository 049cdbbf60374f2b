"""The one path from Decisions to records (shared/emit.py): an output goes where the service's declared table routes
its payload class, whatever topic the class names; the spin's batch sends its journal (the seeds) before any record
that reveals an outcome; the jackpot's facts carry their request's trace, else the batch's latest (a run of
contributions shares its headers, so the loop packs it)."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass

from services.jackpot.adapters.records import EMITS
from services.jackpot.core.decide import JackpotCore
from services.spin.adapters.runner import SPECS, SnapshotPolicy, SpinRunner
from services.spin.core.book import SpinBook
from shared import emit, inbound
from shared.config import load_settings
from shared.decision import Decision, Message
from shared.emit import KEY, Emits, Emitter, Route
from shared.events import envelope
from shared.events.envelope import broker_time
from shared.events.wallet import DebitWager
from shared.inbound import Inbound, Input
from shared.topics import JACKPOT_INTERNAL, SPIN_REQUESTS, WALLET_INTERNAL
from tests.support.jackpot import DIAMOND, T0_MS, claim, contribute, incoming, pools_of
from tests.support.spin import NO_CLAIM, NOW_MS, Record, Seeds, make_context, request_bytes


@dataclass(frozen=True)
class _Told:
    """A core that decides what it is told."""

    decision: Decision

    def decide(self, state, message, now) -> Decision:
        return self.decision


def test_a_command_goes_where_the_declared_table_routes_its_class_not_where_the_class_names():
    debit = DebitWager(
        transaction_id=uuid.uuid4(), player_id="p-1", game="rising-joker", amount_minor=10, currency="EUR"
    )
    command = envelope(debit, source="test", time=broker_time(NOW_MS))
    assert debit.TOPIC == WALLET_INTERNAL
    emits = Emits(writer="spin", span="test", routes={DebitWager: Route("x.elsewhere", KEY, "debit")})
    emitter = Emitter(emits, _Told(Decision(commands=(command,))), lambda logical: "p." + logical, None)
    found = Inbound(Record("p.in", 3, 0, None, b"", NOW_MS), Input("in"), Message(None, NOW_MS))
    (out,) = emitter.batch(3, None, [found])[0]
    assert (out.topic, out.partition, out.tag, out.key) == ("p.x.elsewhere", None, "debit", b"p-1")


def test_a_spin_batch_sends_every_journal_fact_before_any_other_record():
    runner = SpinRunner(load_settings(), make_context(Seeds(NO_CLAIM)), SnapshotPolicy(enabled=False))
    records = [
        Record(SPIN_REQUESTS, 0, offset, player.encode(), request_bytes(player=player)[1], NOW_MS)
        for offset, player in enumerate(("p-1", "p-2"))
    ]
    found = [inbound.read(SPECS[SPIN_REQUESTS], record, 0) for record in records]
    tags = [out.tag for out in runner.decide(0, SpinBook(), found)]
    journal = [tag in ("journal", "seed") for tag in tags]
    assert journal.count(True) >= 2 and journal.count(False) >= 2, tags
    assert journal == sorted(journal, reverse=True), tags


def _traced_by_value(monkeypatch) -> None:
    """Tracing on, each record's trace named by its bytes."""
    trace = lambda name, headers, partition, value: contextlib.nullcontext((("traceparent", value),))  # noqa: E731
    monkeypatch.setattr(emit.observability, "consume_span", trace)


def _jackpot_batch(*commands) -> list:
    emitter = Emitter(EMITS, JackpotCore(pools_of(DIAMOND)), lambda _: "t.spin.jackpot-answers", "t.jackpot.commands")
    found = [
        Inbound(Record("t.jackpot.internal", 0, n, None, b"t%d" % n, T0_MS + n), Input(JACKPOT_INTERNAL), message)
        for n, message in enumerate(incoming(command, T0_MS + n) for n, command in enumerate(commands))
    ]
    return emitter.batch(0, {}, found)[0]


def test_a_jackpot_batchs_contributions_share_its_latest_trace_and_a_claims_answer_keeps_its_own(monkeypatch):
    _traced_by_value(monkeypatch)
    contributed = _jackpot_batch(contribute(), contribute())
    assert len(contributed) >= 2 and {dict(out.headers)["traceparent"] for out in contributed} == {b"t1"}
    claimed = _jackpot_batch(claim(tier="green", stake_minor=100), contribute())
    answers = [out for out in claimed if out.copy is not None]  # the claim's answer, copied to the player's partition
    assert [dict(out.headers)["traceparent"] for out in answers] == [b"t0"]
    assert {dict(out.headers)["traceparent"] for out in claimed if out.copy is None} == {b"t1"}


def test_each_decision_s_events_are_counted_for_the_snapshot_policy_in_one_place():
    counted: list[tuple[int, int]] = []

    class _Restoring:
        def changed(self, partition: int, count: int) -> None:
            counted.append((partition, count))

    debit = DebitWager(
        transaction_id=uuid.uuid4(), player_id="p-1", game="rising-joker", amount_minor=10, currency="EUR"
    )
    fact = envelope(debit, source="test", time=broker_time(NOW_MS))
    emitter = Emitter(Emits(writer="w", span="w {}"), _Told(Decision(events=(fact, fact))), lambda x: x, None)
    emitter.restoring = _Restoring()
    found = Inbound(Record("in", 3, 0, None, b"", NOW_MS), Input("in"), Message(None, NOW_MS))
    emitter.batch(3, None, [found, found])
    assert counted == [(3, 2), (3, 2)], "the emit path tells the service's Restoring each decision's events"
