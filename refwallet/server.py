"""The reference wallet's HTTP side (aiohttp): both protocols' paths, the signature check, the fault switches, the
transaction feed for reconciliation, and (only when asked for) the admin paths that set players and faults."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
from aiohttp import web

from refwallet.faults import Fault, FaultPlan, FaultSwitch
from refwallet.ledger import Ledger
from refwallet.rules import Player
from refwallet.timings import CallTimings
from seamless.client import FEED_PATH
from seamless.port import AnyCall, Answered, BalanceCall, Status
from seamless.protocols import PROTOCOLS, WireProtocol
from seamless.signatures import KeyRing

BODY_BYTES_MAX = 64 * 1024
LEDGER = web.AppKey("ledger", Ledger)
KEYS = web.AppKey("keys", KeyRing)
FAULTS = web.AppKey("faults", FaultSwitch)
TIMINGS = web.AppKey("timings", CallTimings)


def _json(body: dict[str, Any]) -> web.Response:
    return web.Response(body=orjson.dumps(body), content_type="application/json")


def _refusal(protocol: WireProtocol, raw: bytes, status: Status) -> web.Response:
    """An answer to a request that could not be read or was not signed: its ids echoed when they can be found."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        data = {}
    data = data if isinstance(data, dict) else {}
    return _json(protocol.refusal_body(data, status))


async def _drop(request: web.Request) -> web.StreamResponse:
    """Close the connection without an answer (the caller sees it lost); a caller that gave up has closed it."""
    if request.transport is not None:
        request.transport.close()
    raise asyncio.CancelledError


async def _answer(app: web.Application, call: AnyCall, fault: Fault) -> Answered:
    ledger = app[LEDGER]
    if isinstance(call, BalanceCall):
        return await ledger.balance(call)
    if fault is Fault.DUPLICATE:
        first, second = await asyncio.gather(ledger.apply(call), ledger.apply(call))
        assert first == second, "two deliveries of one request got two answers"
        return first
    return await ledger.apply(call)


def handler(protocol: WireProtocol, kind: str):
    async def timed(request: web.Request) -> web.StreamResponse:
        """A call answered is timed; one dropped unanswered (a fault, a caller gone) is not."""
        started = time.perf_counter_ns()
        response = await handle(request)
        request.app[TIMINGS].record((time.perf_counter_ns() - started) // 1000)
        return response

    async def handle(request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        signature = request.headers.get(protocol.signature_header)
        if not request.app[KEYS].verify(raw, signature, request.headers.get(protocol.key_id_header)):
            return _refusal(protocol, raw, Status.SIGNATURE_REFUSED)
        try:
            call = protocol.read_call(kind, raw)
        except ValueError:
            return _refusal(protocol, raw, Status.MALFORMED)
        plan = request.app[FAULTS].plan
        fault = Fault.NONE if kind == "balance" else request.app[FAULTS].next(str(call.request_id))
        await asyncio.sleep(plan.latency_ms / 1000)
        if fault is Fault.HTTP_500:
            return web.Response(status=500, text="fault: http_500")
        if fault is Fault.TIMEOUT:
            await asyncio.sleep(plan.hang_ms / 1000)
            return await _drop(request)
        answer = await _answer(request.app, call, fault)
        if fault is Fault.LOST:
            return await _drop(request)
        if fault is Fault.LATE:
            await asyncio.sleep(plan.late_ms / 1000)
        if fault is Fault.NO_BALANCE:
            answer = answer.model_copy(update={"balance_minor": None})
        return _json(protocol.answer_body(call, answer))

    return timed


async def feed(request: web.Request) -> web.Response:
    """GET /transactions?since=N&limit=M, signed like a call (the signature covers the path and query)."""
    signed = request.path_qs.encode()
    for protocol in PROTOCOLS.values():
        signature = request.headers.get(protocol.signature_header)
        if signature and request.app[KEYS].verify(signed, signature, request.headers.get(protocol.key_id_header)):
            break
    else:
        return web.Response(status=401, text="signature refused")
    try:
        since, limit = int(request.query.get("since", "0")), int(request.query.get("limit", "100"))
    except ValueError:
        return web.Response(status=400, text="since and limit are integers")
    if since < 0 or limit < 1:
        return web.Response(status=400, text="since >= 0, limit >= 1")
    return _json(await request.app[LEDGER].feed(since, limit))


async def put_faults(request: web.Request) -> web.Response:
    plan = FaultPlan.model_validate_json(await request.read())
    request.app[FAULTS].set(plan)
    return _json(plan.model_dump())


async def get_faults(request: web.Request) -> web.Response:
    return _json(request.app[FAULTS].accounting())


async def get_timings(request: web.Request) -> web.Response:
    """GET /_admin/timings?since=N: how long each call answered after the first N took, in µs."""
    try:
        since = int(request.query.get("since", "0"))
    except ValueError:
        return web.Response(status=400, text="since is an integer")
    if since < 0:
        return web.Response(status=400, text="since >= 0")
    return _json(request.app[TIMINGS].since(since))


async def put_player(request: web.Request) -> web.Response:
    body = orjson.loads(await request.read())
    player = Player(player_id=request.match_info["player_id"], **body)
    await request.app[LEDGER].put_player(player)
    return _json({"player_id": player.player_id})


def make_app(ledger: Ledger, keys: KeyRing, plan: FaultPlan, *, admin: bool = False) -> web.Application:
    app = web.Application(client_max_size=BODY_BYTES_MAX)
    app[LEDGER], app[KEYS], app[FAULTS], app[TIMINGS] = ledger, keys, FaultSwitch(plan), CallTimings()
    for protocol in PROTOCOLS.values():
        for kind, path in protocol.paths.items():
            app.router.add_post(path, handler(protocol, kind))
    app.router.add_get(FEED_PATH, feed)
    if admin:
        app.router.add_put("/_admin/faults", put_faults)
        app.router.add_get("/_admin/faults", get_faults)
        app.router.add_get("/_admin/timings", get_timings)
        app.router.add_put("/_admin/players/{player_id}", put_player)
    return app
