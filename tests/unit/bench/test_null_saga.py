"""The null sagas' handlers: a request walked through each shape's hops by hand (the topics, types and record counts
the processes will write), untrusted or foreign records skipped, and the data-versus-marker count."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import orjson
import pytest

from bench.null_saga import CHAINS, Emit, Input, jackpot_step, sample_of, spin_step, wallet_step, counted
from services.spin.core.catalog import registry_catalog
from shared import records
from shared.events import decode, encode, envelope
from shared.events.spin import SpinRequested
from shared.events.wallet import Deposit
from shared.topics import SPIN_REQUESTS, WALLET_COMMANDS, WALLET_EVENTS

NOW = datetime(2026, 12, 1, 19, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def sample():
    catalog = registry_catalog()
    return sample_of(catalog.engine("rising-joker"), catalog.network_for_game("rising-joker"))


def _request(player: str = "p-1") -> tuple[uuid.UUID, Input]:
    data = SpinRequested(
        request_id=uuid.uuid4(),
        player_id=player,
        game="rising-joker",
        stake_minor=100,
        currency="EUR",
        session_token="t",
    )
    value = encode(envelope(data, source="test", time=NOW))
    return data.request_id, Input(SPIN_REQUESTS, player.encode(), value, [], NOW)


def _as_input(emit: Emit, writer: str) -> Input:
    """What the next process reads of an emitted record: its bytes and its writer's headers."""
    return Input(emit.topic, emit.key, emit.value, records.headers_for(writer), NOW)


def _walk(shape: str, sample) -> tuple[list[Emit], int]:
    """One request through spin and wallet until the answer: every record written, and the hops it took."""
    pending: dict = {}
    _, request = _request()
    written, hops = [], 1
    inbox = spin_step(shape, pending, request, sample)
    while inbox:
        written += inbox
        hops += 1
        nxt = []
        for emit in inbox:
            if emit.topic == WALLET_COMMANDS:
                nxt += wallet_step(_as_input(emit, "spin"))
            elif emit.topic == WALLET_EVENTS:
                nxt += spin_step(shape, pending, _as_input(emit, "wallet"), sample)
        inbox = nxt
    assert not pending, "the answer forgets the request"
    return written, hops


def _types(emits: list[Emit]) -> list[tuple[str, str]]:
    return [(emit.topic, orjson.loads(emit.value)["type"].removeprefix("reelstream.")) for emit in emits]


def test_six_hop_null_saga_writes_the_chain_of_today_and_one_answer(sample):
    written, hops = _walk("n6", sample)
    kinds = _types(written)
    assert [kind for kind in kinds if kind in CHAINS["n6"]] == list(CHAINS["n6"][1:])
    assert ("jackpot.commands", "jackpot.contribute.v1") in kinds
    assert ("spin.journal", "spin.accepted.v1") in kinds
    assert len(written) == 8  # + the request: 9 data records a spin, as the real saga without a claim
    assert hops == 6
    assert kinds.count(("spin.events", "spin.settled.v1")) == 1


def test_three_hop_null_saga_sends_one_wager_command_with_its_journal(sample):
    written, hops = _walk("n3", sample)
    kinds = _types(written)
    assert [kind for kind in kinds if kind in CHAINS["n3"]] == list(CHAINS["n3"][1:])
    assert kinds.count(("wallet.commands", "wallet.settle-wager.v1")) == 1
    assert not any(topic == "wallet.commands" and "debit" in kind for topic, kind in kinds)
    assert len(written) == 5
    assert hops == 4  # client → spin → wallet → spin → client: four Kafka hops where N6 takes six


def test_journal_records_go_to_the_input_partition_and_answers_carry_the_request(sample):
    rid, request = _request("p-7")
    emitted = spin_step("n3", {}, request, sample)
    assert [emit.on_input_partition for emit in emitted] == [True, False]
    assert all(emit.key == b"p-7" for emit in emitted)
    assert all(decode(emit.value).correlationid == str(rid) for emit in emitted)


def test_a_wallet_command_nobody_trusted_wrote_is_not_applied(sample):
    emitted = spin_step("n6", {}, _request()[1], sample)
    debit = next(emit for emit in emitted if emit.topic == WALLET_COMMANDS)
    assert wallet_step(_as_input(debit, "spin"))
    assert wallet_step(_as_input(debit, "cashier")) == []
    assert wallet_step(Input(WALLET_COMMANDS, debit.key, debit.value, [], NOW)) == []


