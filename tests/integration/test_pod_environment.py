"""Each service started on this machine with exactly the environment and files its pod gets from the rendered demo
overlay, against a secured broker of the Kafka version the manifests deploy (deploy/k8s/manifests.py, 4.3.1): it must
come up ready over SASL_SSL as its own user, holding no other credential, and what it writes must verify against its
mounted public ring as signed by its mounted key.

Scenario: the module starts its own single Kafka 4.3.1 broker (KRaft, SASL_SSL with one SCRAM-SHA-512 user per role,
the ACLs of shared/acls.py, a fresh PKI and fresh signing keys in a temporary state folder, ports of its own), creates
the platform's topics and ACLs under a fresh prefix, and stops it at the end; the shared local broker is never used.
The Secrets are materialised from that broker's PKI and keys (its CA as `ca.crt`, each role's SCRAM password, the
signing keys and public ring, a fresh session ring and drop key, a database of its own as the projector's URI).
Five things are translated, nothing else: mount paths are re-rooted under a temporary folder (in the environment and
in the mounted files' text), the bootstrap address points at the module's broker, the HTTP ports are free ones on
loopback, REELSTREAM_TOPIC_PREFIX names the fresh prefix (a cluster has the whole broker to itself), and each service's
numba cache folder starts as a copy of this checkout's warm one (performance only: compiled kernels, keyed by the
engine code; the spin's cold compile is most of its start).
Then, acting as the outside roles: a spin request with a bad session token is answered SpinRejected (signed by spin),
a cashier deposit Deposited (signed by wallet), an operator's OpenPool PoolOpened (signed by jackpot), each verified
with the mounted public ring and its key id the mounted key's; the projector projects them into its database; the
monitor, given a copy of that PoolOpened that does not continue the pool's balance (written as `jackpot` and signed
with its key: the test stands in for the jackpot), signs the PoolDrifted alert it raises; the seamless saga, whose
demo overlay has no seamless operator to call, comes up ready as its own principal.
The services run one at a time in deploy/k8s/workloads.py's order (wallet, jackpot, spin, projector, monitor,
seamless-saga): the projector and the monitor read what the ones before them wrote.
"""

from __future__ import annotations

from deploy.local.postgres import drop_database
import asyncio
import json
import os
import re
import secrets
import shutil
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from deploy.k8s import workloads as wl
from deploy.k8s.checks import containers, env_of
from deploy.k8s.generate import render
from deploy.k8s.manifests import KAFKA_VERSION as CLUSTER_KAFKA_VERSION
from deploy.local import infra, kafka
from deploy.local.paths import InfraPaths, default_paths
from games.selftest import numba_cache_dir
from reelstream.processes import spawn
from services.jackpot.adapters.history import read_all
from shared import records, signing
from shared.events import decode, decode_all, encode, envelope
from shared.events.jackpot import OpenPool, PoolOpened
from shared.events.monitor import PoolDrifted
from shared.events.spin import SpinRejected
from shared.pools import load_pools
from shared.topic_admin import ensure_topics
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, MONITOR_ALERTS, SPIN_EVENTS, WALLET_EVENTS
from tests.integration.conftest import unavailable
from tests.support.projector import admin_sql, database_url_for, projected_events

REPO = Path(__file__).resolve().parents[2]
STATE = Path(os.environ.get("REELSTREAM_STATE_DIR", REPO / ".reelstream"))
READY_S = 60
ANSWER_S = 30


@dataclass(frozen=True)
class ClusterStandIn:
    """The module's broker of the manifests' Kafka version and what an operator would have made for a cluster."""

    bootstrap: str
    clients: Path  # every role's client files (its SCRAM password, the CA)
    keys: Path  # every writer's signing key and public.json
    session_keys: str
    prefix: str
    database_url: str  # a database of its own: the projector's Secret

    def outside_env(self) -> dict[str, str]:
        """The environment of this test process when it acts as a role outside the services."""
        return {
            "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap,
            "REELSTREAM_KAFKA_CLIENTS_DIR": str(self.clients),
            "REELSTREAM_KAFKA_ROLE": "admin",
            "REELSTREAM_SIGNING_DIR": str(self.keys),
            "REELSTREAM_TOPIC_PREFIX": self.prefix,
        }


def _free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _free_ports(count: int, first: int = 19_092, last: int = 19_992) -> int:
    """The first of `count` consecutive free ports (the broker's client, controller and internal listeners)."""
    for base in range(first, last, 10):
        try:
            for port in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError(f"no {count} consecutive free ports in {first}..{last}")


