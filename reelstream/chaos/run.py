"""`reelstream chaos`: a throwaway platform under load and faults, then the audit — nothing lost, nothing twice
(docs/chaos.md says what is injected and what passes)."""

from __future__ import annotations

import importlib
import json
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from kafka.errors import KafkaError

from reelstream.chaos import metrics
from reelstream.chaos.deployment import fresh_deployment, sigterm_unwinds
from reelstream.chaos.history import History, Operation, answered
from reelstream.chaos.schedule import BROKER_CLEAR_S, KILL_SPACING_S, PG_CLEAR_S, fault_schedule
from reelstream.chaos.takeover import Committed, Prober, measure
from reelstream.client import ReelstreamClient, Rejected, Settled, SpinTimeout
from reelstream.processes import ServiceProcess, spawn, stop_all
from shared import records, signing
from shared.config import Settings, load_settings
from shared.events import decode, encode, envelope
from shared.events.wallet import (
    CommandRejected,
    Deposit,
    Deposited,
    WagerDebited,
    WagerRefunded,
    WagerSettled,
    Withdraw,
    Withdrawn,
)
from shared.kafka import producer
from shared.session import issue_token

SERVICES = ("wallet", "jackpot", "spin", "projector")
GAMES = (("rising-joker", "EUR", (10, 20, 100, 200, 500, 2000)), ("stjernestoev", "DKK", (50, 100, 200)))
Echo = Callable[[str], None]
# The checked players (reelstream/chaos/history.py): one game and stake each (a stake change would credit a
# remainder no client asked for), operations from every worker, amounts that make refusals for funds common.
CHECKED_GAME, CHECKED_CURRENCY, CHECKED_STAKE_MINOR = "rising-joker", "EUR", 20
CHECKED_DEPOSIT_MINOR = (100, 1_500)
CHECKED_WITHDRAW_MINOR = (50, 1_500)
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
SPARES = {"spin": 2, "wallet": 2}
# Snapshots often enough that a cold restart folds a bounded tail (the services' defaults, ten minutes or 20,000
# records, would let a cold restore late in a run fold most of it).
SNAPSHOTS_EVERY_S = 30
CHAOS_SNAPSHOTS = {
    "REELSTREAM_WALLET_SNAPSHOT_SECONDS": str(SNAPSHOTS_EVERY_S),
    "REELSTREAM_SPIN_SNAPSHOT_SECONDS": str(SNAPSHOTS_EVERY_S),
    "REELSTREAM_JACKPOT_SNAPSHOT_EVENTS": "1000",
}
# How often the supervisor looks for an exited process: its share of every takeover (a kubelet's is its own).
WATCH_S = 0.02
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
    checked_players: int = 4  # players every worker operates on concurrently; their history is checked
    checked_share: float = 0.2  # of the load's operations, on a checked player
    standbys: bool = True  # warm spares take over a killed service; else a cold start under the same instance id


def checked_players(plan: ChaosPlan) -> tuple[str, ...]:
    return tuple(f"chaos-checked-{n}" for n in range(plan.checked_players))


