"""What an operator sees of a service process: /health, /ready and /metrics on one HTTP port, JSON logs and traces.

One configuration for every service: `setup(service)` in its `main()`, `await serve_http()` in its `serve()`, and a
few calls in the loops (`process.py` holds them), so the loops stay free of prometheus and OpenTelemetry details.
"""

from shared.observability.process import (  # noqa: F401
    PROCESS,
    alert,
    batch_done,
    commit_timer,
    consumed,
    handler_timer,
    pool_levels,
    produced,
    restoring,
    revoked,
    setup,
    watch,
)
from shared.observability.tracing import BatchTraces, consume_span, forward_headers, shutdown_tracing  # noqa: F401
from shared.observability.http import serve_http  # noqa: F401
