"""OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set: a service process's spans arrive at the collector as OTLP over
HTTP/protobuf (a local stand-in collector on a free port records the requests), with the service's name."""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

EMIT = """
from shared.observability.tracing import configure_tracing, consume_span, shutdown_tracing
assert configure_tracing("wallet")
with consume_span("wallet command", [], 4, b"{}") as headers:
    assert headers and headers[0][0] == "traceparent"
shutdown_tracing()
"""


def test_spans_are_exported_with_otlp_over_http_when_an_endpoint_is_set():
    received: list[tuple[str, str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - the http.server hook name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *_args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{server.server_address[1]}"
        subprocess.run(
            [sys.executable, "-c", EMIT],
            check=True,
            timeout=60,
            env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "PATH": "/usr/bin:/bin"},
        )
    finally:
        server.shutdown()
    ((path, content_type, body),) = received
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    request = ExportTraceServiceRequest.FromString(body)
    (resource_spans,) = request.resource_spans
    attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    spans = [span for scope in resource_spans.scope_spans for span in scope.spans]
    assert attributes["service.name"] == "wallet"
    assert [span.name for span in spans] == ["wallet command"]