@dataclass
class Fault:
    """One injected fault and what it cost (docs/chaos.md, "What a fault is measured by")."""

    kind: str  # "kill <service>" | "broker restart" | "postgres stop"
    at_s: float
    takeover_s: float | None = None  # kills only
    takeover_partitions: int = 0
    takeover_resolution_s: float | None = None  # kills only: the longest time between the watch's looks
    recovery_s: float | None = None
    in_flight: int = 0  # requests invoked before the fault and answered after it
    in_flight_p99_s: float | None = None
    replaced_by: str | None = None  # kills only: "warm spare" or "cold start"


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
    unanswered: int = 0  # requests with no answer on spin.events (cashier ones: on wallet.events) after the run
    gave_up: int = 0  # client calls given up (their answers may still have come: `unanswered` tells)
    # Each call given up: what it was, when it started, how it failed, the client's answer reader then, and whether
    # its answer is on the topics after the run.
    given_up: list[dict] = field(default_factory=list)
    client_read_errors: int = 0  # polls of the clients' answer readers that failed and were tried again
    open_wagers: int | None = None  # debited, neither settled nor refunded, at the end (None: not audited)
    linearizable: bool | None = None  # the checked players' histories (None: not checked)
    checked_operations: int = 0
    history: dict = field(default_factory=dict)
    latency: dict = field(default_factory=dict)
    standbys: dict = field(default_factory=dict)
    discrepancies: list[str] = field(default_factory=list)
    projection: str = ""
    audited: bool = False  # the audit ran to its end (a run stopped before it proves nothing)
    duration_s: float = 0.0
    load_s: float = 0.0  # from the first request to the last answer
    faults_planned: int = 0  # the schedule's faults: fewer injected fails the run
    faults_error: str = ""  # what stopped the injection before the schedule's end

    @property
    def passed(self) -> bool:
        final_ok = self.final_spin in ("", "settled")
        answered = self.unanswered == 0 and self.answers_per_request_max == 1
        money_ok = self.audited and not self.discrepancies and self.open_wagers == 0
        return money_ok and answered and final_ok and self.linearizable is True and not self.unmeasured

    @property
    def unmeasured(self) -> list[str]:
        """Faults not taken over (kills) or not recovered from within the watch: each fails the run."""
        missing = [f"{f.kind} at {f.at_s} s: no takeover" for f in self.kills() if f.takeover_s is None]
        missing += [f"{f.kind} at {f.at_s} s: no recovery" for f in self.faults if f.recovery_s is None]
        if len(self.faults) < self.faults_planned:
            stopped = f": {self.faults_error}" if self.faults_error else ""
            missing.append(f"{len(self.faults)} of {self.faults_planned} faults injected{stopped}")
        return missing

    def kills(self) -> list[Fault]:
        return [fault for fault in self.faults if fault.kind.startswith("kill ")]

    @property
    def spins_per_s(self) -> float:
        return round((self.settled + self.rejected) / self.load_s, 1) if self.load_s else 0.0

    @property
    def takeover(self) -> dict[str, float | None]:
        return metrics.spread((f.takeover_s for f in self.kills()), 0.5)

    @property
    def recovery(self) -> dict[str, float | None]:
        return metrics.spread((f.recovery_s for f in self.kills()), 0.5, 0.99)


def spares_kept(plan: ChaosPlan) -> dict[str, int]:
    """Warm spares kept per service: SPARES (else one), or none when the plan runs without standbys."""
    return {name: SPARES.get(name, 1) for name in SERVICES} if plan.standbys else {name: 0 for name in SERVICES}


def keeping_state(names: tuple[str, ...]) -> list[str]:
    """The services whose spare keeps its state warm while it waits (its app has a `spare`: reelstream/commands/
    services.py); the others' spares have only imported their service."""
    return [name for name in names if hasattr(importlib.import_module(f"services.{name}.app"), "spare")]


class Supervisor:
    """Keeps one process per service running: whatever exits (killed, crashed, stopped by a broker outage) is
    replaced at once, as a container runtime or systemd would — by a warm spare that has already imported its
    service (a cold start's imports took seconds on a busy machine), then a new spare is started behind it."""

    def __init__(self, env: dict[str, str], log_dir: Path, spares: dict[str, int]) -> None:
        self.env, self.log_dir = env, log_dir
        self.kept = spares  # spares kept per service (none: every replacement is a cold start)
        self.processes: dict[str, ServiceProcess] = {}
        self.spares: dict[str, list[ServiceProcess]] = {name: [] for name in SERVICES}  # oldest (warmest) first
        self.restarts = 0
        self.replaced_by: dict[str, str] = {}  # each service's last replacement: "warm spare" or "cold start"
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
            self.replaced_by[name] = "warm spare"
        else:
            spare = self._spawn(name)
            self.replaced_by[name] = "cold start"
        timer = threading.Timer(SPARE_DELAY_S, self._new_spare, args=(name,))
        timer.daemon = True
        timer.start()
        return spare

    def _new_spare(self, name: str) -> None:
        with self._lock:
            while not self._stop.is_set() and len(self.spares[name]) < self.kept.get(name, 0):
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
            self.replaced_by.pop(name, None)
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
        while not self._stop.wait(WATCH_S):
            with self._lock:
                for name, process in self.processes.items():
                    if process.process.poll() is not None:
                        self.processes[name] = self._replacement(name)
                        self.restarts += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with self._lock:  # no spare starts after this (_new_spare checks the flag under the lock)
            stop_all([*self.processes.values(), *(spare for spares in self.spares.values() for spare in spares)])


