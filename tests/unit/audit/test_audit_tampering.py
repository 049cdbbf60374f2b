"""A consistent synthetic history audits clean; each kind of tampering is caught and named by its check.

Scenario: three players deposit in EUR and DKK, then play 40 rounds over both games with the stand-in engine; pools
open at their seeds, contributions, claims, wins and reseeds follow the jackpot rules. Each test edits one event the
way a forger or a bug would, re-encodes the history and reads the audit's findings.
"""

from __future__ import annotations

import uuid

import pytest

from services.audit.core.audit import run_audit
from services.audit.core.collect import RawRecord
from services.audit.core.scope import Scope
from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from shared.events import decode_all, encode, envelope
from shared.events.base import packable_types
from shared.events.batch import is_packed
from shared.input_position import Output
from shared.packing import packed
from shared.records import headers_as_owner
from shared.events import jackpot as jp
from shared.events import spin as sp
from shared.events import wallet as wl


@pytest.fixture(scope="module")
def history():
    return play_history(seed=7)


def audit(emitted: list[Emitted], scope: Scope = Scope()):
    return run_audit(records(emitted), scope, lookup=stand_in_lookup)


def records(emitted: list[Emitted]) -> list[RawRecord]:
    offsets: dict[str, int] = {}
    out = []
    for item in emitted:
        offset = offsets.get(item.topic, 0)
        out.append(
            RawRecord(
                item.topic,
                0,
                offset,
                item.timestamp_ms,
                item.envelope.key,
                encode(item.envelope),
                tuple(headers_as_owner(item.topic, "test")),
            )
        )
        offsets[item.topic] = offset + 1
    return out


def checks(result) -> set[str]:
    return {finding.check for finding in result.discrepancies}


def replaced(emitted: list[Emitted], index: int, **changes) -> list[Emitted]:
    """The history with one event's data changed (same event id: what a tampered log would show)."""
    item = emitted[index]
    data = item.envelope.data.model_copy(update=changes)
    message = envelope(data, source=item.envelope.source, time=item.envelope.time, id=item.envelope.id)
    return emitted[:index] + [Emitted(item.topic, message, item.timestamp_ms)] + emitted[index + 1 :]


def first(emitted: list[Emitted], kind: type, where=lambda data: True) -> int:
    return next(
        i for i, item in enumerate(emitted) if isinstance(item.envelope.data, kind) and where(item.envelope.data)
    )


def test_a_clean_history_reports_zero_discrepancies_and_rederives_every_spin(history):
    result = audit(history.emitted)
    assert result.discrepancies == []
    settled = sum(isinstance(item.envelope.data, sp.SpinSettled) for item in history.emitted)
    assert result.spins.rederived == settled == 120
    assert all(liability.balanced and liability.in_flight_micro == 0 for liability in result.jackpots.liabilities)
    assert result.pools.wins, "the history must exercise jackpot wins"


def test_a_byte_identical_redelivery_collapses_without_a_finding(history):
    result = audit(history.emitted + [history.emitted[10], history.emitted[11]])
    assert result.discrepancies == []
    assert result.facts.redeliveries == 2


def test_the_same_event_id_with_other_content_is_a_duplicate_id_discrepancy(history):
    index = first(history.emitted, wl.Deposited)
    tampered = replaced(history.emitted, index, amount_minor=1)
    result = audit(history.emitted + [tampered[index]])
    assert checks(result) == {"duplicate-event-id"}


def test_a_forged_settlement_for_a_wager_never_debited_is_named(history):
    settled_at = first(history.emitted, wl.WagerSettled)
    original = history.emitted[settled_at].envelope.data
    forged = original.model_copy(update={"wager_id": uuid.uuid4(), "transaction_id": uuid.uuid4()})
    message = envelope(forged, source="reelstream/wallet", time=history.emitted[-1].envelope.time)
    result = audit(history.emitted + [Emitted("wallet.events", message, history.emitted[-1].timestamp_ms + 1)])
    assert "settlement-without-debit" in checks(result)
    assert any(f.event_id == str(message.id) for f in result.discrepancies)


def test_a_forged_jackpot_win_answering_no_claim_is_named(history):
    won = history.emitted[first(history.emitted, jp.JackpotWon)]
    forged = won.envelope.data.model_copy(update={"claim_id": uuid.uuid4(), "request_id": uuid.uuid4()})
    message = envelope(forged, source="reelstream/jackpot", time=won.envelope.time)
    result = audit(history.emitted + [Emitted("jackpot.events", message, history.emitted[-1].timestamp_ms + 1)])
    assert "jackpot-won-without-claim" in checks(result)
    named = [f for f in result.discrepancies if f.check == "jackpot-won-without-claim"]
    assert named[0].event_id == str(message.id)


