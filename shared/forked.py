"""Bytes computed from this process's memory as it is now, in a forked child (copy-on-write), while the caller goes on:
the wallet's and the jackpot's snapshot images (docs/snapshots.md)."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

FORK_ENV = "REELSTREAM_SNAPSHOT_FORK"
# The child's niceness: its work is off the hot path, so it takes only the CPU the services leave. At the default 0,
# six children encoding a spin's books took the cores its partitions needed (docs/spin.md, "the stalls named").
CHILD_NICENESS = 19
_LENGTH = 8  # the child's bytes are framed by their length, so a child that died half way is told apart
_workers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="forked")


class ForkedWorkFailed(RuntimeError):
    """The child died or raised before handing over all of its bytes."""


def enabled(env: dict[str, str] | None = None) -> bool:
    return hasattr(os, "fork") and (env if env is not None else os.environ).get(FORK_ENV, "1") != "0"


def start(work: Callable[[], bytes], fork: bool | None = None) -> Future[bytes]:
    """`work()` of the memory as it is now: in a forked child when `fork` (default: `enabled()`), else at once."""
    if not (enabled() if fork is None else fork):
        return _done(work)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(work, read_fd, write_fd)
    os.close(write_fd)
    return _workers.submit(_collect, pid, read_fd)


def in_thread(work: Callable[..., bytes], *args: object) -> Future[bytes]:
    """`work(*args)` on a worker thread (for bytes that no longer change: compressing them needs no fork)."""
    return _workers.submit(work, *args)


def done(data: bytes) -> Future[bytes]:
    """Bytes already at hand, as a finished future."""
    future: Future[bytes] = Future()
    future.set_result(data)
    return future


def _done(work: Callable[[], bytes]) -> Future[bytes]:
    try:
        return done(work())
    except Exception as error:  # the caller sees it where it awaits the bytes, as with a child's failure
        future: Future[bytes] = Future()
        future.set_exception(error)
        return future


def _child(work: Callable[[], bytes], read_fd: int, write_fd: int) -> None:
    code = 1
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):  # a signal to the process group ends the child, not the loop's
            signal.signal(sig, signal.SIG_DFL)
        os.close(read_fd)
        os.nice(CHILD_NICENESS)
        data = work()
        view = memoryview(len(data).to_bytes(_LENGTH, "big") + data)
        while view:
            view = view[os.write(write_fd, view) :]
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int, read_fd: int) -> bytes:
    parts = []
    with os.fdopen(read_fd, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            parts.append(chunk)
    _, status = os.waitpid(pid, 0)
    raw = b"".join(parts)
    exit_code = os.waitstatus_to_exitcode(status)
    if exit_code != 0 or len(raw) < _LENGTH or int.from_bytes(raw[:_LENGTH], "big") != len(raw) - _LENGTH:
        raise ForkedWorkFailed(f"forked child {pid} exited {exit_code} after {len(raw)} bytes")
    return raw[_LENGTH:]
