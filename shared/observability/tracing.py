"""W3C trace context across the saga: a span per handled record, child of its `traceparent` header, and that span's
`traceparent` on every record it writes (never in the CloudEvents body); OTLP when configured."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator, Sequence

import orjson
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from shared.observability.logs import handling

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
Headers = Sequence[tuple[str, bytes]]
_PROPAGATOR = TraceContextTextMapPropagator()
log = logging.getLogger("reelstream.trace")


class _State:
    enabled = False
    tracer: trace.Tracer = trace.NoOpTracer()


def configure_tracing(service: str, environ=os.environ) -> bool:
    """Install the SDK's tracer provider when an exporter is configured; True when spans are recorded."""
    endpoint, trace_file = environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"), environ.get("REELSTREAM_TRACE_FILE")
    if not endpoint and not trace_file:
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": environ.get("OTEL_SERVICE_NAME", service)}))
    if endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # reads the OTEL_EXPORTER_OTLP_* variables
    if trace_file:
        provider.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(trace_file)))
    trace.set_tracer_provider(provider)
    _State.tracer, _State.enabled = provider.get_tracer("reelstream"), True
    return True


def shutdown_tracing() -> None:
    provider = trace.get_tracer_provider()
    if _State.enabled and hasattr(provider, "shutdown"):
        provider.shutdown()  # flushes what the batch processor holds


def _getter_headers(headers: Headers | None) -> dict[str, str]:
    return {key: value.decode("latin-1") for key, value in headers or () if key in (TRACEPARENT, TRACESTATE) and value}


def consume_span(name: str, headers: Headers | None, partition: int | None = None, value: bytes | None = None):
    """Handle one record inside a span (child of its `traceparent`, a new trace without one); yields the headers to
    put on every record the handling writes (empty when tracing is off). Log lines inside carry the partition and
    the record's ids."""
    if not _State.enabled:
        return handling(partition, value)  # enters as (): no span, no headers
    return _traced_span(name, headers, partition, value)


@contextlib.contextmanager
def _traced_span(
    name: str, headers: Headers | None, partition: int | None, value: bytes | None
) -> Iterator[tuple[tuple[str, bytes], ...]]:
    parent = _PROPAGATOR.extract(_getter_headers(headers))
    with _State.tracer.start_as_current_span(name, context=parent, kind=trace.SpanKind.CONSUMER) as span:
        if partition is not None:
            span.set_attribute("messaging.destination.partition.id", str(partition))
        with handling(partition, value):
            carrier: dict[str, str] = {}
            _PROPAGATOR.inject(carrier)
            yield tuple((key, text.encode("latin-1")) for key, text in carrier.items())
            if log.isEnabledFor(logging.DEBUG):
                log.debug("handled %s", name)


def forward_headers(headers: Headers | None) -> tuple[tuple[str, bytes], ...]:
    """The trace headers of a record, for a record copied byte for byte (the jackpot's answers): the trace goes on."""
    return tuple((key, value) for key, value in headers or () if key in (TRACEPARENT, TRACESTATE))


def current_headers() -> tuple[tuple[str, bytes], ...]:
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, otel_context.get_current())
    return tuple((key, text.encode("latin-1")) for key, text in carrier.items())


class JsonLinesExporter:
    """A span exporter appending one JSON object per finished span to a file (several processes may share it)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()

    def export(self, spans) -> object:
        from opentelemetry.sdk.trace.export import SpanExportResult

        lines = b"".join(orjson.dumps(_span_json(span)) + b"\n" for span in spans)
        with self._lock, open(self.path, "ab") as out:  # one write per batch: lines of processes do not interleave
            out.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def _span_json(span) -> dict:
    context, parent = span.get_span_context(), span.parent
    return {
        "name": span.name,
        "service": span.resource.attributes.get("service.name"),
        "trace_id": format(context.trace_id, "032x"),
        "span_id": format(context.span_id, "016x"),
        "parent_span_id": format(parent.span_id, "016x") if parent is not None else None,
        "start_ns": span.start_time,
        "end_ns": span.end_time,
        "attributes": dict(span.attributes or {}),
    }


class BatchTraces:
    """For loops whose outputs are not one per input (the jackpot decides a batch per network): the trace headers of
    each input by a key (its request id), so an answer continues its own request's trace and an aggregate the
    batch's latest one."""

    def __init__(self) -> None:
        self.by_key: dict[str, tuple[tuple[str, bytes], ...]] = {}
        self.latest: tuple[tuple[str, bytes], ...] = ()

    def add(self, traced: tuple[tuple[str, bytes], ...], key: object | None) -> None:
        if traced:
            self.latest = traced
            if key is not None:
                self.by_key[str(key)] = traced

    def headers_for(self, key: object | None) -> tuple[tuple[str, bytes], ...]:
        return self.by_key.get(str(key), self.latest) if key is not None else self.latest
