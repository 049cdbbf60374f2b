"""`reelstream services run NAME` (foreground) and `services up|down|status` (background, with pid files)."""

from __future__ import annotations

import importlib
import os
import signal
import sys
import time
from functools import partial
from pathlib import Path

import typer

from reelstream import arguments, production
from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit
from games.selftest import numba_cache_dir
from reelstream.processes import SERVICES, probe_state, spawn
from reelstream.profiling import profiled

app = typer.Typer(no_args_is_help=True)
STATE_DIR = Path(os.environ.get("REELSTREAM_STATE_DIR", Path.cwd() / ".reelstream"))
# A process started with this set to 1 imports its service, then waits for one line on stdin before it runs: a
# supervisor keeps one such warm spare per service, so a restart after a crash does not wait for the imports.
STANDBY_ENV = "REELSTREAM_STANDBY"


@app.command()
def run(name: str = typer.Argument(..., parser=lambda v: arguments.one_of(v, SERVICES), metavar="SERVICE")) -> None:
    """Run one service in the foreground until SIGTERM/SIGINT (each services/<name>/app.py exposes main())."""
    if not __debug__:
        raise typer.Exit("refusing to run with python -O: invariants must not be stripped")
    try:
        production.require_ready(os.environ, name)
    except production.ProductionRefused as refused:
        sys.stderr.write(f"reelstream-{name}: {refused}\n")
        raise SystemExit(78) from None  # EX_CONFIG, as the RNG self-test's refusal
    os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir(STATE_DIR, name)))  # before any kernel is imported
    module = importlib.import_module(f"services.{name}.app")
    main = module.main
    if os.environ.get(STANDBY_ENV) == "1":  # a warm spare: imported and prepared, it waits for its supervisor's go
        if prepare := getattr(module, "prepare", None):
            prepare()  # what needs no partition and no connection (the spin's compiled kernels)
        if spare := getattr(module, "spare", None):
            main = partial(spare, _go)  # it keeps its state warm while it waits (the spin's books)
        elif not _go():
            return  # the supervisor went away: nothing to take over
    # A CPU profile of the event loop thread, written when the service stops (SIGTERM): for benches.
    profile_dir = os.environ.get("REELSTREAM_PROFILE_DIR")
    with profiled(Path(profile_dir) / f"{name}-{os.getpid()}.prof" if profile_dir else None):
        main()


def _go() -> bool:
    """A spare's go: a line from its supervisor (False: the supervisor went away)."""
    return bool(sys.stdin.readline())


def _pid_file(name: str) -> Path:
    return STATE_DIR / "services" / f"{name}.pid"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _running_pid(name: str) -> int | None:
    path = _pid_file(name)
    if not path.exists():
        return None
    pid = int(path.read_text().strip() or 0)
    return pid if pid and _alive(pid) else None


@app.command()
def up(
    only: list[str] = typer.Option(
        list(SERVICES),
        "--only",
        parser=lambda v: arguments.one_of(v, SERVICES),
        metavar="SERVICE",
        help="Services to start (default: all).",
    ),
    timeout_s: float = typer.Option(90.0, min=1.0, max=3600.0, help="How long to wait for each service to be ready."),
) -> None:
    """Start services in the background (idempotent) and wait until each says on its /ready that it is ready."""
    started = []
    for name in only:
        if (pid := _running_pid(name)) is not None:
            typer.echo(f"{name}: already running (pid {pid})")
            continue
        service = spawn(name, log_dir=STATE_DIR / "logs")
        _pid_file(name).parent.mkdir(parents=True, exist_ok=True)
        _pid_file(name).write_text(str(service.process.pid))
        started.append(service)
    for service in started:
        try:
            url = service.wait_ready_by_probe(STATE_DIR, timeout_s)
        except (RuntimeError, TimeoutError) as error:
            typer.echo(f"{service.name}: not ready: {error}", err=True)
            raise typer.Exit(1) from None
        typer.echo(f"{service.name}: ready (pid {service.process.pid}, {url}, log {service.log_path})")


@app.command()
def down() -> None:
    """Stop the services that `up` started (by pid file)."""
    for name in reversed(SERVICES):
        pid = _running_pid(name)
        if pid is None:
            _pid_file(name).unlink(missing_ok=True)
            continue
        os.killpg(pid, signal.SIGTERM)
        typer.echo(f"{name}: stopping (pid {pid})")
        if not _wait_gone(pid, timeout_s=20.0):
            os.killpg(pid, signal.SIGKILL)
            typer.echo(f"{name}: did not stop within 20 s; killed")
        _pid_file(name).unlink(missing_ok=True)


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@app.command()
def status(
    format: Format = FORMAT,
    units: Units = UNITS,
    as_json: bool = typer.Option(False, "--json", help="The same as --format json."),
) -> None:
    """Which services run and what each says of itself: the pids started by `up` from this state directory and every
    running instance that writes its HTTP endpoint there (tests and extra instances included), each asked on /ready:
    ready, restoring, starting or unresponsive; failed when `up` started it and it has exited; else stopped."""
    from shared.observability.http import listed_endpoints

    endpoints = listed_endpoints({**os.environ, "REELSTREAM_STATE_DIR": str(STATE_DIR)})
    rows = []
    for name in SERVICES:
        pid = _running_pid(name)
        for endpoint in [e for e in endpoints if e["service"] == name] or [None]:
            if endpoint is not None:
                state = probe_state(endpoint["url"])
            elif pid is not None:
                state = "starting"  # alive, its endpoint not listed yet
            else:
                state = "failed" if _pid_file(name).exists() else "stopped"  # `up` started it and it exited
            rows.append(
                {
                    "service": name,
                    "state": state,
                    "pid": endpoint["pid"] if endpoint else pid,
                    "url": endpoint["url"] if endpoint else None,
                }
            )
    columns = [
        Column("service", "service"),
        Column("state", "state"),
        Column("pid", "pid", "code"),
        Column("url", "endpoint", "code"),
    ]
    emit(View("services", columns, rows), Format.json if as_json else format, units)
