"""The pure parts of shared/observability: readiness bookkeeping, output classification, JSON log lines, trace
headers (a span's traceparent continues the incoming trace), and the batch trace map of the jackpot."""

from __future__ import annotations

import io
import logging

import orjson
import pytest

from shared.observability import metrics
from shared.observability.logs import JsonFormatter, bound
from shared.observability.process import PROCESS, produced
from shared.observability.readiness import Readiness
from shared.observability.tracing import BatchTraces, forward_headers

ASSIGNED = [("t.wallet.commands", 0), ("t.wallet.commands", 1)]


def test_not_ready_before_any_assignment_or_while_restoring():
    readiness = Readiness()
    assert not readiness.ready([])
    readiness.begin([0, 1], 0.0)
    assert not readiness.ready(ASSIGNED)
    readiness.finish([0, 1], 0.0)
    assert not readiness.ready(ASSIGNED)  # restored, but the catch-up targets are not measured yet


def test_ready_once_every_assigned_partition_reached_the_end_measured_after_its_restore():
    readiness = Readiness()
    readiness.begin([0, 1], 0.0)
    readiness.finish([0, 1], 0.0)
    assert readiness.unmeasured(ASSIGNED) == ASSIGNED
    readiness.targets.update({ASSIGNED[0]: 10, ASSIGNED[1]: 5})
    readiness.observe(ASSIGNED[0], 10)
    readiness.observe(ASSIGNED[1], 4)
    assert not readiness.ready(ASSIGNED)
    readiness.observe(ASSIGNED[1], 5)
    assert readiness.ready(ASSIGNED)


def test_a_new_assignment_makes_it_unready_until_the_new_partition_is_restored():
    readiness = Readiness()
    readiness.begin([0], 0.0)
    readiness.finish([0], 0.0)
    readiness.targets[ASSIGNED[0]] = None
    assert readiness.ready(ASSIGNED[:1])
    assert not readiness.ready(ASSIGNED)  # partition 1 assigned, never restored
    readiness.revoke([0])
    assert not readiness.ready(ASSIGNED[:1])


def test_an_empty_assignment_after_a_restore_of_nothing_is_ready():
    readiness = Readiness()
    readiness.begin([], 0.0)
    assert not readiness.ready([])
    readiness.finish([], 0.0)
    assert readiness.ready([])


def test_a_partition_is_taken_over_once_restored_and_caught_up_on_every_input_timed_from_its_first_restore():
    readiness = Readiness()
    both = [("t.wallet.commands", 0), ("t.wallet.internal", 0)]
    readiness.begin([0], 100.0)
    readiness.abort([0])  # a rebalance stopped the first restore; the partition stays assigned
    readiness.begin([0], 103.0)
    readiness.finish([0], 103.0)
    readiness.targets.update({both[0]: 10, both[1]: 4})
    readiness.observe(both[0], 10)
    assert readiness.taken_over(both, 106.0) == []  # wallet.internal not caught up yet
    readiness.observe(both[1], 4)
    assert readiness.taken_over(both, 107.5) == [7.5]
    assert readiness.taken_over(both, 108.0) == []  # once per assignment


def test_a_partition_revoked_before_it_caught_up_is_timed_anew_from_its_next_assignment():
    readiness = Readiness()
    readiness.begin([0], 10.0)
    readiness.finish([0], 10.0)
    readiness.revoke([0])
    readiness.begin([0], 30.0)
    readiness.finish([0], 30.0)
    readiness.targets[ASSIGNED[0]] = None
    assert readiness.taken_over(ASSIGNED[:1], 31.0) == [1.0]


def test_a_partition_learnt_while_restoring_is_timed_from_that_restore():
    readiness = Readiness()
    readiness.begin([], 20.0)
    readiness.finish([1], 20.0)  # the projector names its partitions as it restores them
    readiness.targets[ASSIGNED[1]] = None
    assert readiness.taken_over(ASSIGNED[1:], 21.0) == [1.0]


def sample(collector, *labels: str) -> float:
    return collector.labels(*labels)._value.get()  # noqa: SLF001 - prometheus-client keeps it there


