"""One HTTP endpoint per process: /health, /ready (readiness.py) and /metrics, at REELSTREAM_HTTP_HOST /
REELSTREAM_HTTP_PORT (0: any free port), recorded under the state directory for `reelstream services status`."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path

import orjson
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from shared.observability.process import PROCESS, Process

DEFAULT_HOST = "127.0.0.1"


def endpoints_dir(environ=os.environ) -> Path:
    return Path(environ.get("REELSTREAM_STATE_DIR", ".reelstream")) / "services" / "endpoints"


@dataclass
class HttpServer:
    runner: web.AppRunner
    url: str
    address_file: Path
    probe: asyncio.Task

    async def stop(self) -> None:
        self.probe.cancel()
        self.address_file.unlink(missing_ok=True)
        await self.runner.cleanup()


def _app(process: Process) -> web.Application:
    async def health(_request: web.Request) -> web.Response:
        return web.json_response({"service": process.service, "alive": True})

    async def ready(_request: web.Request) -> web.Response:
        readiness = process.readiness
        body = {
            "service": process.service,
            "ready": process.ready,
            "restoring": readiness.restores > 0,
            "partitions_restoring": sorted(readiness.restoring),
            "partitions_restored": sorted(readiness.restored),
        }
        return web.json_response(body, status=200 if body["ready"] else 503)

    async def metrics(_request: web.Request) -> web.Response:
        process.refresh_gauges()
        return web.Response(body=generate_latest(), headers={"Content-Type": CONTENT_TYPE_LATEST})

    app = web.Application()
    app.add_routes([web.get("/health", health), web.get("/ready", ready), web.get("/metrics", metrics)])
    return app


async def serve_http(process: Process = PROCESS, environ=os.environ) -> HttpServer:
    """Start the endpoint and the probe loop; the caller stops them with `await server.stop()`."""
    host = environ.get("REELSTREAM_HTTP_HOST", DEFAULT_HOST)
    runner = web.AppRunner(_app(process), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, int(environ.get("REELSTREAM_HTTP_PORT", "0")))
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # noqa: SLF001 - the port the OS chose when 0 was asked
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    url = f"http://{shown}:{port}"
    address_file = announce_endpoint(process.service, url, environ)
    return HttpServer(runner, url, address_file, asyncio.create_task(process.run_probe(), name="observability-probe"))


def announce_endpoint(service: str, url: str, environ=os.environ) -> Path:
    """List this process's endpoint (/health, /ready, /metrics at `url`) where `services up` and `services status`
    look for it; the file is removed with the server, or when a reader finds its process dead."""
    folder = endpoints_dir(environ)
    folder.mkdir(parents=True, exist_ok=True)
    address_file = folder / f"{service}-{os.getpid()}.json"
    # Written whole, then renamed: a reader listing the folder never sees a half-written (empty) file.
    partial = address_file.with_suffix(".tmp")
    partial.write_bytes(orjson.dumps({"service": service, "pid": os.getpid(), "url": url}))
    os.replace(partial, address_file)
    return address_file


def listed_endpoints(environ=os.environ) -> list[dict]:
    """Every endpoint file whose process is alive (files of dead processes are removed)."""
    found = []
    for path in sorted(endpoints_dir(environ).glob("*.json")):
        entry = orjson.loads(path.read_bytes())
        try:
            os.kill(int(entry["pid"]), 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
            continue
        found.append(entry)
    return found
