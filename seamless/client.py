"""The HTTP client of an operator's wallet (aiohttp): a keep-alive session, a timeout per call, signed bodies. Each call
returns an answer or a typed absence of one and is never retried here: retries are the outbox's decision."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import orjson

from seamless.port import AnyCall, NoAnswer, NoAnswerReason, Outcome
from seamless.protocols import WireProtocol
from seamless.signatures import Signer

CONNECTIONS_MAX = 32
KEEPALIVE_S = 30.0
ANSWER_BYTES_MAX = 64 * 1024
# A feed page holds up to a thousand transactions of a few hundred bytes each: far more than one call's answer.
FEED_BYTES_MAX = 4 * 1024 * 1024
FEED_PATH = "/transactions"


class WalletClient:
    """One operator's wallet: `await client.call(call)` -> Answered | NoAnswer."""

    def __init__(self, base_url: str, protocol: WireProtocol, signer: Signer, *, timeout_s: float):
        assert timeout_s > 0
        self.base_url = base_url.rstrip("/")
        self.protocol = protocol
        self.signer = signer
        self.timeout_s = timeout_s
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> WalletClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=CONNECTIONS_MAX, keepalive_timeout=KEEPALIVE_S)
            # The per-call deadline is asyncio.timeout in exchange(); aiohttp's own is switched off so there is one.
            self._session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))
        return self._session

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    def signed(self, body: bytes, signer: Signer | None = None) -> dict[str, str]:
        signer = signer or self.signer
        return {
            "Content-Type": "application/json",
            self.protocol.signature_header: signer.sign(body),
            self.protocol.key_id_header: signer.key_id,
        }

    def encode(self, call: AnyCall) -> tuple[str, bytes]:
        return self.protocol.paths[call.kind], orjson.dumps(self.protocol.request_body(call))

    async def call(self, call: AnyCall) -> Outcome:
        path, body = self.encode(call)
        return await self.send(call, path, body, self.signed(body))

    async def send(self, call: AnyCall, path: str, body: bytes, headers: dict[str, str]) -> Outcome:
        """Post `body` as is (the conformance kit sends tampered ones) and read the answer to `call`."""
        got = await self.exchange("POST", path, body, headers)
        if isinstance(got, NoAnswerReason):
            return NoAnswer(request_id=call.request_id, reason=got)
        status, raw = got
        if status != 200:
            return NoAnswer(request_id=call.request_id, reason=NoAnswerReason.HTTP_ERROR, detail=f"HTTP {status}")
        if len(raw) > ANSWER_BYTES_MAX:
            return NoAnswer(request_id=call.request_id, reason=NoAnswerReason.UNREADABLE, detail="answer too long")
        try:
            return self.protocol.read_answer(call, raw)
        except ValueError as error:
            return NoAnswer(request_id=call.request_id, reason=NoAnswerReason.UNREADABLE, detail=str(error)[:200])

    async def exchange(
        self, method: str, path: str, body: bytes, headers: dict[str, str], bytes_max: int = ANSWER_BYTES_MAX
    ) -> tuple[int, bytes] | NoAnswerReason:
        """The status and at most `bytes_max` + 1 bytes of the body (a longer one is the caller's to refuse)."""
        session = self._open()
        try:
            async with asyncio.timeout(self.timeout_s):
                async with session.request(method, self.base_url + path, data=body, headers=headers) as response:
                    return response.status, await _body(response.content, bytes_max + 1)
        except TimeoutError:
            return NoAnswerReason.TIMEOUT
        except aiohttp.ClientError:
            return NoAnswerReason.LOST

    async def transactions(self, since: int, limit: int) -> dict[str, Any] | NoAnswerReason:
        """A page of the wallet's transaction feed after position `since` (the reference wallet serves one)."""
        path = f"{FEED_PATH}?since={since}&limit={limit}"
        got = await self.exchange("GET", path, b"", self.signed(path.encode()), FEED_BYTES_MAX)
        if isinstance(got, NoAnswerReason):
            return got
        status, raw = got
        if status != 200:
            return NoAnswerReason.HTTP_ERROR
        if len(raw) > FEED_BYTES_MAX:
            return NoAnswerReason.UNREADABLE
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            return NoAnswerReason.UNREADABLE


async def _body(content: aiohttp.StreamReader, bytes_max: int) -> bytes:
    """Up to `bytes_max` bytes of a body: read() gives what has arrived, one chunk of it, not the whole body."""
    raw = bytearray()
    while len(raw) < bytes_max:
        chunk = await content.read(bytes_max - len(raw))
        if not chunk:
            break
        raw += chunk
    return bytes(raw)
