"""`reelstream chaos`: a throwaway platform under load and faults, then the audit — nothing lost, nothing twice
(docs/chaos.md says what is injected and what passes)."""

from __future__ import annotations

import bisect
import json
import os
import random
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kafka.errors import KafkaError

from reelstream.chaos.deployment import fresh_deployment, sigterm_unwinds
from reelstream.chaos.schedule import BROKER_CLEAR_S, KILL_SPACING_S, PG_CLEAR_S, fault_schedule
from reelstream.client import ReelstreamClient, Rejected, Settled, SpinTimeout
from reelstream.processes import ServiceProcess, spawn
from shared import records, signing
from shared.config import Settings, load_settings
from shared.events import decode, encode, envelope
from shared.events.wallet import Withdraw
from shared.kafka import producer
from shared.session import issue_token

SERVICES = ("wallet", "jackpot", "spin", "projector")
GAMES = (("rising-joker", "EUR", (10, 20, 100, 200, 500, 2000)), ("stjernestoev", "DKK", (50, 100, 200)))
Echo = Callable[[str], None]
# The answer gap after a SIGKILL of one service the run must stay within (issue #15).
KILL_GAP_LIMIT_S = 5.0
# A client call failing with a Kafka error (the broker restarting under it) is retried after a pause, this many
# times in a row at most; then the request counts as unanswered.
CLIENT_ERROR_RETRIES = 120
CLIENT_ERROR_PAUSE_S = 0.5
WARM_UP_MAX_S = 300.0  # the faults wait this long at most for the load's first answer
# A replaced service's next warm spare starts this long after the takeover (kills are KILL_SPACING_S apart).
SPARE_DELAY_S = 5.0
# Spares kept per service (else one). The spin's and the wallet's spares keep their books warm, and that warm-up
# (their first restore of every partition: the de-duplication window's images) can outlast KILL_SPACING_S on a loaded
# machine; a second kill before it was done got a cold takeover. The second spare is warm then.
SPARES = {"spin": 2}
CLIENT_TIMEOUT_RETRIES = 40  # of the client's spin timeout each: ten minutes without an answer is a lost request


@dataclass(frozen=True)
class ChaosPlan:
    spins: int = 1000
    kills: int = 5
    clients: int = 4
    players_per_client: int = 4
    concurrency: int = 1  # requests in flight per client (each worker with its own players, one client shared)
    spins_per_s: float = 25.0  # the pace the fault window is sized for (faults are spread over spins / pace)
    load_max_s: float = 0.0  # > 0: no new request after this long (the faults still all land), whatever `spins` says
    seed: int = 7
    broker_restart: bool = True
    postgres_stop_s: float = 10.0
    fuzz: int = 0  # hostile records written over every input topic during the run (reelstream/chaos/fuzz.py)
    deadline_s: float = 1200.0


@dataclass
class Fault:
    kind: str  # "kill <service>" | "broker restart" | "postgres stop"
    at_s: float
    answer_gap_s: float | None = None


@dataclass
class ChaosReport:
    plan: dict
    started_at: str
    requests: int = 0
    settled: int = 0
    rejected: int = 0
    retries: int = 0
    client_errors: int = 0  # Kafka errors a client call raised (retried after a pause)
    deposits: int = 0
    withdrawals: int = 0
    restarts: int = 0
    fuzzed: int = 0
    quarantined: int = 0
    impersonations: int = 0  # hostile records the audit names as claiming a writer they cannot prove
    final_spin: str = ""
    faults: list[Fault] = field(default_factory=list)
    answers_per_request_max: int = 0
    unanswered: int = 0
    discrepancies: list[str] = field(default_factory=list)
    projection: str = ""
    audited: bool = False  # the audit ran to its end (a run stopped before it proves nothing)
    duration_s: float = 0.0
    load_s: float = 0.0  # from the first request to the last answer

    @property
    def passed(self) -> bool:
        final_ok = self.final_spin in ("", "settled")
        answered = self.unanswered == 0 and self.answers_per_request_max == 1
        return self.audited and not self.discrepancies and answered and final_ok

    @property
    def spins_per_s(self) -> float:
        return round((self.settled + self.rejected) / self.load_s, 1) if self.load_s else 0.0

    def gaps(self, kind: str = "kill") -> dict[str, float | None]:
        """p50 and max of the answer gaps after the faults whose kind starts with `kind`."""
        values = [f.answer_gap_s for f in self.faults if f.kind.startswith(kind) and f.answer_gap_s is not None]
        return {
            "p50_s": round(statistics.median(values), 3) if values else None,
            "max_s": max(values) if values else None,
        }

    @property
    def kill_gaps_within_limit(self) -> bool:
        worst = self.gaps("kill")["max_s"]
        return worst is None or worst <= KILL_GAP_LIMIT_S


