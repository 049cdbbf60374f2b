"""Local PostgreSQL: a private cluster of Debian's postgresql package in the state folder, run as the postgres user."""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from deploy.local import procs
from deploy.local.exceptions import InfraError
from deploy.local.paths import InfraPaths
from deploy.local.tools import who_listens
from shared.waits import WaitTimeout, wait_until_async

START_TIMEOUT_S = 60
Echo = Callable[[str], None]
_MARKER = "postgres"


@dataclass(frozen=True)
class PostgresEndpoint:
    url: str  # postgresql://user:password@host:port/database

    @property
    def parts(self):
        return urlsplit(self.url)

    @property
    def user(self) -> str:
        return self.parts.username or "reelstream"

    @property
    def password(self) -> str:
        return self.parts.password or ""

    @property
    def host(self) -> str:
        return self.parts.hostname or "127.0.0.1"

    @property
    def port(self) -> int:
        return self.parts.port or 5432

    @property
    def database(self) -> str:
        return self.parts.path.lstrip("/") or self.user


def find_bin_dir() -> Path:
    """The server binaries (initdb, pg_ctl, postgres): $PG_BIN, else the newest /usr/lib/postgresql/<N>/bin."""
    explicit = os.environ.get("PG_BIN")
    candidates = (
        [Path(explicit)]
        if explicit
        else sorted(
            Path("/usr/lib/postgresql").glob("*/bin"),
            key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        )
    )
    for candidate in reversed(candidates):
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    on_path = shutil.which("pg_ctl")
    if on_path and (Path(on_path).parent / "initdb").exists():
        return Path(on_path).parent
    raise InfraError(
        "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's package (apt-get install postgresql) "
        "or set PG_BIN to the folder that holds them."
    )


def _as_owner() -> list[str]:
    """Command prefix that runs a program as the cluster owner: `postgres` when we are root (initdb refuses root)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError as error:
        raise InfraError(
            "running as root but no `postgres` system user exists to own the cluster "
            "(apt-get install postgresql creates it)"
        ) from error
    return ["runuser", "-u", "postgres", "--"]


def _run(argv: list[str], what: str, timeout_s: float = 120) -> str:
    result = subprocess.run(_as_owner() + argv, capture_output=True, text=True, timeout=timeout_s)
    if result.returncode != 0:
        raise InfraError(f"{what} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result.stdout


def _prepare_dir(pg_dir: Path) -> None:
    pg_dir.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(pg_dir, owner.pw_uid, owner.pw_gid)
        probe = subprocess.run(_as_owner() + ["test", "-w", str(pg_dir)], timeout=10)
        if probe.returncode != 0:
            raise InfraError(
                f"the postgres user cannot write {pg_dir} (a parent folder is not traversable); "
                "set REELSTREAM_STATE_DIR to a folder it can reach, e.g. /var/tmp/reelstream"
            )


def _initdb(bin_dir: Path, pg_dir: Path, endpoint: PostgresEndpoint, echo: Echo) -> None:
    data = pg_dir / "data"
    if (data / "PG_VERSION").exists():
        return
    echo(f"postgres: initdb {data}")
    _run(
        [
            str(bin_dir / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
        ],
        "initdb",
    )
    settings = (
        "\n# reelstream local cluster\n"
        f"listen_addresses = '{endpoint.host}'\nport = {endpoint.port}\n"
        f"unix_socket_directories = '{pg_dir}'\nmax_connections = 200\n"
    )
    conf = data / "postgresql.conf"
    with open(conf, "a") as handle:
        handle.write(settings)


def running_pid(paths: InfraPaths) -> int | None:
    """The postmaster's pid, only when this checkout started it (our pid file agrees with postmaster.pid)."""
    ours = procs.read_pid(paths.postgres_dir / "reelstream.pid", _MARKER)
    theirs = procs.read_pid(paths.postgres_dir / "data" / "postmaster.pid", _MARKER)
    return ours if ours is not None and ours == theirs else None


def _psql(bin_dir: Path, pg_dir: Path, endpoint: PostgresEndpoint, sql: str, database: str = "postgres") -> str:
    argv = [
        str(bin_dir / "psql"),
        "-h",
        str(pg_dir),
        "-p",
        str(endpoint.port),
        "-U",
        "postgres",
        "-d",
        database,
        "-v",
        "ON_ERROR_STOP=1",
        "-tAc",
        sql,
    ]
    return _run(argv, f"psql {sql!r}", timeout_s=30).strip()


