"""The event loop a service process runs on: asyncio's, with a TLS connection's close bounded to SSL_SHUTDOWN_S.

Why the bound: a client closing a TLS connection sends close_notify and by default waits up to 30 s for the peer's.
A broker on Java's TLS 1.3 may leave it unanswered with the socket open (the local broker now answers it:
deploy/local/kafka.py), and so does a peer that has gone silent. aiokafka awaits every connection's close in `stop()`:
a restore reader's stop took 30,001 ms on uvloop (MagicStack/uvloop#471) in 1 of 3 wallet starts on fresh topics, and
asyncio's loop waits out a silent TLS peer the same way (tests/unit/shared/test_event_loop.py). Nothing is read after a
Kafka client closes (its in-flight requests have failed by then), so the wait buys nothing; what was written before
the close is still flushed inside the bound.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

SSL_SHUTDOWN_S = 2.0

T = TypeVar("T")


class BoundedTlsCloseLoop(asyncio.SelectorEventLoop):
    async def create_connection(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("ssl") and kwargs.get("ssl_shutdown_timeout") is None:
            kwargs = {**kwargs, "ssl_shutdown_timeout": SSL_SHUTDOWN_S}
        return await super().create_connection(*args, **kwargs)


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on a loop whose TLS connections close within SSL_SHUTDOWN_S."""
    with asyncio.Runner(loop_factory=BoundedTlsCloseLoop) as runner:
        return runner.run(main)