def test_a_spin_whose_recorded_outcome_does_not_match_its_seed_and_state_is_named(history):
    index = first(history.emitted, sp.SpinSettled)
    outcome = dict(history.emitted[index].envelope.data.outcome)
    outcome["board"] = [(symbol + 1) % 5 for symbol in outcome["board"]]
    result = audit(replaced(history.emitted, index, outcome=outcome))
    assert checks(result) == {"spin-rederivation-mismatch"}
    assert "outcome.board" in result.discrepancies[0].detail


def test_a_spin_recorded_with_another_seed_is_caught_by_rederivation_and_the_journal(history):
    index = first(history.emitted, sp.SpinSettled)
    result = audit(replaced(history.emitted, index, seed="ab" * 32))
    assert {"spin-rederivation-mismatch", "seed-mismatch"} <= checks(result)


def test_a_pool_event_that_breaks_the_identity_is_named(history):
    index = first(history.emitted, jp.ContributionsApplied)
    data = history.emitted[index].envelope.data
    movement = data.movements[0].model_copy(update={"closing_micro": data.movements[0].closing_micro + 1})
    result = audit(replaced(history.emitted, index, movements=(movement,) + data.movements[1:]))
    assert "pool-identity-broken" in checks(result)
    assert "pool-chain-broken" in checks(result)  # the next movement opens at the true level


def test_a_posting_set_that_does_not_sum_to_zero_is_named(history):
    index = first(history.emitted, wl.WagerDebited)
    data = history.emitted[index].envelope.data
    postings = (
        data.postings[0],
        data.postings[1].model_copy(update={"amount_micro": data.postings[1].amount_micro + 5}),
    )
    result = audit(replaced(history.emitted, index, postings=postings))
    assert "postings-unbalanced" in checks(result)
    assert "jackpot-liability-mismatch" not in checks(result)


def test_a_balance_driven_below_zero_is_named(history):
    index = first(history.emitted, wl.Deposited)
    data = history.emitted[index].envelope.data
    debit = wl.WagerDebited(
        transaction_id=uuid.uuid4(),
        player_id=data.player_id,
        recorded_at=data.recorded_at,
        currency=data.currency,
        postings=(
            wl.Posting(account=wl.player_account(data.player_id), amount_micro=-600_000 * 1_000_000),
            wl.Posting(account=wl.HOUSE, amount_micro=600_000 * 1_000_000),
        ),
        balance_after_minor=0,
        amount_minor=600_000,
        game="rising-joker",
    )
    emitted = history.emitted[: index + 1] + [
        Emitted("wallet.events", envelope(debit, source="x", time=data.recorded_at), 1)
    ]
    assert "balance-negative" in checks(audit(emitted))


def test_a_second_settlement_of_one_wager_is_named(history):
    index = first(history.emitted, wl.WagerSettled)
    again = history.emitted[index].envelope.data.model_copy(update={"transaction_id": uuid.uuid4()})
    message = envelope(again, source="reelstream/wallet", time=history.emitted[index].envelope.time)
    result = audit(history.emitted + [Emitted("wallet.events", message, history.emitted[-1].timestamp_ms + 1)])
    assert "wager-closed-twice" in checks(result)


def test_a_contribution_applied_twice_is_named(history):
    index = first(history.emitted, jp.ContributionsApplied)
    again = history.emitted[index].envelope.data.model_copy(update={"movements": ()})
    message = envelope(again, source="reelstream/jackpot", time=history.emitted[index].envelope.time)
    result = audit(history.emitted + [Emitted("jackpot.events", message, history.emitted[-1].timestamp_ms + 1)])
    assert "contribution-applied-twice" in checks(result)


def test_a_state_before_that_is_not_the_previous_state_after_is_named(history):
    indexes = [i for i, item in enumerate(history.emitted) if isinstance(item.envelope.data, sp.SpinSettled)]
    later = indexes[-1]
    result = audit(replaced(history.emitted, later, state_before={"spins": 0}))
    assert "state-chain-broken" in checks(result)


