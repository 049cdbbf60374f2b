"""The audit over real Kafka: a synthetic history produced to fresh prefixed topics audits clean, and a forged
event produced afterwards is named, with its topic, partition and offset.

Scenario: the stand-in engine plays three players over both games; every event is produced with its key and the
CloudEvents content-type header to `<uuid>.<topic>`, exactly as the services would; the audit reads from the
earliest offsets to the end offsets it captured, with its own group-less consumer, and commits nothing.
"""

from __future__ import annotations

import uuid

import pytest

from services.audit.adapters.runner import audit_platform
from services.audit.adapters.topics import read_topics
from services.audit.core.scope import Scope
from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from shared.config import load_settings
from shared import records
from shared.events import encode, envelope
from shared.topic_admin import delete_topics, ensure_topics
from shared.topics import ALL_TOPICS

pytestmark = pytest.mark.integration


def produce(make_producer, prefix: str, emitted: list[Emitted]) -> None:
    producer = make_producer()
    for item in emitted:
        producer.send(
            prefix + item.topic,
            key=item.envelope.key,
            value=encode(item.envelope),
            headers=records.headers_as_owner(item.topic, "test", item.envelope.key, encode(item.envelope)),
        )
    producer.flush(timeout=30)


@pytest.fixture
def prefixed(kafka_bootstrap):
    prefix = f"audit-{uuid.uuid4().hex[:12]}."
    ensure_topics(kafka_bootstrap, prefix=prefix)
    yield prefix
    delete_topics(kafka_bootstrap, [prefix + spec.name for spec in ALL_TOPICS])


def settings_for(kafka_bootstrap: str, prefix: str):
    return load_settings({"KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix})


def test_a_clean_history_on_real_topics_reports_zero_discrepancies_then_a_forged_settlement_is_named(
    kafka_bootstrap, prefixed, make_producer
):
    history = play_history(seed=11, players=3, spins_per_player=20)
    produce(make_producer, prefixed, history.emitted + history.emitted[:5])  # five byte-identical redeliveries
    settings = settings_for(kafka_bootstrap, prefixed)

    clean = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup)
    assert clean.discrepancies == []
    assert clean.result.facts.redeliveries == 5
    assert clean.result.spins.rederived == 60

    settled = next(item for item in history.emitted if item.envelope.type == "reelstream.wallet.wager-settled.v1")
    forged = settled.envelope.data.model_copy(update={"wager_id": uuid.uuid4(), "transaction_id": uuid.uuid4()})
    message = envelope(forged, source="reelstream/wallet", time=settled.envelope.time)
    produce(make_producer, prefixed, [Emitted("wallet.events", message, 0)])
    tampered = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup)
    named = [finding for finding in tampered.discrepancies if finding.check == "settlement-without-debit"]
    assert [finding.event_id for finding in named] == [str(message.id)]
    assert named[0].where.startswith("wallet.events[")


def test_reading_stops_at_the_end_offsets_captured_at_start_and_commits_no_group(
    kafka_bootstrap, prefixed, make_producer, kafka_admin
):
    history = play_history(seed=12, players=1, spins_per_player=4)
    produce(make_producer, prefixed, history.emitted)
    records, ends = read_topics(kafka_bootstrap, prefixed)
    assert len(records) == len(history.emitted)
    assert sum(ends.values()) == len(history.emitted)
    groups = [group["group_id"] for group in kafka_admin.list_groups()]
    assert not any("audit" in group for group in groups)  # read by hand-assigned partitions, no group
