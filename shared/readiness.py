"""The line a service prints (to stderr) once it consumes its inputs; `services up` and the tests wait for it. It lives
on the ground floor so that no service imports the CLI package to announce itself."""

from __future__ import annotations

READY_MARKER = "reelstream-service-ready"


def ready_line(service: str) -> str:
    return f"{READY_MARKER} {service}"