class Supervisor:
    """Keeps one process per service running: whatever exits (killed, crashed, stopped by a broker outage) is
    replaced at once, as a container runtime or systemd would — by a warm spare that has already imported its
    service (a cold start's imports took seconds on a busy machine), then a new spare is started behind it."""

    def __init__(self, env: dict[str, str], log_dir: Path) -> None:
        self.env, self.log_dir = env, log_dir
        self.processes: dict[str, ServiceProcess] = {}
        self.spares: dict[str, list[ServiceProcess]] = {name: [] for name in SERVICES}  # oldest (warmest) first
        self.restarts = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._watch, name="chaos-supervisor", daemon=True)

    def _spawn(self, name: str, standby: bool = False) -> ServiceProcess:
        # Static membership: a restarted process rejoins under its predecessor's id and gets its partitions back at
        # once, instead of after the group's session timeout.
        env = {**self.env, "REELSTREAM_INSTANCE_ID": f"{name}-0"}
        return spawn(name, env=env, log_dir=self.log_dir, standby=standby)

    def _replacement(self, name: str) -> ServiceProcess:
        """The warm spare, released, or a cold start when it is gone; the next spare starts SPARE_DELAY_S later, so
        its imports and warm-up take no CPU from the takeover (a kill before then gets a cold start)."""
        waiting = self.spares[name]
        while waiting and waiting[0].process.poll() is not None:
            waiting.pop(0)  # a spare that died waiting is no replacement
        spare = waiting.pop(0) if waiting else None
        if spare is not None:
            spare.release()
        else:
            spare = self._spawn(name)
        timer = threading.Timer(SPARE_DELAY_S, self._new_spare, args=(name,))
        timer.daemon = True
        timer.start()
        return spare

    def _new_spare(self, name: str) -> None:
        with self._lock:
            while not self._stop.is_set() and len(self.spares[name]) < SPARES.get(name, 1):
                self.spares[name].append(self._spawn(name, standby=True))

    def start(self) -> None:
        for name in SERVICES:
            self.processes[name] = self._spawn(name)
        for process in self.processes.values():
            process.wait_ready(180)
        for name in SERVICES:
            self._new_spare(name)
        self._thread.start()

    def kill(self, name: str) -> None:
        with self._lock:
            self.processes[name].kill()

    def restart_all(self) -> None:
        """Stop every service cleanly and wait until each is back and ready (each restore meets all that was
        written)."""
        with self._lock:
            for name, process in self.processes.items():
                process.stop()
                self.processes[name] = self._replacement(name)
                self.restarts += 1
            for process in self.processes.values():
                process.wait_ready(300)

    def _watch(self) -> None:
        while not self._stop.wait(0.1):
            with self._lock:
                for name, process in self.processes.items():
                    if process.process.poll() is not None:
                        self.processes[name] = self._replacement(name)
                        self.restarts += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:  # no spare starts after this (_new_spare checks the flag under the lock)
            for process in [*self.processes.values(), *(spare for spares in self.spares.values() for spare in spares)]:
                process.stop()


