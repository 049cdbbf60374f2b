"""Each service started on this machine with exactly the environment and files its pod gets from the rendered demo
overlay, against the local secured broker: it must come up ready over SASL_SSL as its own user, holding no other
credential, and its mounted key must sign what its mounted public ring verifies.

Scenario: the Secrets are materialised from the local PKI and keys (the broker's CA as `ca.crt`, each role's SCRAM
password from `.reelstream/clients`, the signing keys and public ring from `$REELSTREAM_SIGNING_DIR`, the drop key
from the local state). Three things are translated, nothing else: mount paths are re-rooted under a temporary folder
(in the environment and in the mounted files' text), the bootstrap address points at the local broker, and the HTTP
port is a free one. The manifests deploy Kafka 4.3.1; the local broker is Kafka 3.9.1 (docs/operations.md)."""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from deploy.k8s import workloads as wl
from deploy.k8s.checks import containers, env_of
from deploy.k8s.generate import render
from reelstream.processes import spawn

REPO = Path(__file__).resolve().parents[2]
STATE = Path(os.environ.get("REELSTREAM_STATE_DIR", REPO / ".reelstream"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _secrets() -> dict[tuple[str, str], bytes]:
    clients = Path(os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"])
    signing = Path(os.environ["REELSTREAM_SIGNING_DIR"])
    admin = json.loads((clients / "admin.json").read_text())
    made = {(wl.CA_SECRET, "ca.crt"): Path(admin["ssl_ca_file"]).read_bytes()}
    for w in wl.WORKLOADS:
        made[(w.name, "password")] = json.loads((clients / f"{w.name}.json").read_text())["sasl_password"].encode()
        key = signing / f"{w.name}.key.json"
        if key.exists():
            made[(wl.signing_secret(w.name), key.name)] = key.read_bytes()
    drop = STATE / "secrets" / "jackpot-drop.key"
    made[(wl.DROP_KEY_SECRET, "key")] = (drop.read_bytes() if drop.exists() else os.urandom(32)).hex().encode()
    made[(wl.SESSION_SECRET, "keys")] = os.environ.get("REELSTREAM_SESSION_SECRET", "x" * 43).encode()
    made[(wl.PG_SECRET, "uri")] = os.environ["DATABASE_URL"].encode()
    made[(wl.SIGNING_PUBLIC, "public.json")] = (signing / "public.json").read_bytes()  # a ConfigMap on a cluster
    return made


def _configmaps(resources) -> dict[tuple[str, str], bytes]:
    return {
        (r["metadata"]["name"], key): value.encode()
        for r in resources
        if r["kind"] == "ConfigMap"
        for key, value in r["data"].items()
    }


def pod_environment(resources, service: str, root: Path) -> dict[str, str]:
    """The service container's environment, its volumes written under `root` (paths re-rooted)."""
    _, pod, c = next(x for x in containers(resources) if x[2]["name"] == service)
    data = {**_configmaps(resources), **_secrets()}
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
    env["KAFKA_BOOTSTRAP_SERVERS"] = os.environ["KAFKA_BOOTSTRAP_SERVERS"]
    env["REELSTREAM_HTTP_PORT"] = "0"
    env["REELSTREAM_HTTP_HOST"] = "127.0.0.1"
    if service == "monitor":
        env["REELSTREAM_MONITOR_PORT"] = str(_free_port())
    return env


@pytest.fixture(scope="module")
def secured_broker():
    if not os.environ.get("REELSTREAM_KAFKA_CLIENTS_DIR") or not os.environ.get("REELSTREAM_SIGNING_DIR"):
        pytest.skip("needs the local secured broker (`make infra-up`, env from .reelstream/env)")


@pytest.mark.parametrize("service", [w.name for w in wl.WORKLOADS])
def test_the_service_runs_on_exactly_its_pods_environment_as_its_own_principal(
    service, secured_broker, tmp_path, monkeypatch
):
    env = pod_environment(render("demo"), service, tmp_path / "pod")
    for name in [k for k in os.environ if k.startswith(("REELSTREAM_", "KAFKA_", "DATABASE_URL"))]:
        monkeypatch.delenv(name)  # spawn adds this process's environment: nothing of the host's may leak in
    assert "REELSTREAM_KAFKA_CLIENTS_DIR" not in env  # the only credential is the mounted one
    settings = json.loads(Path(env["REELSTREAM_KAFKA_CLIENT_CONFIG"]).read_text())
    assert (settings["security_protocol"], settings["sasl_username"]) == ("SASL_SSL", service)
    clean = dict(os.environ)
    sign_check = (
        "from shared import signing; ring = signing.ring(); assert ring is not None; "
        "s = signing.signer(%r) if %r in signing.WRITERS else None; print(s.key_id if s else '-')" % (service, service)
    )
    state = Path(env["REELSTREAM_STATE_DIR"])
    process = spawn(service, env=env, log_dir=tmp_path / "logs")
    try:
        process.wait_ready_by_probe(state, timeout_s=45)
    finally:
        process.stop()
    import subprocess
    import sys

    signed = subprocess.run(
        [sys.executable, "-c", sign_check], env={**clean, **env}, capture_output=True, text=True, timeout=30
    )
    assert signed.returncode == 0, signed.stderr
    public = json.loads((Path(env["REELSTREAM_SIGNING_DIR"]) / "public.json").read_text())
    if any(w.name == service and w.signs for w in wl.WORKLOADS):
        assert signed.stdout.strip() in {k["key_id"] for k in public["keys"] if k["writer"] == service}