class Load:
    """Clients spinning until `spins` requests are answered, each request's invocation and answer times kept; every
    worker also operates on the checked players (spins, deposits, withdrawals), recorded in the history."""

    def __init__(self, settings: Settings, plan: ChaosPlan, report: ChaosReport, faults_done: threading.Event) -> None:
        self.settings, self.plan, self.report = settings, plan, report
        self.faults_done = faults_done  # spins go on until every fault is injected, however small the run
        self.timings: list[tuple[float, float | None]] = []  # (invoked, answered) monotonic, every load spin
        self.warmed = threading.Event()  # set at the first answered spin
        self.request_ids: list[uuid.UUID] = []
        self.history = History({player: CHECKED_CURRENCY for player in checked_players(plan)})
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
            with self._lock:
                self.report.client_read_errors += client.read_errors

    def _work(self, client: ReelstreamClient, index: int, worker: int, deadline: float) -> None:
        rng = random.Random(self.plan.seed * 1000 + index * 64 + worker)
        players = [player_name(self.plan, index, worker, n) for n in range(self.plan.players_per_client)]
        games = {player: rng.choice(GAMES) for player in players}
        # One stake per player (Stjernestøv's bonus ring locks it), switched now and then with the ring forfeited.
        stakes = {player: rng.choice(games[player][2]) for player in players}
        cashier = producer(self.settings.kafka_bootstrap_servers, client_id="chaos-cashier")
        checked = checked_players(self.plan)
        history_client = index * self.plan.concurrency + worker
        try:
            for player in players:
                self._deposit(client, player, games[player][1], 10_000_000, deadline)
            while self._take() and time.monotonic() < deadline:
                if checked and rng.random() < self.plan.checked_share:
                    self._checked(client, history_client, rng.choice(checked), rng, deadline)
                    continue
                player = rng.choice(players)
                game, currency, game_stakes = games[player]
                if rng.random() < 0.03:
                    self._withdraw(cashier, player, currency, rng.randint(1, 500))
                switch = rng.random() < 0.02
                if switch:
                    stakes[player] = rng.choice(game_stakes)
                self._spin_until_answered(client, player, game, stakes[player], currency, deadline, switch)
        finally:
            cashier.close(5)

    def _checked(self, client, history_client: int, player: str, rng: random.Random, deadline: float) -> None:
        """One operation on a checked player, recorded with what it was answered: a spin (six in ten), a deposit or a
        withdrawal whose outcome is read back."""
        draw = rng.random()
        if draw < 0.6:
            operation = self.history.invoke(
                history_client, player, "spin", uuid.uuid4(), stake_minor=CHECKED_STAKE_MINOR
            )
            answer = self._spin_until_answered(
                client,
                player,
                CHECKED_GAME,
                CHECKED_STAKE_MINOR,
                CHECKED_CURRENCY,
                deadline,
                request_id=uuid.UUID(operation.id),
            )
        else:
            kind, (low, high) = (
                ("deposit", CHECKED_DEPOSIT_MINOR) if draw < 0.8 else ("withdraw", CHECKED_WITHDRAW_MINOR)
            )
            operation = self.history.invoke(
                history_client, player, kind, uuid.uuid4(), amount_minor=rng.randint(low, high)
            )
            call = client.deposit if kind == "deposit" else client.withdraw
            transaction_id = uuid.UUID(operation.id)
            answer = self._retried(
                lambda: call(
                    player, operation.amount_minor, CHECKED_CURRENCY, transaction_id=transaction_id, timeout_s=15
                ),
                deadline,
                client,
                kind,
                transaction_id,
            )
        with self._lock:
            self.report.checked_operations += 1
        if answer is not None:
            self.history.complete(operation, answer)

    def _retried(
        self, call: Callable[[], object], deadline: float, client: ReelstreamClient, kind: str, call_id: uuid.UUID
    ) -> object | None:
        """`call()` until it answers: a timeout is retried at once (same id: safe), a Kafka error (the broker
        restarting under the client) after a pause, each a bounded number of times, none once the client's answer
        reader has stopped; None: given up (counted and described)."""
        errors = timeouts = 0
        started = time.monotonic()
        while (
            time.monotonic() < deadline
            and errors <= CLIENT_ERROR_RETRIES
            and timeouts <= CLIENT_TIMEOUT_RETRIES
            and client.reading
        ):
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
        given_up = {
            "kind": kind,
            "id": str(call_id),
            "started_mono": started,  # on the fault clock once the load is done (run())
            "given_up_after_s": round(time.monotonic() - started, 1),
            "timeouts": timeouts,
            "kafka_errors": errors,
            "reader": "reading" if client.reading else f"stopped: {client.reader_error}",
            "reader_poll_errors": client.read_errors,
            "last_reader_poll_error": client.last_read_error,
        }
        with self._lock:
            self.report.gave_up += 1
            self.report.given_up.append(given_up)
        return None

    def _deposit(self, client, player: str, currency: str, amount: int, deadline: float) -> None:
        transaction_id = uuid.uuid4()
        done = self._retried(
            lambda: client.deposit(player, amount, currency, transaction_id=transaction_id, timeout_s=15),
            deadline,
            client,
            "deposit",
            transaction_id,
        )
        if done is not None:
            with self._lock:
                self.report.deposits += 1

    def _withdraw(self, cashier, player: str, currency: str, amount: int) -> None:
        """A cashier withdrawal sent without waiting for its outcome (that is the audit's business; the checked
        players' withdrawals are read back)."""
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

    def _spin_until_answered(
        self, client, player, game, stake, currency, deadline, forfeit=False, request_id: uuid.UUID | None = None
    ):
        request_id = request_id or uuid.uuid4()
        token = issue_token(self.settings.session_secret, player, int(time.time() * 1000) + 3_600_000)
        with self._lock:
            self.request_ids.append(request_id)
            self.report.requests += 1
        invoked = time.monotonic()
        answer = self._retried(
            lambda: client.spin(
                player, game, stake, currency, token, request_id=request_id, timeout_s=15, forfeit_bonus_ring=forfeit
            ),
            deadline,
            client,
            "spin",
            request_id,
        )
        with self._lock:
            self.timings.append((invoked, None if answer is None else time.monotonic()))
        if answer is None:
            return None
        self.warmed.set()
        with self._lock:
            if isinstance(answer, Settled):
                self.report.settled += 1
            elif isinstance(answer, Rejected):
                self.report.rejected += 1
        return answer


