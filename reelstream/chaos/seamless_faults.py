"""`python -m reelstream.chaos.seamless_faults` (`make seamless-faults`): a seamless operator's spins on the reference
wallet with its answers faulted and every service SIGKILLed midway, then every check of docs/seamless.md, "The fault
run" (the checks themselves are pure: reelstream/chaos/seamless_checks.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import asyncpg
from kafka.errors import KafkaError

from reelstream.chaos import metrics
from reelstream.chaos.deployment import Deployment, fresh_deployment, sigterm_unwinds, sql
from reelstream.chaos.seamless_checks import (
    Answer,
    Row,
    accounting_problems,
    answer_problems,
    balance_problems,
    fault_accounting,
    ledger_problems,
    markdown,
    round_counts,
)
from reelstream.monitor_process import free_port
from reelstream.client import ReelstreamClient, Settled, SpinTimeout
from reelstream.processes import ServiceProcess, spawn
from seamless.signatures import Signer
from shared.config import Settings, load_settings
from shared.session import issue_token

OPERATOR = "demo-b"  # a demo operator: its topics and roles exist in every deployment outside production
LEDGER_OPERATOR = "demo-a"  # the other demo operator, on the ledger wallet
KEY_ID = "reelstream-faults"
SERVICES = ("wallet", "jackpot", "spin", "projector", "seamless-saga")
GAMES = (("rising-joker", "EUR", (10, 20, 100, 200)), ("stjernestoev", "DKK", (50, 100, 200)))
START_MINOR = 100_000_000
LISTENING = "refwallet: listening on"
# The saga's clocks for the run: a call gives up fast, a bet stays open a few calls' worth, a win is retried for the
# least the operators file allows (a run's wins are all acknowledged long before).
WALLET_CLOCKS = {"call_timeout_ms": 1_000, "bet_timeout_ms": 5_000, "win_retry_s": 60}
HANG_MS = 2_000  # a timed-out call is held this long, past the call timeout, then closed unanswered
SPIN_TIMEOUT_S = 15.0
SETTLE_S = 180.0  # how long the saga may take to close its rounds after the last answer


@dataclass(frozen=True)
class FaultRunPlan:
    spins: int = 2_000
    clients: int = 8
    players_per_game: int = 2  # per client
    restart: tuple[str, ...] = SERVICES  # each SIGKILLed and started again once, midway
    restart_at: float = 0.5  # of the spins answered
    seed: int = 47
    timeout_ppm: int = 50_000
    lost_ppm: int = 50_000
    http_500_ppm: int = 20_000
    deadline_s: float = 1_800.0


@dataclass
class Restart:
    service: str
    signal: str
    at_s: float
    back_s: float | None = None  # from the kill until the new process is ready


@dataclass
class FaultRunReport:
    plan: dict
    started_at: str
    requests: int = 0
    settled: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    client_retries: int = 0
    restarts: list[Restart] = field(default_factory=list)
    faults: dict = field(default_factory=dict)
    wallet_calls: int = 0
    rounds: dict = field(default_factory=dict)
    latency: dict = field(default_factory=dict)
    saga_open: int | None = None
    saga_reported: int | None = None
    unanswered: int | None = None  # requests with no answer on spin.events
    answers_per_request_max: int = 0
    reconciliation: dict = field(default_factory=dict)
    audit: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    duration_s: float = 0.0

    @property
    def passed(self) -> bool:
        audited = self.audit.get("exit") == 0 and self.audit.get("discrepancies") == 0
        reconciled = self.reconciliation.get("exit") == 0 and self.reconciliation.get("differences") == 0
        closed = self.saga_open == 0 and self.saga_reported == 0
        answered = self.unanswered == 0 and self.answers_per_request_max == 1
        restarted = all(restart.back_s is not None for restart in self.restarts)
        asked = self.requests >= self.plan["spins"]  # a run past its deadline stopped asking early
        return not self.problems and audited and reconciled and closed and answered and restarted and asked

    def document(self) -> dict:
        return {**asdict(self), "passed": self.passed}


class Platform:
    """The reference wallet and the services, each in its own process; `restart` SIGKILLs those named and starts them
    anew."""

    def __init__(
        self, env: dict[str, str], log_dir: Path, wallet_argv: tuple[str, ...], services: tuple[str, ...] = SERVICES
    ) -> None:
        self.env, self.log_dir, self.wallet_argv, self.services = env, log_dir, wallet_argv, services
        self.processes: dict[str, ServiceProcess] = {}

    def _spawn(self, name: str) -> ServiceProcess:
        return spawn(name, env={**self.env, "REELSTREAM_INSTANCE_ID": f"{name}-0"}, log_dir=self.log_dir)

    def start(self) -> None:
        wallet = spawn("refwallet", env=self.env, log_dir=self.log_dir, argv=self.wallet_argv)
        self.processes["refwallet"] = wallet
        wallet.wait_for_log(LISTENING, 60)
        for name in self.services:
            self.processes[name] = self._spawn(name)
        for name in self.services:
            self.processes[name].wait_ready(240)

    def restart(self, names: tuple[str, ...], started: float) -> list[Restart]:
        """SIGKILL every one of `names` at once (an outage of them all), start each anew, wait until all are ready."""
        at = time.monotonic()
        for name in names:
            self.processes[name].kill()
        done = [Restart(name, "SIGKILL", round(at - started, 1)) for name in names]
        for name in names:
            self.processes[name] = self._spawn(name)
        for restart in done:
            self.processes[restart.service].wait_ready(240)
            restart.back_s = round(time.monotonic() - at, 1)
        return done

    def stop(self) -> None:
        for process in self.processes.values():
            process.stop()


class Load:
    """Client threads spinning both games for the operator's players until the plan's spins are asked and the
    restarts are done; each request asked again under its id until it is answered."""

    def __init__(self, settings: Settings, plan: FaultRunPlan, ring: str, restarts_done: threading.Event) -> None:
        self.settings, self.plan, self.ring, self.restarts_done = settings, plan, ring, restarts_done
        self.answers: list[Answer] = []
        self.request_ids: list[str] = []
        self.latencies_s: list[float] = []
        self.retries = 0
        self._issued = 0
        self._lock = threading.Lock()

    @property
    def answered(self) -> int:
        return len(self.answers)

    def _take(self) -> bool:
        with self._lock:
            if self._issued >= self.plan.spins and self.restarts_done.is_set():
                return False
            self._issued += 1
            return True

    def run_client(self, index: int, deadline: float) -> None:
        rng = random.Random(self.plan.seed * 1000 + index)
        players = [
            (f"sf-{index}-{game}-{n}", game, currency, rng.choice(stakes))
            for game, currency, stakes in GAMES
            for n in range(self.plan.players_per_game)
        ]
        with ReelstreamClient(
            bootstrap_servers=self.settings.kafka_bootstrap_servers, topic_prefix=self.settings.topic_prefix
        ) as client:
            while time.monotonic() < deadline and self._take():
                self._spin(client, *rng.choice(players), deadline)

    def _spin(self, client, player: str, game: str, currency: str, stake: int, deadline: float) -> None:
        request_id = uuid.uuid4()
        token = issue_token(self.ring, player, int(time.time() * 1000) + 3_600_000, operator_id=OPERATOR)
        with self._lock:
            self.request_ids.append(str(request_id))
        asked = time.monotonic()
        while time.monotonic() < deadline:
            try:
                answer = client.spin(
                    player, game, stake, currency, token, request_id=request_id, timeout_s=SPIN_TIMEOUT_S
                )
            except (SpinTimeout, TimeoutError, KafkaError):
                with self._lock:
                    self.retries += 1
                time.sleep(0.2)
                continue
            settled = isinstance(answer, Settled)
            with self._lock:
                self.latencies_s.append(time.monotonic() - asked)
                self.answers.append(
                    Answer(
                        str(request_id),
                        settled,
                        stake,
                        answer.data.win_minor if settled else 0,
                        "" if settled else answer.code,
                    )
                )
            return


def run(plan: FaultRunPlan, out_dir: Path, echo=print) -> FaultRunReport:
    with sigterm_unwinds():
        return _run(plan, out_dir, echo)


def _run(plan: FaultRunPlan, out_dir: Path, echo) -> FaultRunReport:
    report = FaultRunReport(asdict(plan), datetime.now(timezone.utc).isoformat(timespec="seconds"))
    started = time.monotonic()
    said, echo = echo, lambda text: said(f"[{time.monotonic() - started:6.1f} s] {text}")
    out_dir.mkdir(parents=True, exist_ok=True)
    with seamless_setup("sfaults") as setup:
        faults = ("--seed", str(plan.seed), "--timeout-ppm", str(plan.timeout_ppm), "--lost-ppm", str(plan.lost_ppm))
        faults += ("--http-500-ppm", str(plan.http_500_ppm), "--hang-ms", str(HANG_MS))
        players = [(player, START_MINOR, _currency(player)) for player in _players(plan)]
        platform = Platform(setup.env, setup.work_dir / "logs", setup.wallet_argv(players, faults))
        try:
            echo(f"seamless-faults: starting the reference wallet at {setup.url} and {', '.join(SERVICES)}")
            platform.start()
            load = _load_and_restart(setup.deployment.settings, plan, platform, setup.ring, report, echo)
            _settle_and_check(setup.deployment, plan, load, setup.url, setup.wallet_db, report, echo)
        finally:
            platform.stop()
            _keep_logs(setup.work_dir / "logs", out_dir, report)
            report.duration_s = round(time.monotonic() - started, 1)
            _write(report, out_dir)
    return report


@dataclass(frozen=True)
class SeamlessSetup:
    """A throwaway deployment whose operators file names `LEDGER_OPERATOR` on the ledger and `OPERATOR` seamless on a
    reference wallet at `url` (not started: `wallet_argv` starts it) with its own database; `ring` signs both
    operators' session tokens."""

    deployment: Deployment
    env: dict[str, str]  # what its processes run with
    url: str
    port: int
    wallet_db: str
    work_dir: Path
    ring: str

    def wallet_argv(self, players: list[tuple[str, int, str]], faults: tuple[str, ...]) -> tuple[str, ...]:
        """The reference wallet's arguments: its admin paths, reelstream's public key, `players` (id, balance,
        currency) and the fault switches `faults` (refwallet's flags)."""
        argv = ("-m", "refwallet", "--port", str(self.port), "--database-url", self.wallet_db, "--admin")
        argv += ("--public-key", f"{KEY_ID}={self.work_dir / 'key.pub.pem'}", *faults)
        for player, balance_minor, currency in players:
            argv += ("--player", f"{player}:{balance_minor}:{currency}")
        return argv