def test_produced_counts_records_rejection_codes_and_dead_letter_reasons():
    PROCESS.service = "unit"
    before = (
        sample(metrics.RECORDS_OUT, "unit", "t.spin.events"),
        sample(metrics.REJECTIONS, "unit", "STAKE_LOCKED"),
        sample(metrics.DEAD_LETTERS, "unit", "data.amount_minor"),
    )
    rejection = orjson.dumps(
        {"specversion": "1.0", "type": "reelstream.spin.rejected.v1", "data": {"code": "STAKE_LOCKED"}}
    )
    produced("t.spin.events", rejection)
    produced("t.spin.events", b'{"type":"reelstream.spin.settled.v1","data":{"code":"not a refusal"}}')
    produced("t.wallet.commands.dlq", b"{garbage", [("reelstream-dlq-field", b"data.amount_minor")])
    after = (
        sample(metrics.RECORDS_OUT, "unit", "t.spin.events"),
        sample(metrics.REJECTIONS, "unit", "STAKE_LOCKED"),
        sample(metrics.DEAD_LETTERS, "unit", "data.amount_minor"),
    )
    assert [a - b for a, b in zip(after, before)] == [2, 1, 1]


def test_a_log_line_is_one_json_object_with_the_service_and_the_ids_of_the_record_in_hand():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter("wallet"))
    logger = logging.getLogger("test.observability.json")
    logger.addHandler(handler)
    logger.propagate = False
    record = orjson.dumps({"id": "e-1", "type": "x", "data": {"request_id": "r-1"}})
    with bound(partition=3, record=record):
        logger.warning("refused %s", "it", extra={"code": "LIMIT_EXCEEDED"})
    logger.warning("outside")
    inside, outside = (orjson.loads(line) for line in out.getvalue().splitlines())
    assert inside["service"] == "wallet" and inside["message"] == "refused it"
    assert (inside["partition"], inside["event_id"], inside["request_id"]) == (3, "e-1", "r-1")
    assert inside["code"] == "LIMIT_EXCEEDED"
    assert "partition" not in outside and "event_id" not in outside


@pytest.fixture
def recording():
    """A tracer that records (the SDK with an in-memory exporter), restored to the no-op afterwards."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from shared.observability import tracing

    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    saved = (tracing._State.tracer, tracing._State.enabled)  # noqa: SLF001
    tracing._State.tracer, tracing._State.enabled = provider.get_tracer("test"), True  # noqa: SLF001
    yield exporter
    tracing._State.tracer, tracing._State.enabled = saved  # noqa: SLF001


def test_a_span_continues_the_incoming_trace_and_hands_its_own_traceparent_on(recording):
    from shared.observability.tracing import consume_span

    incoming = [("traceparent", b"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")]
    with consume_span("wallet command", incoming, 2) as outgoing:
        pass
    (span,) = recording.get_finished_spans()
    assert format(span.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert format(span.parent.span_id, "016x") == "b7ad6b7169203331"
    ((name, value),) = outgoing
    assert name == "traceparent"
    assert value.decode().split("-")[1:3] == ["0af7651916cd43dd8448eb211c80319c", format(span.context.span_id, "016x")]


def test_without_an_exporter_nothing_is_added_to_the_outputs():
    from shared.observability.tracing import consume_span

    incoming = [("traceparent", b"00-" + b"1" * 32 + b"-" + b"2" * 16 + b"-01")]
    with consume_span("spin spin.requests", incoming, 0) as out:
        assert out == ()


def test_forwarded_records_keep_only_their_trace_headers():
    headers = [("content-type", b"application/cloudevents+json"), ("traceparent", b"00-a-b-01")]
    assert forward_headers(headers) == (("traceparent", b"00-a-b-01"),)


def test_batch_traces_answer_each_request_with_its_own_trace_and_aggregates_with_the_latest():
    traces = BatchTraces()
    traces.add((("traceparent", b"first"),), "r-1")
    traces.add((("traceparent", b"second"),), "r-2")
    traces.add((), "r-3")  # untraced input: nothing remembered
    assert traces.headers_for("r-1") == (("traceparent", b"first"),)
    assert traces.headers_for(None) == (("traceparent", b"second"),)
    assert traces.headers_for("r-3") == (("traceparent", b"second"),)


def test_a_cancelled_restore_leaves_no_restore_running():
    readiness = Readiness()
    readiness.begin([0, 1], 0.0)
    readiness.abort([0, 1])  # a rebalance cancelled it
    readiness.begin([0], 0.0)
    readiness.finish([0], 0.0)
    readiness.targets[ASSIGNED[0]] = None
    assert readiness.restores == 0
    assert readiness.ready(ASSIGNED[:1])
