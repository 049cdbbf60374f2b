"""Routes of the monitor's web server: `/` meters, `/ops`, their JSON under `/api/`, `/events/*` (SSE), `/metrics`,
`/health`, `/ready`. Pages are static files; everything they show comes from the JSON and the pushes."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from aiohttp import web as aioweb
from faust import web

from games.registry import engine
from services.monitor.adapters import records
from services.monitor.adapters.broker import last_audit
from services.monitor.core import sequential, views
from services.monitor.core.facts import split_cell
from shared.config import last_audit_report
from shared.kafka import records_behind
from shared.pools import load_pools
from shared.roles import ends_with_commit_marker

STATIC = Path(__file__).parent / "static"
PUSH_MIN_INTERVAL_S = 0.5
HEARTBEAT_S = 10.0


def install_web(app, tables, live, pars, settings) -> None:
    networks = load_pools().networks
    rising = engine("rising-joker")
    fixed = {tier.tier: tier.fixed_hundredths for tier in rising.model.mystery.tiers}
    audit_path = last_audit_report()
    prefix = settings.topic_prefix

    def meters_body(stake_minor: int) -> dict:
        dm = next(n for n in networks if n.network_id == "diamond-mystery")
        levels = dict(tables.plain["levels"].items())
        return {
            "ready": live.ready,
            "broker_reachable": live.broker.reachable,
            "now_ms": _now_ms(),
            "networks": views.networks_view(networks, levels, dict(tables.plain["wins"].items())),
            "share_table": {
                "network_id": dm.network_id,
                "currency": dm.currency,
                "stake_minor": stake_minor,
                "stakes_minor": list(rising.stakes_minor),
                "rows": views.share_table(dm, fixed, levels, stake_minor),
            },
        }

    def ops_body() -> dict:
        now = _now_ms()
        minutes = _windows(tables, "cells_1m")
        body = views.ops_view(minutes, _windows(tables, "cells_1d"), pars, now)
        lag_records = sum(
            records_behind(_highwater(app, tp) or 0, nxt, ends_with_commit_marker(tp[0][len(prefix) :]))
            for tp, nxt in live.next_offset.items()
        )
        tests = {cell: value for cell, value in tables.plain["rtp_test"].items() if value}
        return {
            **body,
            "ready": live.ready,
            "now_ms": now,
            "broker_reachable": live.broker.reachable,
            "broker_error": live.broker.error,
            "broker_checked_ms": live.broker.checked_ms,
            "lag_by_group": live.broker.lag_by_group,
            "monitor_lag_records": lag_records,
            "monitor_lag_s": _lag_s(live, now) if lag_records else 0.0,
            "dead_letters": [
                {"topic": t, "reason": r, "count": c} for (t, r), c in sorted(live.broker.dead_letters.items())
            ],
            "rejections": {code: v["count"] for code, v in sorted(tables.plain["rejections"].items()) if v},
            "records_read": dict(live.records),
            "skipped": dict(records.skipped),
            "alerts_sent": live.alerts_sent,
            "rtp_tests": [
                {**split_cell(cell), "spins": v["spins"], "low_at": v["low_at"], "high_at": v["high_at"]}
                for cell, v in sorted(tests.items())
            ],
            "family_alpha": sequential.ALPHA_FAMILY,
            "pools_drifted": {p: v["drifts"] for p, v in tables.plain["pools"].items() if v and v["drifts"]},
            "last_audit": last_audit(audit_path),
        }

    def stake_of(request) -> int:
        wanted = request.query.get("stake", "")
        stake = int(wanted) if wanted.isdigit() else 100
        return stake if stake in rising.stakes_minor else 100

    @app.page("/")
    class MeterPage(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.html((STATIC / "meters.html").read_text())

    @app.page("/ops")
    class OpsPage(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.html((STATIC / "ops.html").read_text())

    @app.page("/api/meters")
    class MetersApi(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.json(meters_body(stake_of(request)))

    @app.page("/api/ops")
    class OpsApi(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.json(ops_body())

    @app.page("/api/cells")
    class CellsApi(web.View):
        async def get(self, request: web.Request) -> web.Response:
            name = request.query.get("window", "1m")
            table = f"cells_{name}" if f"cells_{name}" in tables.windowed else "cells_1m"
            return self.json({"window": table, "cells": views.cells_view(_windows(tables, table), pars)[:500]})

    @app.page("/api/tables")
    class TablesApi(web.View):
        """Every table as the fresh fold keys it (tests compare the two after a crash)."""

        async def get(self, request: web.Request) -> web.Response:
            dump = tables.dump()
            return self.json(
                {
                    name: [[_json_key(k), v] for k, v in sorted(t.items(), key=lambda kv: str(kv[0]))]
                    for name, t in dump.items()
                }
            )

    @app.page("/health")
    class Health(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.json(
                {
                    "status": "ok",
                    "ready": live.ready,
                    "broker_reachable": live.broker.reachable,
                    "uptime_s": round(time.monotonic() - live.started_monotonic, 1),
                }
            )

    @app.page("/ready")
    class Ready(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.json({"ready": live.ready}, status=200 if live.ready else 503)

    @app.page("/metrics")
    class Metrics(web.View):
        async def get(self, request: web.Request) -> web.Response:
            return self.text(_prometheus(ops_body()), content_type="text/plain; version=0.0.4")

    router = app.web.web_app.router
    router.add_get("/events/meters", lambda request: _push(request, live, lambda: meters_body(stake_of(request))))
    router.add_get("/events/ops", lambda request: _push(request, live, ops_body))
    router.add_static("/static/", str(STATIC))


def _now_ms() -> int:
    return int(time.time() * 1000)


def _windows(tables, name: str) -> dict:
    return {
        (key, round(window[0] * 1000)): value
        for (key, window), value in tables.windowed[name].table.data.items()
        if value
    }


def _highwater(app, tp: tuple[str, int]) -> int | None:
    """The end offset the consumer last saw of an assigned input partition (None once it is revoked)."""
    from faust.types import TP

    partition = TP(*tp)
    return app.consumer.highwater(partition) if partition in app.consumer.assignment() else None


def _lag_s(live, now_ms: int) -> float:
    """How old the newest record read is, while records wait (an upper bound of how far behind the pages are)."""
    newest = max(live.last_broker_ms.values(), default=now_ms)
    return max(0.0, (now_ms - newest) / 1000)


def _json_key(key):
    return list(key) if isinstance(key, tuple) else key


async def _push(request, live, body) -> aioweb.StreamResponse:
    """Server-sent events: the page's JSON at most every PUSH_MIN_INTERVAL_S while things change, a comment as
    heartbeat when nothing does (so the page sees a dead connection)."""
    queue = live.subscribe()
    if queue is None:
        raise aioweb.HTTPServiceUnavailable(text="too many live pages")
    response = aioweb.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    try:
        await response.write(f"data: {json.dumps(body())}\n\n".encode())
        while True:
            try:
                await asyncio.wait_for(queue.get(), HEARTBEAT_S)
            except asyncio.TimeoutError:
                await response.write(b": heartbeat\n\n")
                continue
            await response.write(f"data: {json.dumps(body())}\n\n".encode())
            await asyncio.sleep(PUSH_MIN_INTERVAL_S)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        live.subscribers.discard(queue)
    return response


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _prometheus(ops: dict) -> str:
    lines = [
        f"reelstream_monitor_ready {int(ops['ready'])}",
        f"reelstream_monitor_broker_reachable {int(bool(ops['broker_reachable']))}",
        f"reelstream_monitor_spins_per_second {ops['spins_per_s']}",
        f"reelstream_monitor_lag_records {ops['monitor_lag_records']}",
        f"reelstream_monitor_alerts_sent_total {ops['alerts_sent']}",
    ]
    for quantile, key in (("0.5", "latency_p50_ms"), ("0.99", "latency_p99_ms")):
        if ops[key] is not None:
            lines.append(f'reelstream_spin_latency_ms{{quantile="{quantile}"}} {ops[key]}')
    lines += [f'reelstream_records_read_total{{topic="{t}"}} {n}' for t, n in ops["records_read"].items()]
    lines += [f'reelstream_consumer_lag_records{{group="{g}"}} {n}' for g, n in ops["lag_by_group"].items()]
    lines += [f'reelstream_spin_rejections_total{{code="{c}"}} {n}' for c, n in ops["rejections"].items()]
    lines += [
        f'reelstream_dead_letters_total{{topic="{_label(d["topic"])}",reason="{_label(d["reason"])}"}} {d["count"]}'
        for d in ops["dead_letters"]
    ]
    for game, rtp in ops["rtp_by_game"].items():
        if rtp["rtp"] is not None:
            lines.append(f'reelstream_observed_rtp{{game="{game}"}} {rtp["rtp"]}')
    return "\n".join(lines) + "\n"