def test_a_wallet_fact_of_an_unknown_request_or_another_type_is_skipped(sample):
    pending: dict = {}
    emitted = spin_step("n6", pending, _request()[1], sample)
    debit = next(emit for emit in emitted if emit.topic == WALLET_COMMANDS)
    (fact,) = wallet_step(_as_input(debit, "spin"))
    assert spin_step("n6", {}, _as_input(fact, "wallet"), sample) == []  # another partition's book knows nothing
    deposit = Deposit(transaction_id=uuid.uuid4(), player_id="p-1", amount_minor=5, currency="EUR")
    value = encode(envelope(deposit, source="test", time=NOW))
    assert wallet_step(Input(WALLET_COMMANDS, b"p-1", value, records.headers_for("cashier"), NOW)) == []
    assert (
        spin_step("n6", pending, Input(WALLET_EVENTS, b"p-1", b"[1]", records.headers_for("wallet"), NOW), sample) == []
    )


def test_undecodable_requests_and_contributions_write_nothing(sample):
    assert spin_step("n6", {}, Input(SPIN_REQUESTS, b"p", b"{not json", [], NOW), sample) == []
    assert jackpot_step(Input("jackpot.commands", b"n", b"{}", records.headers_for("spin"), NOW)) == []


def test_markers_are_the_offsets_a_read_committed_read_does_not_return():
    start = {("t", 0): 10, ("t", 1): 0}
    end = {("t", 0): 30, ("t", 1): 6, ("u", 0): 4}
    read = {("t", 0): 15, ("t", 1): 3, ("u", 0): 4}
    assert counted(start, end, read) == {"data": 22, "markers": 8}


def test_records_are_counted_by_topic_too_without_the_prefix_and_per_spin():
    from bench.null_compare import per_spin
    from bench.null_saga import counted_by_topic

    start = {("x.t", 0): 10, ("x.t", 1): 0, ("x.idle", 0): 5}
    end = {("x.t", 0): 30, ("x.t", 1): 6, ("x.u", 0): 4, ("x.idle", 0): 5}
    read = {("x.t", 0): 15, ("x.t", 1): 3, ("x.u", 0): 4}
    both = counted_by_topic(start, end, read, "x.")
    assert both == {
        "data": 22,
        "markers": 8,
        "by_topic": {"t": {"data": 18, "markers": 8}, "u": {"data": 4, "markers": 0}},
    }
    assert per_spin(both, 8) == {
        "data": 2.75,
        "markers": 1.0,
        "by_topic": {"t": {"data": 2.25, "markers": 1.0}, "u": {"data": 0.5, "markers": 0.0}},
    }
    assert per_spin({"data": 3, "markers": 1}, 2) == {"data": 1.5, "markers": 0.5}


def test_more_records_read_than_offsets_appended_is_an_error():
    with pytest.raises(ValueError):
        counted({("t", 0): 0}, {("t", 0): 2}, {("t", 0): 3})


def test_a_load_row_puts_every_sagas_p99_side_by_side_and_the_ratios_compare_real_with_each_null_saga():
    from bench.null_compare import load_row, ratios

    figures = {name: {"p50_ms": p99 / 2, "p99_ms": p99} for name, p99 in (("real", 300.0), ("null6", 200.0))}
    figures["null3"] = {"p50_ms": None, "p99_ms": None}  # nothing settled
    row = load_row(50.0, figures)
    assert (row["spins_per_s"], row["real_p99_ms"], row["null6_p99_ms"], row["null3_p99_ms"]) == (
        50.0,
        300.0,
        200.0,
        None,
    )
    bursts = {"real": {"spins_per_s": 400.0}, "null6": {"spins_per_s": 800.0}, "null3": {"spins_per_s": 0.0}}
    compared = ratios(bursts, [row])
    assert compared["burst_real_over_null6"] == 0.5
    assert compared["burst_real_over_null3"] is None
    assert compared["p99_real_over_null6"] == {50.0: 1.5}
    assert compared["p99_real_over_null3"] == {50.0: None}