@pytest.fixture(scope="module")
def cluster_kafka(tmp_path_factory):
    """A secured Kafka broker of the manifests' version, its state and ports its own, with every role provisioned and
    the platform's topics under a fresh prefix; stopped (and its state discarded) after the module."""
    database_url = os.environ.get("DATABASE_URL")
    if not database_url:
        unavailable("no PostgreSQL for the projector: DATABASE_URL is not set")
    paths = InfraPaths(
        state=tmp_path_factory.mktemp(f"kafka-{CLUSTER_KAFKA_VERSION}"),
        cache=default_paths().cache,
        kafka_version=CLUSTER_KAFKA_VERSION,
    )
    at = infra.kafka_endpoint(secure=True, environ={"REELSTREAM_KAFKA_PORT": str(_free_ports(3))})
    database = f"t_pod_{uuid.uuid4().hex}"
    try:
        lines = infra.broker_up(paths, at, print, jvm=kafka.QUICK_START_JVM)
        assert f"Kafka version: {CLUSTER_KAFKA_VERSION}" in (paths.kafka_dir / "kafka.log").read_text()  # its own word
        keys = paths.state / "signing"
        signing.generate(keys)
        asyncio.run(admin_sql(database_url, f'CREATE DATABASE "{database}"'))
        stand_in = ClusterStandIn(
            bootstrap=at.bootstrap,
            clients=Path(lines["REELSTREAM_KAFKA_CLIENTS_DIR"]),
            keys=keys,
            session_keys=f"k1:{secrets.token_hex(32)}",
            prefix=f"pod{uuid.uuid4().hex[:10]}.",
            database_url=database_url_for(database_url, database),
        )
        with pytest.MonkeyPatch.context() as patch:
            for name, value in stand_in.outside_env().items():
                patch.setenv(name, value)
            ensure_topics(at.bootstrap, prefix=stand_in.prefix)
        yield stand_in
    finally:
        kafka.down(paths, print)
        asyncio.run(drop_database(database_url, database))


def _secrets(stand_in: ClusterStandIn) -> dict[tuple[str, str], bytes]:
    admin = json.loads((stand_in.clients / "admin.json").read_text())
    made = {(wl.CA_SECRET, "ca.crt"): Path(admin["ssl_ca_file"]).read_bytes()}
    for w in wl.WORKLOADS:
        role = json.loads((stand_in.clients / f"{w.name}.json").read_text())
        made[(w.name, "password")] = role["sasl_password"].encode()
        key = stand_in.keys / f"{w.name}.key.json"
        if key.exists():
            made[(wl.signing_secret(w.name), key.name)] = key.read_bytes()
    made[(wl.DROP_KEY_SECRET, "key")] = secrets.token_hex(32).encode()
    made[(wl.SESSION_SECRET, "keys")] = stand_in.session_keys.encode()
    made[(wl.PG_SECRET, "uri")] = stand_in.database_url.encode()
    made[(wl.SIGNING_PUBLIC, "public.json")] = (stand_in.keys / "public.json").read_bytes()  # a ConfigMap on a cluster
    return made


def _configmaps(resources) -> dict[tuple[str, str], bytes]:
    return {
        (r["metadata"]["name"], key): value.encode()
        for r in resources
        if r["kind"] == "ConfigMap"
        for key, value in r["data"].items()
    }


def pod_environment(resources, service: str, root: Path, stand_in: ClusterStandIn) -> dict[str, str]:
    """The service container's environment, its volumes written under `root` (paths re-rooted)."""
    _, pod, c = next(x for x in containers(resources) if x[2]["name"] == service)
    data = {**_configmaps(resources), **_secrets(stand_in)}
    reroot = {m["mountPath"]: str(root) + m["mountPath"] for m in c["volumeMounts"]}

    pattern = re.compile("|".join(re.escape(path) for path in sorted(reroot, key=len, reverse=True)))

    def rerooted(text: str) -> str:
        return pattern.sub(lambda found: reroot[found.group(0)], text)  # one pass: /tmp is inside every new path

    volumes = {v["name"]: v for v in pod["volumes"]}
    for mount in c["volumeMounts"]:
        target = Path(reroot[mount["mountPath"]])
        target.mkdir(parents=True, exist_ok=True)
        volume = volumes[mount["name"]]
        sources = volume.get("projected", {}).get("sources", []) + ([volume] if "configMap" in volume else [])
        for source in sources:
            for ref in (source[kind] for kind in ("configMap", "secret") if kind in source):
                keys = ref.get("items") or [{"key": k, "path": k} for (n, k) in data if n == ref["name"]]
                for item in keys:
                    (target / item["path"]).write_bytes(rerooted(data[(ref["name"], item["key"])].decode()).encode())
    env = {}
    for name, entry in env_of(c).items():
        source = entry.get("valueFrom", {})
        if "value" in entry:
            env[name] = rerooted(entry["value"])
        elif "secretKeyRef" in source or "configMapKeyRef" in source:
            ref = source.get("secretKeyRef") or source["configMapKeyRef"]
            env[name] = data[(ref["name"], ref["key"])].decode()
        else:
            env[name] = f"{service}-0"  # fieldRef metadata.name: a StatefulSet's first pod
    assert "REELSTREAM_TOPIC_PREFIX" not in env  # on a cluster the broker is the deployment's alone
    env["KAFKA_BOOTSTRAP_SERVERS"] = stand_in.bootstrap
    env["REELSTREAM_TOPIC_PREFIX"] = stand_in.prefix
    env["REELSTREAM_HTTP_PORT"] = "0"
    env["REELSTREAM_HTTP_HOST"] = "127.0.0.1"
    if service == "monitor":
        env["REELSTREAM_MONITOR_PORT"] = str(_free_port())
    return env


