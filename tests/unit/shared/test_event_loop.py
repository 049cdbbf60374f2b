"""The services' event loop: a TLS close that does not wait 30 s for a silent peer.

Scenario: a TLS server completes the handshake and then never reads again, the way a Java TLS 1.3 broker leaves a
client's close_notify unanswered. A client on the services' loop closes its connection: it must be gone within the
bound, where asyncio's own default waits 30 s for the peer's close_notify (this test fails without the bound).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import threading
import time

from deploy.local.pki import ensure_tls
from shared import event_loop


def test_run_returns_the_coroutines_result_on_the_bounded_loop():
    async def which() -> str:
        return type(asyncio.get_running_loop()).__name__

    assert event_loop.run(which()) == "BoundedTlsCloseLoop"


class SilentTlsServer:
    """Accepts one TLS connection, completes the handshake, then holds the socket open and reads nothing."""

    def __init__(self, cert, key) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(cert, key)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.release = threading.Event()
        self.handshaken = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        raw, _ = self.listener.accept()
        with self.context.wrap_socket(raw, server_side=True):
            self.handshaken.set()
            self.release.wait(60)

    def close(self) -> None:
        self.release.set()
        self.thread.join(10)
        self.listener.close()


def test_a_tls_close_to_a_peer_that_never_answers_ends_within_the_bound(tmp_path):
    files = ensure_tls(tmp_path / "tls")
    server = SilentTlsServer(files.broker_cert, files.broker_key)
    client = ssl.create_default_context(cafile=str(files.ca_cert))

    async def connect_and_close() -> float:
        _, writer = await asyncio.open_connection("127.0.0.1", server.port, ssl=client)
        assert await asyncio.to_thread(server.handshaken.wait, 10)
        writer.write(b"a request the server never reads")
        started = time.monotonic()
        writer.close()
        try:
            await asyncio.wait_for(writer.wait_closed(), 25)
        except TimeoutError as unanswered:  # the bound ended the wait: the transport is closed, as aiokafka sees it
            assert "SSL shutdown timed out" in str(unanswered)
        return time.monotonic() - started

    try:
        closed_s = event_loop.run(connect_and_close())
    finally:
        server.close()
    assert closed_s <= event_loop.SSL_SHUTDOWN_S + 1.0