class Faults:
    """The plan's faults at seeded random moments while the load runs: kills (the supervisor restarts), one broker
    restart, one PostgreSQL stop."""

    def __init__(
        self, settings: Settings, plan: ChaosPlan, supervisor: Supervisor, report: ChaosReport, echo: Echo
    ) -> None:
        self.settings, self.plan, self.supervisor, self.report, self.echo = settings, plan, supervisor, report, echo
        self.started = time.monotonic()
        self.probe_request_ids: list[uuid.UUID] = []

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
        prober = None
        schedule = self.schedule()
        self.report.faults_planned = len(schedule)
        try:
            warmed.wait(WARM_UP_MAX_S)
            prober = Prober(self.settings)
            self.started = time.monotonic()
            clear_at = 0.0  # a kill waits for this: the schedule's clearance counted from when a fault ended
            for at_s, kind in schedule:
                due = at_s if not kind.startswith("kill ") else max(at_s, clear_at)
                time.sleep(max(0.0, due - (time.monotonic() - self.started)))
                self._fault(kind, prober)
                clear_at = time.monotonic() - self.started + _clearance_s(kind)
        except Exception as error:
            self.report.faults_error = f"{type(error).__name__}: {error}"[:300]
            raise
        finally:
            done.set()
            if prober is not None:
                prober.close()

    def _fault(self, kind: str, prober: Prober) -> None:
        """Inject it, then measure it: for a kill, the group's positions were connected to before (their reading
        right after the kill is the takeover's start)."""
        killed = kind.split(" ", 1)[1] if kind.startswith("kill ") else None
        committed = Committed(self.settings, killed) if killed else None
        try:
            if committed is not None:
                committed.before_kill()
            at = time.monotonic()
            fault = Fault(kind, round(at - self.started, 3))
            self.report.faults.append(fault)
            self.echo(f"chaos: {kind} at {fault.at_s:.1f} s")
            self._inject(kind)
            measured = measure(prober, at, committed)
        finally:
            if committed is not None:
                committed.close()
        fault.takeover_s, fault.takeover_partitions = measured.takeover_s, measured.takeover_partitions
        fault.takeover_resolution_s = measured.takeover_resolution_s
        fault.recovery_s = measured.recovery_s
        fault.replaced_by = self.supervisor.replaced_by.get(killed) if killed else None
        self.probe_request_ids += measured.probe_request_ids
        self.echo(f"chaos: {kind}: takeover {fault.takeover_s} s, recovery {fault.recovery_s} s")

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
        **CHAOS_SNAPSHOTS,
    }
    with fresh_deployment(base, "chaos", env) as deployment:
        settings = deployment.settings
        spares = spares_kept(plan)
        supervisor = Supervisor({**os.environ, **deployment.env}, out_dir / "logs", spares)
        try:
            supervisor.start()
            report.standbys = {
                "spares_per_service": spares,
                "warm_state": keeping_state(SERVICES) if plan.standbys else [],
            }
            history = _load_with_faults(settings, plan, supervisor, report, echo)
            if plan.fuzz:
                echo("chaos: restarting every service, then one normal spin")
                supervisor.restart_all()
                report.final_spin = _normal_spin(settings)
            report.restarts = supervisor.restarts
            _check(settings, report, echo, deadline=time.monotonic() + 300)
            _check_history(history, report, out_dir, echo)
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
) -> History:
    done = threading.Event()
    load, faults = Load(settings, plan, report, done), Faults(settings, plan, supervisor, report, echo)
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
    timings = [(at - faults.started, None if done is None else done - faults.started) for at, done in load.timings]
    for call in report.given_up:
        call["started_s"] = round(call.pop("started_mono") - faults.started, 1)
    answered = sorted(done for _, done in timings if done is not None)
    report.load_s = round(answered[-1] - answered[0], 1) if answered else 0.0
    _in_flight(report, timings)
    standbys = [fault.replaced_by for fault in report.kills()]
    report.standbys.update(
        ran=any(kind == "warm spare" for kind in standbys),
        kills_taken_over_by_warm_spare=standbys.count("warm spare"),
        kills_taken_over_by_cold_start=standbys.count("cold start"),
    )
    on_topics = _count_answers(settings, load.request_ids + faults.probe_request_ids, load.history, report)
    for call in report.given_up:
        call["answer_on_topics"] = call["id"] in on_topics
    return load.history