def _ensure_role_and_database(bin_dir: Path, pg_dir: Path, endpoint: PostgresEndpoint) -> None:
    user, password = endpoint.user, endpoint.password.replace("'", "''")
    if _psql(bin_dir, pg_dir, endpoint, f"SELECT 1 FROM pg_roles WHERE rolname = '{user}'") != "1":
        # CREATEDB: integration tests may create throw-away databases.
        _psql(bin_dir, pg_dir, endpoint, f"CREATE ROLE \"{user}\" LOGIN CREATEDB PASSWORD '{password}'")
    if _psql(bin_dir, pg_dir, endpoint, f"SELECT 1 FROM pg_database WHERE datname = '{endpoint.database}'") != "1":
        _psql(bin_dir, pg_dir, endpoint, f'CREATE DATABASE "{endpoint.database}" OWNER "{user}"')


async def _accepts_connection(url: str) -> bool:
    import asyncpg

    try:
        connection = await asyncpg.connect(url, timeout=3)
    except (OSError, asyncpg.PostgresError, asyncio.TimeoutError):
        return False
    try:
        return await connection.fetchval("SELECT 1") == 1
    finally:
        await connection.close()


def up(paths: InfraPaths, endpoint: PostgresEndpoint, echo: Echo) -> None:
    pg_dir = paths.postgres_dir
    pid = running_pid(paths)
    bin_dir = find_bin_dir()
    if pid is not None:
        echo(f"postgres: already running (pid {pid})")
    else:
        if procs.port_open(endpoint.host, endpoint.port):
            raise InfraError(
                f"port {endpoint.port} on {endpoint.host} is taken by {who_listens(endpoint.port)}, not by a cluster "
                "this checkout started; stop it and run `reelstream infra up` again."
            )
        _prepare_dir(pg_dir)
        _initdb(bin_dir, pg_dir, endpoint, echo)
        log = pg_dir / "postgres.log"
        _run(
            [
                str(bin_dir / "pg_ctl"),
                "-D",
                str(pg_dir / "data"),
                "-l",
                str(log),
                "-w",
                "-t",
                str(START_TIMEOUT_S),
                "start",
            ],
            f"pg_ctl start (log {log})",
            timeout_s=START_TIMEOUT_S + 10,
        )
        pid = procs.read_pid(pg_dir / "data" / "postmaster.pid", _MARKER)
        if pid is None:
            raise InfraError(f"postgres did not start; last log lines:\n{procs.log_tail(log)}")
        (pg_dir / "reelstream.pid").write_text(f"{pid}\n")
        echo(f"postgres: started pid {pid}, log {log}")
    _ensure_role_and_database(bin_dir, pg_dir, endpoint)
    try:
        asyncio.run(
            wait_until_async(
                lambda: _accepts_connection(endpoint.url),
                START_TIMEOUT_S,
                0.3,
                what=f"a connection to postgres on {endpoint.host}:{endpoint.port}",
            )
        )
    except WaitTimeout as error:
        raise InfraError(str(error)) from error


def down(paths: InfraPaths, echo: Echo) -> None:
    pid = running_pid(paths)
    if pid is None:
        echo("postgres: not running (nothing this checkout started)")
    else:
        _run(
            [
                str(find_bin_dir() / "pg_ctl"),
                "-D",
                str(paths.postgres_dir / "data"),
                "-m",
                "fast",
                "-w",
                "-t",
                "60",
                "stop",
            ],
            "pg_ctl stop",
            timeout_s=70,
        )
        echo(f"postgres: stopped pid {pid}")
    (paths.postgres_dir / "reelstream.pid").unlink(missing_ok=True)


async def drop_database(server_url: str, database: str, attempts: int = 20, pause_s: float = 0.5) -> None:
    """DROP DATABASE ... WITH (FORCE), retried briefly: FORCE cannot end an autovacuum worker in that database (a
    process of no role the caller belongs to: InsufficientPrivilegeError), which finishes on its own."""
    import asyncpg

    for attempt in range(attempts):
        conn = await asyncpg.connect(server_url, timeout=30)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            return
        except (asyncpg.InsufficientPrivilegeError, asyncpg.ObjectInUseError):
            if attempt == attempts - 1:
                raise
        finally:
            await conn.close()
        await asyncio.sleep(pause_s)
