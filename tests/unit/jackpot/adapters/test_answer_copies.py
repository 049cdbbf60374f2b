"""The jackpot's copies of its claim answers for spin.jackpot-answers, as its transaction writes them.

Scenario: a batch's events are a JackpotWon (with a trace), a ClaimRejected and a ContributionsApplied; the loop
puts both inputs' positions on the last, signs them for jackpot.events, then signs the copies the service derives. Each
answer is copied once, keyed by the claiming player, the value byte for byte; the JackpotWon's copy carries the
record as jackpot.events has it (key, headers, signature) in its proof header, which the wallet's check accepts; the
copies are the jackpot's own, signed records of spin.jackpot-answers.
"""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest

from services.jackpot.adapters.records import EMITS, event_record
from services.jackpot.adapters.runner import JackpotConfig
from shared import emit, loop, records, signing
from shared.events import envelope
from shared.events.envelope import broker_time
from shared.events.jackpot import ClaimRejected, ContributionsApplied
from shared.input_position import with_inputs
from shared.topics import JACKPOT_EVENTS, SPIN_JACKPOT_ANSWERS
from tests.support.proofs import NOW_MS, Written, jackpot_won

TRACE = ("traceparent", b"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")


pytestmark = pytest.mark.usefixtures("keys")  # every test signs and checks with real keys (tests/conftest.py)


def _batch():
    wager = uuid.uuid4()
    won = envelope(jackpot_won(wager, "p-won", 500, 100), source="reelstream/jackpot", time=broker_time(NOW_MS))
    rejected = envelope(
        ClaimRejected(
            network_id="net-1",
            recorded_at=broker_time(NOW_MS),
            claim_id=uuid.uuid4(),
            request_id=uuid.uuid4(),
            player_id="p-refused",
            tier="green",
            code="UNKNOWN_TIER",
            message="no such tier",
        ),
        source="reelstream/jackpot",
        time=broker_time(NOW_MS),
    )
    applied = envelope(
        ContributionsApplied(
            network_id="net-1", recorded_at=broker_time(NOW_MS), currency="EUR", contributions=(), movements=()
        ),
        source="reelstream/jackpot",
        time=broker_time(NOW_MS),
    )
    won_out = event_record(won)
    won_out = replace(won_out, headers=[*won_out.headers, TRACE])
    return [_tagged(won_out, won), _tagged(event_record(rejected), rejected), event_record(applied)]


def _tagged(out, event):
    """`out` with the copy the jackpot's declaration names for `event`."""
    return replace(out, copy=EMITS.copy({}, None, event))


def _committed(config: JackpotConfig):
    """What the loop's transaction holds: the events signed for jackpot.events, then the copies signed after them."""
    positions = {"jackpot.commands": 42, "jackpot.internal": 7}
    carrying, _ = with_inputs(_batch(), positions, (config.events_topic,), config.events_topic)
    sent = loop.signed(config.loop(), carrying)
    emitter = emit.Emitter(EMITS, None, lambda _: config.answers_topic, None)  # the jackpot's
    return sent, loop.signed(config.loop(), emitter.copies(sent))


def test_each_answer_is_copied_once_to_the_claiming_players_partition_value_byte_for_byte():
    config = JackpotConfig.on_prefix("127.0.0.1:1", "t-")
    sent, copies = _committed(config)
    assert config.answers_topic == "t-" + SPIN_JACKPOT_ANSWERS
    assert [(c.key, c.value, c.topic, c.partition) for c in copies] == [
        (b"p-won", sent[0].value, "t-spin.jackpot-answers", None),  # None: the key's murmur2 partition
        (b"p-refused", sent[1].value, "t-spin.jackpot-answers", None),
    ]
    assert not any(c.dead_letter for c in copies)


def test_the_won_copy_proves_the_jackpot_events_record_and_the_copies_are_the_jackpots_own():
    sent, copies = _committed(JackpotConfig.on_prefix("127.0.0.1:1", "t-"))
    won, rejected = copies
    assert dict(won.headers)[records.JACKPOT_PROOF] == records.proof_header(sent[0])[1]
    assert TRACE in won.headers and TRACE not in rejected.headers
    proof = records.forwarded_proof(Written(won.key, won.value, won.headers, topic=SPIN_JACKPOT_ANSWERS))
    assert proof is not None and records.proof_problem(proof) is None
    assert records.forwarded_proof(Written(rejected.key, rejected.value, rejected.headers)) is None
    for copy in copies:
        assert records.provenance_problem(SPIN_JACKPOT_ANSWERS, copy.headers, copy.value, copy.key) is None
    # The event on jackpot.events is the same signed record (the copies' own signature does not touch it).
    assert records.provenance_problem(JACKPOT_EVENTS, sent[0].headers, sent[0].value, sent[0].key) is None


def test_a_forged_proof_is_refused():
    sent, copies = _committed(JackpotConfig.on_prefix("127.0.0.1:1", "t-"))
    forged = Written(
        sent[0].key,
        sent[0].value,
        [(name, b"x" * 8) if name == signing.SIGNATURE else (name, value) for name, value in sent[0].headers],
    )
    header = records.proof_header(forged)
    proof = records.forwarded_proof(Written(b"p-won", sent[0].value, [header]))
    assert proof is not None and records.proof_problem(proof) is not None
