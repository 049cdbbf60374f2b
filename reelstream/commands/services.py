"""`reelstream services run NAME` (foreground) and `services up|down|status` (background, with pid files)."""

from __future__ import annotations

import importlib
import os
import sys
from functools import partial
from pathlib import Path

import typer

from reelstream import arguments, background, production
from reelstream.output import FORMAT, UNITS, Column, Format, Units, View, emit
from games.selftest import numba_cache_dir
from reelstream.processes import KNOWN, app_module, deployment_services, probe_state, spawn
from reelstream.profiling import profiled

app = typer.Typer(no_args_is_help=True)
STATE_DIR = Path(os.environ.get("REELSTREAM_STATE_DIR", Path.cwd() / ".reelstream"))
# A process started with this set to 1 imports its service, then waits for one line on stdin before it runs: a
# supervisor keeps one such warm spare per service, so a restart after a crash does not wait for the imports.
STANDBY_ENV = "REELSTREAM_STANDBY"


@app.command()
def run(name: str = typer.Argument(..., parser=lambda v: arguments.one_of(v, KNOWN), metavar="SERVICE")) -> None:
    """Run one service in the foreground until SIGTERM/SIGINT (each services/<name>/app.py exposes main(); the
    seamless-saga's package is services/seamless_saga)."""
    if not __debug__:
        raise typer.Exit("refusing to run with python -O: invariants must not be stripped")
    try:
        production.require_ready(os.environ, name)
    except production.ProductionRefused as refused:
        sys.stderr.write(f"reelstream-{name}: {refused}\n")
        raise SystemExit(78) from None  # EX_CONFIG, as the RNG self-test's refusal
    os.environ.setdefault("NUMBA_CACHE_DIR", str(numba_cache_dir(STATE_DIR, name)))  # before any kernel is imported
    module = importlib.import_module(app_module(name))
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


@app.command()
def up(
    only: list[str] = typer.Option(
        [],
        "--only",
        parser=lambda v: arguments.one_of(v, KNOWN),
        metavar="SERVICE",
        help="Services to start (default: the deployment's: all, the seamless-saga only when the operators file "
        "names a seamless operator).",
    ),
    timeout_s: float = typer.Option(90.0, min=1.0, max=3600.0, help="How long to wait for each service to be ready."),
) -> None:
    """Start services in the background (idempotent) and wait until each says on its /ready that it is ready."""
    from shared.operators import CONFIGURED

    started = []
    for name in only or deployment_services(CONFIGURED):
        if (pid := background.running_pid(STATE_DIR, name)) is not None:
            typer.echo(f"{name}: already running (pid {pid})")
            continue
        service = spawn(name, log_dir=STATE_DIR / "logs")
        background.remember(STATE_DIR, name, service.process.pid)
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
    background.stop_all(STATE_DIR, reversed(KNOWN), typer.echo)


def _shown(deployed: tuple[str, ...], endpoints: list[dict]) -> list[str]:
    """The deployment's services, and any other that `up` started or that runs here (in the order of KNOWN)."""
    present = {endpoint["service"] for endpoint in endpoints}
    started = {name for name in KNOWN if background.pid_file(STATE_DIR, name).exists()}
    return [name for name in KNOWN if name in deployed or name in present or name in started]


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
    from shared.operators import CONFIGURED

    endpoints = listed_endpoints({**os.environ, "REELSTREAM_STATE_DIR": str(STATE_DIR)})
    rows = []
    for name in _shown(deployment_services(CONFIGURED), endpoints):
        pid = background.running_pid(STATE_DIR, name)
        for endpoint in [e for e in endpoints if e["service"] == name] or [None]:
            if endpoint is not None:
                state = probe_state(endpoint["url"])
            elif pid is not None:
                state = "starting"  # alive, its endpoint not listed yet
            else:
                started = background.pid_file(STATE_DIR, name).exists()
                state = "failed" if started else "stopped"  # `up` started it and it exited
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