@contextlib.contextmanager
def seamless_setup(tag: str, clocks: dict[str, int] = WALLET_CLOCKS) -> Iterator[SeamlessSetup]:
    """Reelstream's signing key, the wallet's database and the operators file (the seamless wallet's `clocks`; {}:
    the operators file's defaults) in a temporary folder, and a fresh deployment under `tag`; all dropped
    afterwards."""
    base = load_settings()
    ring = f"sf@{OPERATOR}:{uuid.uuid4().hex},sfl@{LEDGER_OPERATOR}:{uuid.uuid4().hex},sfa:{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory(prefix=f"{tag}-") as work, _wallet_database(base) as wallet_db:
        work_dir = Path(work)
        signer = Signer.generate(KEY_ID)
        (work_dir / "key.pem").write_bytes(signer.private_pem())
        (work_dir / "key.pub.pem").write_bytes(signer.public_pem())
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = {
            "REELSTREAM_OPERATORS_FILE": str(_operators_file(work_dir, url, clocks)),
            "REELSTREAM_SESSION_KEYS": ring,
            "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
            "REELSTREAM_LOG_LEVEL": "WARNING",
            "REELSTREAM_HTTP_PORT": "0",
        }
        with fresh_deployment(base, tag, env) as deployment:
            yield SeamlessSetup(deployment, {**os.environ, **deployment.env}, url, port, wallet_db, work_dir, ring)