def test_a_player_scope_reports_only_that_players_findings(history):
    index = first(history.emitted, wl.WagerDebited, lambda d: d.player_id == "p-1")
    data = history.emitted[index].envelope.data
    tampered = replaced(history.emitted, index, balance_after_minor=data.balance_after_minor + 1)
    assert "balance-after-mismatch" in checks(audit(tampered, Scope(player_id="p-1")))
    assert audit(tampered, Scope(player_id="p-2")).discrepancies == []


def test_a_fact_the_wallet_did_not_write_is_quarantined_not_folded_and_listed(history):
    index = first(history.emitted, wl.Deposited)
    forged = replaced(history.emitted, index, amount_minor=5 * 10**12)[index]
    clean = audit(history.emitted)
    raw = records(history.emitted)
    raw.append(
        RawRecord(
            "wallet.events",
            0,
            len(raw),
            forged.timestamp_ms,
            forged.envelope.key,
            encode(envelope(forged.envelope.data, source="attacker", time=forged.envelope.time)),
            tuple(headers_as_owner("spin.requests", "attacker")),
        )
    )
    result = run_audit(raw, Scope(), lookup=stand_in_lookup)
    assert result.discrepancies == clean.discrepancies == []
    assert [item.problem for item in result.facts.quarantined] == ["written by 'attacker', only 'wallet' writes this"]
    assert result.counts["quarantined"] == 1
    assert result.ledger.balances_micro == clean.ledger.balances_micro


def test_a_voided_spin_that_was_settled_and_whose_wager_was_taken_is_named(history):
    settled = history.emitted[first(history.emitted, sp.SpinSettled)]
    data = settled.envelope.data
    voided = sp.SpinVoided(
        request_id=data.request_id,
        player_id=data.player_id,
        game=data.game,
        code="INSUFFICIENT_FUNDS",
        voided_at=settled.envelope.time,
    )
    message = envelope(voided, source="reelstream/spin", time=settled.envelope.time)
    result = audit(history.emitted + [Emitted("spin.journal", message, history.emitted[-1].timestamp_ms + 1)])
    assert {"voided-outcome-shown", "voided-wager-taken"} <= checks(result)
    assert {f.event_id for f in result.discrepancies if f.check.startswith("voided-")} == {str(message.id)}


def packed_records(emitted: list[Emitted]) -> list[RawRecord]:
    """`records(emitted)` as the jackpot's loop writes jackpot.events, each network on a partition of its own (as the
    two networks are live): each run of consecutive contributions facts in one batch-envelope record
    (shared/packing.py), placed where its last item was."""
    plain = records(emitted)
    placed: dict[int, RawRecord] = {}
    keys = sorted({record.key for record in plain if record.topic == "jackpot.events"})
    for partition, key in enumerate(keys):
        mine = [n for n, record in enumerate(plain) if record.topic == "jackpot.events" and record.key == key]
        outputs = [
            Output(False, key, plain[n].value, list(plain[n].headers), message_type=emitted[n].envelope.type)
            for n in mine
        ]
        taken = 0
        for offset, out in enumerate(packed(outputs, packable_types("jackpot.events"))):
            taken += len(decode_all(out.value))
            last = plain[mine[taken - 1]]
            placed[mine[taken - 1]] = RawRecord(
                last.topic, partition, offset, last.timestamp_ms, key, out.value, tuple(out.headers)
            )
    return [placed.get(n, record) for n, record in enumerate(plain) if record.topic != "jackpot.events" or n in placed]


def _pool_facts(result, network: str) -> list[str]:
    return [
        fact.id for fact in result.facts.facts if fact.topic == "jackpot.events" and fact.data.network_id == network
    ]


def test_a_history_whose_contributions_the_loop_packed_audits_as_the_same_facts(history):
    written = packed_records(history.emitted)
    assert any(is_packed(record.value) for record in written)
    plain = audit(history.emitted)
    result = run_audit(written, Scope(), lookup=stand_in_lookup)
    assert result.discrepancies == []
    for network in ("diamond-mystery", "stjernestoev"):  # each network's facts, the same ones in the same order
        assert _pool_facts(result, network) == _pool_facts(plain, network)
    assert result.pools.applied.keys() == plain.pools.applied.keys()
    again = run_audit(written + [next(r for r in written if is_packed(r.value))], Scope(), lookup=stand_in_lookup)
    assert again.discrepancies == []
    assert again.facts.redeliveries == len(decode_all(next(r for r in written if is_packed(r.value)).value))