class Load:
    """Clients spinning until `spins` requests are answered; every answer's time is kept for the answer gaps."""

    def __init__(self, settings: Settings, plan: ChaosPlan, report: ChaosReport, faults_done: threading.Event) -> None:
        self.settings, self.plan, self.report = settings, plan, report
        self.faults_done = faults_done  # spins go on until every fault is injected, however small the run
        self.answered_at: list[float] = []
        self.warmed = threading.Event()  # set at the first answered spin
        self.request_ids: list[uuid.UUID] = []
        self._lock = threading.Lock()
        self._issued = 0
        self._started = time.monotonic()

    def _take(self) -> bool:
        with self._lock:
            over = self.plan.load_max_s > 0 and time.monotonic() - self._started > self.plan.load_max_s
            if (self._issued >= self.plan.spins or over) and self.faults_done.is_set():
                return False
            self._issued += 1
            return True

    def run_client(self, index: int, deadline: float) -> None:
        """One client (one connection, one answer reader) shared by `concurrency` workers with players of their own."""
        with ReelstreamClient(
            bootstrap_servers=self.settings.kafka_bootstrap_servers, topic_prefix=self.settings.topic_prefix
        ) as client:
            workers = [
                threading.Thread(
                    target=self._work, args=(client, index, worker, deadline), name=f"chaos-client-{index}-{worker}"
                )
                for worker in range(self.plan.concurrency)
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()

    def _work(self, client: ReelstreamClient, index: int, worker: int, deadline: float) -> None:
        rng = random.Random(self.plan.seed * 1000 + index * 64 + worker)
        players = [player_name(self.plan, index, worker, n) for n in range(self.plan.players_per_client)]
        games = {player: rng.choice(GAMES) for player in players}
        # One stake per player (Stjernestøv's bonus ring locks it), switched now and then with the ring forfeited.
        stakes = {player: rng.choice(games[player][2]) for player in players}
        cashier = producer(self.settings.kafka_bootstrap_servers, client_id="chaos-cashier")
        try:
            for player in players:
                self._deposit(client, player, games[player][1], 10_000_000, deadline)
            while self._take() and time.monotonic() < deadline:
                player = rng.choice(players)
                game, currency, game_stakes = games[player]
                if rng.random() < 0.03:
                    self._withdraw(cashier, player, currency, rng.randint(1, 500))
                switch = rng.random() < 0.02
                if switch:
                    stakes[player] = rng.choice(game_stakes)
                answer = self._spin_until_answered(client, player, game, stakes[player], currency, deadline, switch)
                if answer is None:
                    with self._lock:
                        self.report.unanswered += 1
        finally:
            cashier.close(5)

    def _retried(self, call: Callable[[], object], deadline: float) -> object | None:
        """`call()` until it answers: a timeout is retried at once (same id: safe), a Kafka error (the broker
        restarting under the client) after a pause, each a bounded number of times; None: given up."""
        errors = timeouts = 0
        while time.monotonic() < deadline and errors <= CLIENT_ERROR_RETRIES and timeouts <= CLIENT_TIMEOUT_RETRIES:
            try:
                return call()
            except (SpinTimeout, TimeoutError):
                timeouts += 1
                with self._lock:
                    self.report.retries += 1
            except KafkaError:
                errors += 1
                with self._lock:
                    self.report.client_errors += 1
                time.sleep(CLIENT_ERROR_PAUSE_S)
        return None

    def _deposit(self, client, player: str, currency: str, amount: int, deadline: float) -> None:
        transaction_id = uuid.uuid4()
        done = self._retried(
            lambda: client.deposit(player, amount, currency, transaction_id=transaction_id, timeout_s=15), deadline
        )
        if done is not None:
            with self._lock:
                self.report.deposits += 1

    def _withdraw(self, cashier, player: str, currency: str, amount: int) -> None:
        """A cashier withdrawal sent without waiting for its outcome (that is the audit's business)."""
        message = envelope(
            Withdraw(transaction_id=uuid.uuid4(), player_id=player, amount_minor=amount, currency=currency),
            source="chaos-cashier",
            time=datetime.now(timezone.utc),
        )
        try:
            value = encode(message)
            headers = records.signed_headers("cashier", "wallet.commands", message.key, value)
            cashier.send(self.settings.topic("wallet.commands"), key=message.key, value=value, headers=headers).get(
                timeout=30
            )
        except KafkaError:  # the broker may be restarting: a withdrawal not sent is not a loss
            with self._lock:
                self.report.client_errors += 1
            return
        with self._lock:
            self.report.withdrawals += 1

    def _spin_until_answered(self, client, player, game, stake, currency, deadline, forfeit=False):
        request_id = uuid.uuid4()
        token = issue_token(self.settings.session_secret, player, int(time.time() * 1000) + 3_600_000)
        with self._lock:
            self.request_ids.append(request_id)
            self.report.requests += 1
        answer = self._retried(
            lambda: client.spin(
                player, game, stake, currency, token, request_id=request_id, timeout_s=15, forfeit_bonus_ring=forfeit
            ),
            deadline,
        )
        if answer is None:
            return None
        self.warmed.set()
        with self._lock:
            self.answered_at.append(time.monotonic())
            if isinstance(answer, Settled):
                self.report.settled += 1
            elif isinstance(answer, Rejected):
                self.report.rejected += 1
        return answer


class Faults:
    """The plan's faults at seeded random moments while the load runs: kills (the supervisor restarts), one broker
    restart, one PostgreSQL stop."""

    def __init__(self, plan: ChaosPlan, supervisor: Supervisor, report: ChaosReport, echo: Echo) -> None:
        self.plan, self.supervisor, self.report, self.echo = plan, supervisor, report, echo
        self.started = time.monotonic()

    def schedule(self) -> list[tuple[float, str]]:
        """Spread over the run's expected length; kills clear of the broker restart, the PostgreSQL stop and each
        other (reelstream/chaos/schedule.py)."""
        plan = self.plan
        window_s = max(20.0, plan.spins / plan.spins_per_s)
        if plan.load_max_s > 0:  # every fault lands inside the bounded load (the window grows if the kills need it)
            window_s = min(window_s, plan.load_max_s - 60)
        return fault_schedule(
            random.Random(plan.seed), SERVICES, plan.kills, window_s, plan.broker_restart, plan.postgres_stop_s
        )

    def run(self, done: threading.Event, warmed: threading.Event) -> None:
        """Once the load answers spins (`warmed`: deposits made, clients connected), inject every fault of the
        schedule, then set `done`. The fault clock starts then: a gap must not count the load's start-up."""
        try:
            warmed.wait(WARM_UP_MAX_S)
            self.started = time.monotonic()
            clear_at = 0.0  # a kill waits for this: the schedule's clearance counted from when a fault ended
            for at_s, kind in self.schedule():
                due = at_s if not kind.startswith("kill ") else max(at_s, clear_at)
                time.sleep(max(0.0, due - (time.monotonic() - self.started)))
                self.report.faults.append(Fault(kind, round(time.monotonic() - self.started, 3)))
                self.echo(f"chaos: {kind} at {time.monotonic() - self.started:.1f} s")
                self._inject(kind)
                clear_at = time.monotonic() - self.started + _clearance_s(kind)
        finally:
            done.set()

    def _inject(self, kind: str) -> None:
        from deploy.local import infra, kafka, postgres
        from deploy.local.paths import default_paths

        if kind.startswith("kill "):
            self.supervisor.kill(kind.split(" ", 1)[1])
        elif kind == "broker restart":
            kafka.down(default_paths(), self.echo)
            kafka.up(default_paths(), infra.current_endpoint(default_paths()), self.echo)  # secured or not, as it was
        else:
            postgres.down(default_paths(), self.echo)
            time.sleep(self.plan.postgres_stop_s)
            postgres.up(default_paths(), infra.postgres_endpoint(), self.echo)


def _clearance_s(kind: str) -> float:
    """How long after a fault ended the next kill waits (a broker restart can take far longer than planned on a busy
    machine: kills that fell due meanwhile would land in a burst inside its recovery)."""
    if kind == "broker restart":
        return BROKER_CLEAR_S
    if kind == "postgres stop":
        return PG_CLEAR_S
    return KILL_SPACING_S


def run_chaos(plan: ChaosPlan, out_dir: Path, echo: Echo = print) -> ChaosReport:
    """The whole run; the platform's topics and database are dropped afterwards, the report kept."""
    with sigterm_unwinds():
        return _run(plan, out_dir, echo)


def _run(plan: ChaosPlan, out_dir: Path, echo: Echo) -> ChaosReport:
    base = load_settings()
    _check_owned_servers(plan, base)
    report = ChaosReport(plan=asdict(plan), started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    started = time.monotonic()
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        # the services log warnings and alerts only; REELSTREAM_CHAOS_LOG_LEVEL=INFO shows their restore timings too
        "REELSTREAM_LOG_LEVEL": os.environ.get("REELSTREAM_CHAOS_LOG_LEVEL", "WARNING"),
    }
    with fresh_deployment(base, "chaos", env) as deployment:
        settings = deployment.settings
        supervisor = Supervisor({**os.environ, **deployment.env}, out_dir / "logs")
        try:
            supervisor.start()
            _load_with_faults(settings, plan, supervisor, report, echo)
            if plan.fuzz:
                echo("chaos: restarting every service, then one normal spin")
                supervisor.restart_all()
                report.final_spin = _normal_spin(settings)
            report.restarts = supervisor.restarts
            _check(settings, report, echo, deadline=time.monotonic() + 300)
        finally:
            supervisor.stop()
            report.duration_s = round(time.monotonic() - started, 1)
            _write_report(report, out_dir)
    return report


def _check_owned_servers(plan: ChaosPlan, base: Settings) -> None:
    """The run restarts the broker and stops PostgreSQL of this checkout's state directory: refuse unless those are
    the very servers the settings point at (else it would stop servers other people use, or the wrong ones)."""
    from deploy.local import infra, kafka, postgres
    from deploy.local.paths import default_paths

    paths = default_paths()
    if plan.broker_restart:
        ours = infra.current_endpoint(paths).bootstrap
        if kafka.running_pid(paths) is None or ours != base.kafka_bootstrap_servers:
            raise RuntimeError(
                f"the run restarts the broker, but the broker at {base.kafka_bootstrap_servers} is not the one "
                f"{paths.state} started ({ours}, pid {kafka.running_pid(paths)}): start your own with "
                "REELSTREAM_STATE_DIR, REELSTREAM_KAFKA_PORT and REELSTREAM_POSTGRES_PORT (docs/chaos.md), "
                "or pass --no-broker-restart"
            )
    if plan.postgres_stop_s > 0:
        ours = infra.postgres_endpoint().parts.port
        if postgres.running_pid(paths) is None or f":{ours}/" not in base.database_url:
            raise RuntimeError(
                f"the run stops PostgreSQL, but {paths.state} did not start the one at {base.database_url} "
                "(see docs/chaos.md), or pass --postgres-stop-s 0"
            )


def _load_with_faults(
    settings: Settings, plan: ChaosPlan, supervisor: Supervisor, report: ChaosReport, echo: Echo
) -> None:
    done = threading.Event()
    load, faults = Load(settings, plan, report, done), Faults(plan, supervisor, report, echo)
    deadline = time.monotonic() + max(plan.deadline_s, plan.spins / 5)  # a long run gets its time
    injector = threading.Thread(target=faults.run, args=(done, load.warmed), name="chaos-faults", daemon=True)
    clients = [
        threading.Thread(target=load.run_client, args=(index, deadline), name=f"chaos-client-{index}")
        for index in range(plan.clients)
    ]
    targets = tuple(player_name(plan, index, 0, 0) for index in range(min(plan.clients, 4)))
    fuzzer = threading.Thread(target=_fuzz, args=(settings, plan, report, targets), name="chaos-fuzz", daemon=True)
    injector.start()
    fuzzer.start()
    for client in clients:
        client.start()
    for client in clients:
        client.join()
    injector.join(timeout=120)
    fuzzer.join(timeout=300)
    answered = sorted(at - faults.started for at in load.answered_at)
    report.load_s = round(answered[-1] - answered[0], 1) if answered else 0.0
    for fault in report.faults:
        first = bisect.bisect_right(answered, fault.at_s)
        fault.answer_gap_s = round(answered[first] - fault.at_s, 3) if first < len(answered) else None
    _count_answers(settings, load.request_ids, report)


def player_name(plan: ChaosPlan, client: int, worker: int, n: int) -> str:
    tag = f"{client}" if plan.concurrency == 1 else f"{client}w{worker}"
    return f"chaos-{tag}-{n}"


def _fuzz(settings: Settings, plan: ChaosPlan, report: ChaosReport, players: tuple[str, ...]) -> None:
    """`plan.fuzz` hostile records drawn from the run's seed (reelstream/chaos/fuzz.py) over every input topic,
    written while the load runs in batches of at most 500, each as its topic's least privileged principal."""
    if plan.fuzz <= 0:
        return
    from reelstream.chaos.campaign import BATCH_MAX, batches, draw_records
    from reelstream.chaos.writers import HostileWriter

    # The load's own players: their books and balances meet the records.
    items = draw_records(plan.seed, plan.fuzz, datetime.now(timezone.utc), signing.sign_one, players)
    with HostileWriter(settings.kafka_bootstrap_servers, settings.topic) as writer:
        for span in batches(len(items), BATCH_MAX):
            report.fuzzed += len(writer.write(items[span.start : span.stop]).taken)


def _normal_spin(settings: Settings) -> str:
    """After every service restarted: a normal spin must still settle."""
    player = "chaos-0-0"
    token = issue_token(settings.session_secret, player, int(time.time() * 1000) + 3_600_000)
    with ReelstreamClient(
        bootstrap_servers=settings.kafka_bootstrap_servers, topic_prefix=settings.topic_prefix
    ) as client:
        client.deposit(player, 1_000, "EUR", timeout_s=60)
        request_id = uuid.uuid4()  # one request, asked again with its id (a new id would be SPIN_IN_PROGRESS)
        for _ in range(8):
            try:
                answer = client.spin(player, "rising-joker", 10, "EUR", token, request_id=request_id, timeout_s=30)
            except SpinTimeout:
                continue
            return "settled" if isinstance(answer, Settled) else f"rejected {answer.code}"
    return "unanswered"


def _count_answers(settings: Settings, request_ids: list[uuid.UUID], report: ChaosReport) -> None:
    """Distinct answer event ids per request on spin.events (a byte-identical redelivery is the same id)."""
    from services.audit.adapters.topics import read_topics
    from services.spin.core.evolve import PER_RECORD_CODES
    from shared.events.spin import SpinRejected, SpinSettled

    raw, _ = read_topics(settings.kafka_bootstrap_servers, settings.topic_prefix, topics=("spin.events",))
    answers: dict[uuid.UUID, set[uuid.UUID]] = {request_id: set() for request_id in request_ids}
    for record in raw:
        if records.provenance_problem("spin.events", record.headers, record.value, record.key) is not None:
            continue
        event = decode(record.value)
        data = event.data
        if isinstance(data, SpinSettled) or (isinstance(data, SpinRejected) and data.code not in PER_RECORD_CODES):
            if data.request_id in answers:
                answers[data.request_id].add(event.id)
    report.answers_per_request_max = max((len(ids) for ids in answers.values()), default=0)
    report.unanswered += sum(1 for ids in answers.values() if not ids)


def _check(settings: Settings, report: ChaosReport, echo: Echo, deadline: float) -> None:
    """The audit, once the projector has caught up (it may be a few records behind just after the load)."""
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope
    from services.audit.core.trust import CHECK as UNTRUSTED

    while True:
        run = audit_platform(settings, Scope())
        # The audit names each hostile record that claims a writer it cannot prove: the trust boundary at work.
        report.discrepancies = [str(item) for item in run.discrepancies if item.check != UNTRUSTED]
        report.impersonations = len(run.discrepancies) - len(report.discrepancies)
        report.projection = run.projection
        report.quarantined = len(run.result.facts.quarantined)
        report.audited = True
        if not report.discrepancies or time.monotonic() > deadline:
            return
        echo(f"chaos: audit found {len(report.discrepancies)} discrepancies ({run.projection}); again in 5 s")
        time.sleep(5)


def _write_report(report: ChaosReport, out_dir: Path) -> None:
    gaps = report.gaps("kill")
    document = {
        **asdict(report),
        "passed": report.passed,
        "spins_per_s": report.spins_per_s,
        "kill_answer_gap": gaps,
        "kill_gap_limit_s": KILL_GAP_LIMIT_S,
        "kill_gaps_within_limit": report.kill_gaps_within_limit,
        "broker_restart_answer_gap": report.gaps("broker restart"),
        "postgres_stop_answer_gap": report.gaps("postgres stop"),
    }
    (out_dir / "chaos.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    lines = [
        f"# Chaos run, {report.started_at}",
        "",
        f"**{_verdict(report)}** in {report.duration_s} s",
        "",
        "| what | count |",
        "|---|---:|",
        *(
            f"| {name} | {value} |"
            for name, value in (
                ("spin requests", report.requests),
                ("settled", report.settled),
                ("rejected", report.rejected),
                ("retries after a timeout", report.retries),
                ("client calls failed by a Kafka error (retried)", report.client_errors),
                ("deposits", report.deposits),
                ("withdrawals", report.withdrawals),
                ("faults injected", len(report.faults)),
                ("service restarts by the supervisor", report.restarts),
                ("hostile records written", report.fuzzed),
                ("records the audit set aside as untrusted", report.quarantined),
                ("records the audit names as impersonations", report.impersonations),
                ("requests without an answer", report.unanswered),
                ("most distinct answers of one request", report.answers_per_request_max),
                ("audit discrepancies", len(report.discrepancies)),
            )
        ),
        "",
        f"Load: {report.load_s} s, {report.spins_per_s} answered spins/s.",
        "",
        f"Answer gap after a kill of one service: p50 {gaps['p50_s']} s, max {gaps['max_s']} s "
        f"({'within' if report.kill_gaps_within_limit else 'NOT within'} the {KILL_GAP_LIMIT_S:.0f} s limit). "
        f"After the broker restart: {report.gaps('broker restart')['max_s']} s; after the PostgreSQL stop: "
        f"{report.gaps('postgres stop')['max_s']} s (measured apart: kills are scheduled clear of both).",
        "",
        "| fault | at (s) | answer gap (s) |",
        "|---|---:|---:|",
        *(f"| {fault.kind} | {fault.at_s} | {fault.answer_gap_s} |" for fault in report.faults),
        "",
        f"Projection: {report.projection}.",
        f"Normal spin after restarting every service: {report.final_spin or 'not asked (no fuzz)'}.",
        "",
    ]
    lines += [f"- {item}" for item in report.discrepancies[:50]]
    (out_dir / "chaos.md").write_text("\n".join(lines) + "\n")


def _verdict(report: ChaosReport) -> str:
    """The report's headline: a loss fails the run; with nothing lost, a missed kill-gap limit is said as much."""
    if not report.passed:
        return "FAILED"
    return "PASSED" if report.kill_gaps_within_limit else "NOTHING LOST, KILL-GAP LIMIT MISSED"