def _load_and_restart(settings, plan: FaultRunPlan, platform: Platform, ring: str, report, echo) -> Load:
    restarts_done = threading.Event()
    load = Load(settings, plan, ring, restarts_done)
    deadline = time.monotonic() + plan.deadline_s
    clients = [
        threading.Thread(target=load.run_client, args=(i, deadline), name=f"sf-client-{i}") for i in range(plan.clients)
    ]
    started = time.monotonic()
    for client in clients:
        client.start()
    restart_after = int(plan.spins * plan.restart_at)
    last_echo = 0
    try:
        while load.answered < restart_after and time.monotonic() < deadline and any(c.is_alive() for c in clients):
            last_echo = _progress(load, plan, last_echo, echo)
            time.sleep(0.5)
        echo(f"seamless-faults: SIGKILL {', '.join(plan.restart)} after {load.answered} answers")
        report.restarts = platform.restart(plan.restart, started)
        echo(f"seamless-faults: back (s): {', '.join(f'{r.service} {r.back_s}' for r in report.restarts)}")
    finally:
        restarts_done.set()
    while any(client.is_alive() for client in clients):
        last_echo = _progress(load, plan, last_echo, echo)
        time.sleep(0.5)
    report.requests, report.client_retries = len(load.request_ids), load.retries
    report.settled = sum(1 for answer in load.answers if answer.settled)
    report.rejected = dict(Counter(answer.code for answer in load.answers if not answer.settled))
    report.latency = {"spins": len(load.latencies_s), **metrics.spread(load.latencies_s, 0.5, 0.99)}
    report.problems += answer_problems(load.request_ids, load.answers)
    return load


