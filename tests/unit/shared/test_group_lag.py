"""Consumer lag counts records, not offsets: a transaction's commit marker after a caught-up consumer's committed
offset is no record behind, so an idle platform's groups read 0."""

from __future__ import annotations

from shared.kafka import records_behind
from shared.roles import ends_with_commit_marker


def test_a_caught_up_consumer_is_not_behind_by_the_final_commit_marker():
    assert records_behind(end=10, committed=9, ends_with_marker=True) == 0


def test_a_consumer_short_of_the_last_transactions_records_is_behind_by_those_records():
    assert records_behind(end=10, committed=7, ends_with_marker=True) == 2


def test_every_offset_is_a_record_where_writes_carry_no_marker():
    assert records_behind(end=10, committed=9, ends_with_marker=False) == 1
    assert records_behind(end=10, committed=10, ends_with_marker=False) == 0


def test_a_committed_offset_past_the_marker_is_never_negative_lag():
    assert records_behind(end=10, committed=10, ends_with_marker=True) == 0


def test_topics_the_services_write_in_transactions_end_with_a_marker():
    for topic in ("wallet.events", "wallet.internal", "jackpot.events", "jackpot.internal", "spin.events"):
        assert ends_with_commit_marker(topic), topic
    assert ends_with_commit_marker("spin.jackpot-answers")


def test_topics_that_clients_write_without_transactions_do_not():
    for topic in ("spin.requests", "wallet.commands", "jackpot.commands"):
        assert not ends_with_commit_marker(topic), topic


def test_a_topic_outside_the_contract_does_not():
    assert not ends_with_commit_marker("not-a-contract-topic")