def _in_flight(report: ChaosReport, timings: list[metrics.Timing]) -> None:
    """Per fault, the requests in flight across it and their p99; over the run, those across any fault and those
    clear of every fault's window (its start to the schedule's clearance after it: the fault-free p99)."""
    across: list[float] = []
    for fault in report.faults:
        latencies = metrics.in_flight(timings, fault.at_s)
        fault.in_flight, fault.in_flight_p99_s = len(latencies), metrics.percentile(latencies, 0.99)
        across += latencies
    windows = [(fault.at_s, fault.at_s + _window_s(fault.kind, report)) for fault in report.faults]
    clear = metrics.clear_of(timings, windows)
    report.latency = {
        "in_flight_across_faults": {"requests": len(across), **metrics.spread(across, 0.5, 0.99)},
        "fault_free": {"requests": len(clear), **metrics.spread(clear, 0.5, 0.99)},
    }


def _window_s(kind: str, report: ChaosReport) -> float:
    stopped_s = float(report.plan.get("postgres_stop_s", 0.0)) if kind == "postgres stop" else 0.0
    return stopped_s + _clearance_s(kind)


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


def _count_answers(settings: Settings, request_ids: list[uuid.UUID], history: History, report: ChaosReport) -> set[str]:
    """Distinct answer event ids per request on spin.events (a byte-identical redelivery is the same id); the
    checked players' operations no client heard answered, as the topics answer them; which checked spins were
    debited and settled in two wallet transactions. Returns the request and transaction ids answered on the topics."""
    from services.audit.adapters.topics import read_topics
    from services.spin.core.evolve import PER_RECORD_CODES
    from shared.events.spin import SpinRejected, SpinSettled

    raw, _ = read_topics(
        settings.kafka_bootstrap_servers, settings.topic_prefix, topics=("spin.events", "wallet.events")
    )
    answers: dict[uuid.UUID, set[uuid.UUID]] = {request_id: set() for request_id in request_ids}
    answer_of: dict[str, object] = {}  # request or transaction id -> an answer's data
    wager_offsets: dict[str, dict[str, tuple[int, int]]] = {}  # wager id -> kind -> (partition, offset)
    for record in raw:
        if records.provenance_problem(record.topic, record.headers, record.value, record.key) is not None:
            continue
        event = decode(record.value)
        data = event.data
        if isinstance(data, SpinSettled) or (isinstance(data, SpinRejected) and data.code not in PER_RECORD_CODES):
            if data.request_id in answers:
                answers[data.request_id].add(event.id)
            answer_of.setdefault(str(data.request_id), data)
        elif isinstance(data, (Deposited, Withdrawn)) or (
            isinstance(data, CommandRejected) and data.command_type in (Deposit.TYPE, Withdraw.TYPE)
        ):
            answer_of.setdefault(str(data.transaction_id), data)
        elif isinstance(data, (WagerDebited, WagerSettled, WagerRefunded)):
            wager = str(getattr(data, "wager_id", None) or data.transaction_id)
            wager_offsets.setdefault(wager, {})[type(data).__name__] = (record.partition, record.offset)
    report.answers_per_request_max = max((len(ids) for ids in answers.values()), default=0)
    report.unanswered = sum(1 for ids in answers.values() if not ids)
    for operation in history.operations:
        if operation.outcome == "unknown" and operation.id in answer_of:
            answered(operation, answer_of[operation.id])  # its completion stays open: after everything else
        elif operation.outcome == "unknown" and operation.kind != "spin":
            report.unanswered += 1  # a spin's is counted above
        if operation.kind == "spin":
            _mark_split(operation, wager_offsets.get(operation.id, {}))
    return set(answer_of)