def _progress(load: Load, plan: FaultRunPlan, last: int, echo) -> int:
    step = max(1, plan.spins // 10)
    if load.answered // step > last // step:
        echo(f"seamless-faults: {load.answered}/{plan.spins} spins answered")
    return load.answered


def _settle_and_check(deployment, plan: FaultRunPlan, load: Load, url: str, wallet_db: str, report, echo) -> None:
    from reelstream.chaos.history import History
    from reelstream.chaos.run import _count_answers

    settings = deployment.settings
    echo("seamless-faults: waiting for the saga to close every round")
    deadline = time.monotonic() + SETTLE_S
    while True:
        report.saga_open, report.saga_reported = _saga_rounds(settings)
        if report.saga_open == 0 or time.monotonic() > deadline:
            break
        time.sleep(2)
    echo(f"seamless-faults: saga rounds open {report.saga_open}, reported {report.saga_reported}")
    _count_answers(settings, [uuid.UUID(r) for r in load.request_ids], History({}), report)
    accounting = _wallet_faults(url)
    report.wallet_calls = accounting["deliveries"]
    planned = {kind: accounting["plan"][f"{kind}_ppm"] for kind in ("timeout", "lost", "http_500")}
    report.faults = fault_accounting(planned, accounting["deliveries"], accounting["injected"])
    report.problems += accounting_problems(report.faults, accounting["deliveries"])
    rows, balances = asyncio.run(_ledger(wallet_db))
    report.rounds = asdict(round_counts(rows))
    report.problems += ledger_problems(rows, load.answers)
    start = {player: START_MINOR for player in _players(plan)}
    report.problems += balance_problems(start, rows, balances)
    env = {**os.environ, **deployment.env}
    report.reconciliation = _reconciliation(env)
    echo(f"seamless-faults: reconciliation: {report.reconciliation['differences']} differences")
    report.audit = _audit(env)
    echo(f"seamless-faults: audit: {report.audit['discrepancies']} discrepancies")


def _saga_rounds(settings: Settings) -> tuple[int, int]:
    """The saga's rounds still open and those reported (a win given up), folded from wallet.seamless."""
    from services.audit.adapters.topics import read_topics
    from services.seamless_saga.core.evolve import evolve
    from services.seamless_saga.core.state import OPEN_PHASES, Phase, SeamlessBook
    from shared.events import decode_all

    raw, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=("wallet.seamless",))
    books: dict[int, SeamlessBook] = {}
    phases: dict[str, Phase] = {}
    for record in raw:
        book = books.setdefault(record.partition, SeamlessBook(record.partition))
        for event in decode_all(record.value):
            evolve(book, event)
            round_ = book.rounds.get(str(event.data.wager_id))
            if round_ is not None:
                phases[round_.wager_id] = round_.phase
    values = list(phases.values())
    return sum(1 for p in values if p in OPEN_PHASES), sum(1 for p in values if p is Phase.REPORTED)


def _wallet_faults(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/_admin/faults", timeout=10) as answer:
        return json.loads(answer.read())


async def _ledger(database_url: str) -> tuple[list[Row], dict[str, int]]:
    conn = await asyncpg.connect(database_url, timeout=30)
    try:
        rows = await conn.fetch(
            "SELECT transaction_id, kind, player_id, amount_minor, round_id, status, bet_transaction_id, "
            "rolled_back, won FROM refwallet.transactions ORDER BY position"
        )
        players = await conn.fetch("SELECT player_id, balance_minor FROM refwallet.players")
    finally:
        await conn.close()
    found = [
        Row(
            str(r["transaction_id"]),
            r["kind"],
            r["player_id"],
            r["amount_minor"],
            r["round_id"],
            r["status"],
            None if r["bet_transaction_id"] is None else str(r["bet_transaction_id"]),
            r["rolled_back"],
            r["won"],
        )
        for r in rows
    ]
    return found, {p["player_id"]: p["balance_minor"] for p in players}


def _cli(env: dict[str, str], *args: str, timeout_s: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "reelstream.cli", *args], env=env, capture_output=True, text=True, timeout=timeout_s
    )


