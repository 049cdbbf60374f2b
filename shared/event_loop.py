"""The event loop a service process runs on: asyncio's, with a TLS connection's close bounded to SSL_SHUTDOWN_S, since a
silent TLS peer would hold aiokafka's `stop()` for the whole default wait (docs/operations.md)."""

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