def _mark_split(operation: Operation, offsets: dict[str, tuple[int, int]]) -> None:
    """A checked spin debited and settled in two wallet transactions (a jackpot claim waits between them) is checked
    as two steps; one debited and then refunded, as a debit and a credit of its stake. The two events of one
    PlaceWager are adjacent on the player's partition, with no commit marker between them."""
    debited, settled = offsets.get("WagerDebited"), offsets.get("WagerSettled")
    if "WagerRefunded" in offsets and debited is not None:
        operation.outcome, operation.code, operation.split = "done", "", True
        operation.win_minor, operation.balance_after_minor = operation.stake_minor, None
    elif debited is not None and settled is not None:
        operation.split = settled != (debited[0], debited[1] + 1)


def _check(settings: Settings, report: ChaosReport, echo: Echo, deadline: float) -> None:
    """The audit, once the projector has caught up (it may be a few records behind just after the load)."""
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope
    from services.audit.core.trust import CHECK as UNTRUSTED

    while True:
        run = audit_platform(settings, Scope(), at_rest=True)
        # The audit names each hostile record that claims a writer it cannot prove: the trust boundary at work.
        report.discrepancies = [str(item) for item in run.discrepancies if item.check != UNTRUSTED]
        report.impersonations = len(run.discrepancies) - len(report.discrepancies)
        report.projection = run.projection
        report.quarantined = len(run.result.facts.quarantined)
        # Every request was answered by now: a wager still open will not be closed by anything in flight.
        wagers = run.result.ledger.wagers.values()
        report.open_wagers = sum(1 for wager in wagers if wager.settlement is None and wager.refund is None)
        report.audited = True
        if (not report.discrepancies and not report.open_wagers) or time.monotonic() > deadline:
            return
        echo(
            f"chaos: audit found {len(report.discrepancies)} discrepancies, {report.open_wagers} open wagers "
            f"({run.projection}); again in 5 s"
        )
        time.sleep(5)