def _reconciliation(env: dict[str, str]) -> dict:
    done = _cli(env, "reports", "reconciliation", "--operator", OPERATOR, "--format", "json")
    try:
        document = json.loads(done.stdout)
        rows = document["seamless_reconciliation"]
    except (ValueError, KeyError):
        return {"exit": done.returncode, "differences": None, "error": done.stderr[-2000:]}
    # What the operator owes the networks beside the pools' credits: a difference there is why an exit is 1.
    owes = document.get("seamless_contributions", [])
    return {"exit": done.returncode, "differences": len(rows), "first": rows[:20], "contributions": owes}


def _audit(env: dict[str, str], tries: int = 3) -> dict:
    """`reelstream audit --at-rest` until it finds nothing (the projector may be a few records behind at first)."""
    found: dict = {}
    with tempfile.TemporaryDirectory(prefix="seamless-faults-audit-") as out:
        for _ in range(tries):
            done = _cli(env, "audit", "--at-rest", "--out", out, "--no-write-checkpoint")
            try:
                document = json.loads((Path(out) / "audit.json").read_text())
            except (OSError, ValueError):
                return {"exit": done.returncode, "discrepancies": None, "error": done.stderr[-2000:]}
            listed = document.get("discrepancies", [])
            found = {"exit": done.returncode, "discrepancies": len(listed)}
            found |= {"by_check": dict(Counter(d.get("check") for d in listed)), "first": listed[:20]}
            if done.returncode == 0 and not listed:
                return found
            time.sleep(3)
    return found


def _players(plan: FaultRunPlan) -> list[str]:
    return [
        f"sf-{i}-{game}-{n}" for i in range(plan.clients) for game, _, _ in GAMES for n in range(plan.players_per_game)
    ]


def _currency(player: str) -> str:
    return next(currency for game, currency, _ in GAMES if f"-{game}-" in player)


def _operators_file(work_dir: Path, url: str, clocks: dict[str, int]) -> Path:
    wallet = {"url": url, "protocol": "hub88", "key_id": KEY_ID, "private_key_file": str(work_dir / "key.pem")}
    entries = [{"id": LEDGER_OPERATOR}, {"id": OPERATOR, "wallet_mode": "seamless", "wallet": wallet | clocks}]
    path = work_dir / "operators.json"
    path.write_text(json.dumps({"operators": entries}))
    return path


@contextlib.contextmanager
def _wallet_database(base: Settings) -> Iterator[str]:
    """The reference wallet's own database on the platform's PostgreSQL (its URL), dropped afterwards."""
    from deploy.local.postgres import drop_database

    name = f"sfaults_wallet_{uuid.uuid4().hex[:10]}"
    asyncio.run(sql(base.database_url, f'CREATE DATABASE "{name}"'))
    try:
        yield base.database_url.rsplit("/", 1)[0] + "/" + name
    finally:
        asyncio.run(drop_database(base.database_url, name))


def _keep_logs(log_dir: Path, out_dir: Path, report: FaultRunReport) -> None:
    """A failed run keeps its processes' logs beside its result."""
    if report.passed or not log_dir.exists():
        return
    kept = out_dir / "logs"
    kept.mkdir(exist_ok=True)
    for log in log_dir.glob("*.log"):
        (kept / log.name).write_bytes(log.read_bytes()[-200_000:])


def _write(report: FaultRunReport, out_dir: Path) -> None:
    document = report.document()
    (out_dir / "seamless-faults.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    (out_dir / "seamless-faults.md").write_text(markdown(document))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reelstream.chaos.seamless_faults", description=__doc__)
    p.add_argument("--spins", type=int, default=FaultRunPlan.spins)
    p.add_argument("--clients", type=int, default=FaultRunPlan.clients)
    p.add_argument("--restart", default=",".join(SERVICES), help="services SIGKILLed and started again midway")
    p.add_argument("--seed", type=int, default=FaultRunPlan.seed)
    p.add_argument("--out", type=Path, default=Path("docs/results/seamless"))
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    restart = tuple(name for name in args.restart.split(",") if name)
    unknown = set(restart) - set(SERVICES)
    if unknown:
        raise SystemExit(f"--restart: unknown services {sorted(unknown)}; known: {', '.join(SERVICES)}")
    plan = FaultRunPlan(spins=args.spins, clients=args.clients, restart=restart, seed=args.seed)
    report = run(plan, args.out)
    print((args.out / "seamless-faults.md").read_text())
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