def _record(bootstrap: str, topic: str, found) -> object:
    """The first record of `topic` (read as admin) for which `found(decoded envelope)` holds, waiting for it."""
    deadline = time.monotonic() + ANSWER_S
    while time.monotonic() < deadline:
        for record in read_all(bootstrap, topic, role="admin"):
            if any(found(event) for event in decode_all(record.value)):  # a batch envelope's items too
                return record
        time.sleep(0.5)
    raise AssertionError(f"no matching record on {topic} within {ANSWER_S} s")


def _assert_signed_by_its_mounted_key(writer: str, logical_topic: str, record, pod: dict[str, str]) -> None:
    mounted = Path(pod["REELSTREAM_SIGNING_DIR"])
    ring = signing.load_ring(mounted)  # the mounted public ring (the ConfigMap), not the test's key folder
    assert records.writer_of(record.headers) == writer
    assert ring.verify(writer, logical_topic, record.key, record.value, record.headers) == (writer, None)
    key_id = dict(record.headers)[signing.KEY_ID].decode()
    assert key_id == signing.load_signer(mounted, writer).key_id  # the very key mounted into this pod


def _spin_signs_its_answer(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    from reelstream.client import ReelstreamClient

    client = ReelstreamClient(stand_in.bootstrap, stand_in.prefix, client_id="pod-smoke", role="game-client")
    try:
        answer = client.spin(f"p-{uuid.uuid4().hex[:8]}", "rising-joker", 10, "EUR", "not-a-token", timeout_s=ANSWER_S)
    finally:
        client.close()
    assert isinstance(answer.data, SpinRejected), answer
    assert answer.code == "UNAUTHENTICATED"  # refused by the mounted session ring, before any wallet call
    record = _record(stand_in.bootstrap, stand_in.prefix + SPIN_EVENTS, lambda event: event.id == answer.event_id)
    _assert_signed_by_its_mounted_key("spin", SPIN_EVENTS, record, pod)


def _wallet_signs_its_answer(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    from reelstream.client import ReelstreamClient

    client = ReelstreamClient(stand_in.bootstrap, stand_in.prefix, client_id="pod-smoke", role="cashier")
    transaction_id = uuid.uuid4()
    try:
        answer = client.deposit(f"p-{uuid.uuid4().hex[:8]}", 500, "EUR", transaction_id=transaction_id)
    finally:
        client.close()
    assert answer.TYPE == "reelstream.wallet.deposited.v1", answer
    record = _record(
        stand_in.bootstrap,
        stand_in.prefix + WALLET_EVENTS,
        lambda event: getattr(event.data, "transaction_id", None) == transaction_id,
    )
    _assert_signed_by_its_mounted_key("wallet", WALLET_EVENTS, record, pod)


def _write_as(role: str, stand_in: ClusterStandIn, logical_topic: str, key: bytes, value: bytes, headers) -> None:
    """One record written to the module's broker as `role` (an outside role, or one the test stands in for)."""
    from shared.kafka import producer

    writer = producer(stand_in.bootstrap, client_id="pod-smoke", role=role)
    try:
        writer.send(stand_in.prefix + logical_topic, key=key, value=value, headers=headers).get(timeout=ANSWER_S)
    finally:
        writer.close()


def _jackpot_signs_its_answer(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    network = load_pools().networks[0]
    command = OpenPool(network_id=network.network_id, command_id=uuid.uuid4(), pool_id=network.pools[0].pool_id)
    message = envelope(command, source="pod-smoke", time=datetime.now(timezone.utc))
    value = encode(message)
    headers = records.signed_headers("operator", JACKPOT_COMMANDS, message.key, value)
    _write_as("operator", stand_in, JACKPOT_COMMANDS, message.key, value, headers)
    record = _record(
        stand_in.bootstrap,
        stand_in.prefix + JACKPOT_EVENTS,
        lambda event: getattr(event.data, "command_id", None) == command.command_id,
    )
    assert isinstance(decode(record.value).data, PoolOpened)
    _assert_signed_by_its_mounted_key("jackpot", JACKPOT_EVENTS, record, pod)


def _projector_projects(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    """The answers the signing services gave above (this module runs them first) reach the projector's database."""
    deadline = time.monotonic() + ANSWER_S
    while projected_events(stand_in.database_url) < 1 and time.monotonic() < deadline:
        time.sleep(0.5)
    assert projected_events(stand_in.database_url) >= 1


def _monitor_signs_a_drift_alert(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    """Its faust app, as `monitor`, reads jackpot.events and signs the alert a pool drift raises: a copy of the pool's
    PoolOpened above whose opening does not continue its closing, written in the jackpot's name (as `jackpot`, signed
    with the jackpot's key: the test stands in for it)."""
    events = stand_in.prefix + JACKPOT_EVENTS
    opened = decode(_record(stand_in.bootstrap, events, lambda event: isinstance(event.data, PoolOpened)).value)
    before = opened.data.movement
    movement = before.model_copy(
        update={
            "opening_micro": before.closing_micro + 1,
            "closing_micro": before.closing_micro + 1 + before.seeds_micro,
        }
    )
    assert movement.balanced()  # only the continuity with the pool's last closing breaks
    drifted = opened.model_copy(
        update={"id": uuid.uuid4(), "data": opened.data.model_copy(update={"movement": movement})}
    )
    value = encode(drifted)
    headers = records.headers_as_owner(JACKPOT_EVENTS, "jackpot", drifted.key, value)
    _write_as("jackpot", stand_in, JACKPOT_EVENTS, drifted.key, value, headers)
    alert = _record(
        stand_in.bootstrap,
        stand_in.prefix + MONITOR_ALERTS,
        lambda event: isinstance(event.data, PoolDrifted) and event.data.event_id == str(drifted.id),
    )
    assert decode(alert.value).data.kind == "continuity"
    _assert_signed_by_its_mounted_key("monitor", MONITOR_ALERTS, alert, pod)


def _saga_ready_as_its_own_principal(stand_in: ClusterStandIn, pod: dict[str, str]) -> None:
    """Ready is the proof: as `seamless-saga` it joined its group, fenced its transactional ids and folded its
    partitions of wallet.seamless; with no seamless operator it decides nothing to sign."""
    listed = json.loads(Path(pod["REELSTREAM_OPERATORS_FILE"]).read_text())["operators"]
    assert listed and not [o for o in listed if o.get("wallet_mode") == "seamless"]


PROOFS = {
    "spin": _spin_signs_its_answer,
    "wallet": _wallet_signs_its_answer,
    "jackpot": _jackpot_signs_its_answer,
    "projector": _projector_projects,
    "monitor": _monitor_signs_a_drift_alert,
    "seamless-saga": _saga_ready_as_its_own_principal,
}


def _warm_numba(pod: dict[str, str], service: str) -> Path | None:
    """Copy this checkout's compiled kernels into the pod's cache folder (a performance-only translation)."""
    warm = numba_cache_dir(STATE, service)
    if "NUMBA_CACHE_DIR" in pod and warm.is_dir():
        shutil.copytree(warm, pod["NUMBA_CACHE_DIR"], dirs_exist_ok=True)
    return warm if "NUMBA_CACHE_DIR" in pod else None


@pytest.mark.parametrize("service", [w.name for w in wl.WORKLOADS])
def test_the_service_runs_on_exactly_its_pods_environment_as_its_own_principal_and_signs(
    service, cluster_kafka, tmp_path, monkeypatch
):
    pod = pod_environment(render("demo"), service, tmp_path / "pod", cluster_kafka)
    for name in [k for k in os.environ if k.startswith(("REELSTREAM_", "KAFKA_", "DATABASE_URL", "NUMBA_"))]:
        monkeypatch.delenv(name)  # spawn adds this process's environment: nothing of the host's may leak in
    assert "REELSTREAM_KAFKA_CLIENTS_DIR" not in pod  # the only credential is the mounted one
    settings = json.loads(Path(pod["REELSTREAM_KAFKA_CLIENT_CONFIG"]).read_text())
    assert (settings["security_protocol"], settings["sasl_username"]) == ("SASL_SSL", service)
    warm = _warm_numba(pod, service)
    process = spawn(service, env=pod, log_dir=tmp_path / "logs")
    try:
        process.wait_ready_by_probe(Path(pod["REELSTREAM_STATE_DIR"]), timeout_s=READY_S)
        for name, value in cluster_kafka.outside_env().items():
            monkeypatch.setenv(name, value)  # the test now acts as the outside roles, on the module's broker
        PROOFS[service](cluster_kafka, pod)
    finally:
        process.stop()
        if warm is not None:  # keep what it compiled for the next run
            shutil.copytree(pod["NUMBA_CACHE_DIR"], warm, dirs_exist_ok=True)
