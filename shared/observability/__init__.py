"""What an operator sees of a service process: /health, /ready and /metrics on one HTTP port, JSON logs and traces;
`setup(service)` in `main()`, `await serve_http()` in `serve()`, and the loops' few calls in `process.py`."""

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