def _check_history(history: History, report: ChaosReport, out_dir: Path, echo: Echo) -> None:
    """The checked players' history written to history.json and checked by porcupine (reelstream/chaos/
    linearizability.py); no Go toolchain: not checked, and the run fails."""
    from reelstream.chaos import linearizability

    path = history.write(out_dir / "history.json")
    operations = history.operations
    report.history = {
        "file": path.name,
        "players": len(history.currency_by_player),
        "operations": len(operations),
        "clients": len({operation.client for operation in operations}),
        "refused_for_funds": sum(1 for operation in operations if operation.code == "INSUFFICIENT_FUNDS"),
        "split_spins": sum(1 for operation in operations if operation.split),
        "answered_after_the_client_gave_up": sum(
            1 for op in operations if op.complete_ns is None and op.outcome != "unknown"
        ),
    }
    try:
        started = time.monotonic()
        verdict = linearizability.check(path, viz_dir=out_dir / "linearizability")
    except linearizability.GoMissing as error:
        report.history["checker"] = str(error)
        echo(f"chaos: history NOT checked: {error}")
        return
    report.linearizable = verdict.linearizable
    report.history["checker"] = "porcupine v1.3.1 (tools/linearizability)"
    report.history["check_s"] = round(time.monotonic() - started, 1)
    report.history["verdicts"] = verdict.players
    echo(f"chaos: the checked players' history is {'' if verdict.linearizable else 'NOT '}linearizable")


def _write_report(report: ChaosReport, out_dir: Path) -> None:
    document = {
        **asdict(report),
        "passed": report.passed,
        "spins_per_s": report.spins_per_s,
        "takeover": report.takeover,
        "recovery": report.recovery,
        "unmeasured": report.unmeasured,
    }
    (out_dir / "chaos.json").write_text(json.dumps(document, indent=2, default=str) + "\n")
    (out_dir / "chaos.md").write_text("\n".join(_markdown(report)) + "\n")


def _markdown(report: ChaosReport) -> list[str]:
    takeover, recovery, latency = report.takeover, report.recovery, report.latency
    in_flight, clear = latency.get("in_flight_across_faults", {}), latency.get("fault_free", {})
    lines = [
        f"# Chaos run, {report.started_at}",
        "",
        f"**{'PASSED' if report.passed else 'FAILED'}** in {report.duration_s} s",
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
                ("operations on the checked players", report.checked_operations),
                ("faults injected", len(report.faults)),
                ("service restarts by the supervisor", report.restarts),
                ("hostile records written", report.fuzzed),
                ("records the audit set aside as untrusted", report.quarantined),
                ("records the audit names as impersonations", report.impersonations),
                ("client calls given up", report.gave_up),
                ("client answer-reader polls failed (tried again)", report.client_read_errors),
                ("requests without an answer on the topics", report.unanswered),
                ("most distinct answers of one request", report.answers_per_request_max),
                ("wagers open at the end", report.open_wagers),
                ("audit discrepancies", len(report.discrepancies)),
                ("checked players' history linearizable", report.linearizable),
            )
        ),
        "",
        f"Load: {report.load_s} s, {report.spins_per_s} answered spins/s.",
        "",
        f"After a kill: takeover p50 {takeover['p50_s']} s, max {takeover['max_s']} s; recovery p50 "
        f"{recovery['p50_s']} s, p99 {recovery['p99_s']} s, max {recovery['max_s']} s. Requests in flight across a "
        f"fault: {in_flight.get('requests')}, p99 {in_flight.get('p99_s')} s; clear of every fault: "
        f"{clear.get('requests')}, p99 {clear.get('p99_s')} s. Warm spares: {report.standbys}.",
        "",
        "| fault | at (s) | takeover (s) | partitions | watched every (s, at most) | recovery (s) | in flight | "
        "their p99 (s) | replaced by |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        *(
            f"| {f.kind} | {f.at_s} | {f.takeover_s} | {f.takeover_partitions} | {f.takeover_resolution_s} | "
            f"{f.recovery_s} | {f.in_flight} | {f.in_flight_p99_s} | {f.replaced_by or '-'} |"
            for f in report.faults
        ),
        "",
        f"History: {report.history}.",
        f"Projection: {report.projection}.",
        f"Normal spin after restarting every service: {report.final_spin or 'not asked (no fuzz)'}.",
        "",
    ]
    lines += [f"- not measured: {item}" for item in report.unmeasured]
    lines += [f"- given up: {call}" for call in report.given_up]
    return lines + [f"- {item}" for item in report.discrepancies[:50]]
