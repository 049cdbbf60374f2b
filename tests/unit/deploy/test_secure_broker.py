"""The secured local broker's pieces without starting it: the rendered listeners and authorizer, and the private CA."""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from deploy.local.infra import kafka_endpoint
from deploy.local.kafka import render_config
from deploy.local.paths import InfraPaths
from deploy.local.pki import BROKER_CN, ensure_tls


def _properties(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def test_a_secured_broker_takes_sasl_ssl_clients_and_only_its_own_certificate_on_the_inner_listeners(tmp_path: Path):
    paths = InfraPaths(state=tmp_path / "state", cache=tmp_path / "cache")
    paths.kafka_dir.mkdir(parents=True)
    tls = ensure_tls(paths.kafka_dir / "tls")

    config = _properties(render_config(paths, kafka_endpoint(secure=True, environ={}), tls).read_text())

    assert config["listeners"] == "CLIENT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093,INTERNAL://127.0.0.1:9094"
    assert config["listener.security.protocol.map"] == "CLIENT:SASL_SSL,CONTROLLER:SSL,INTERNAL:SSL"
    assert config["listener.name.controller.ssl.client.auth"] == "required"
    assert config["listener.name.internal.ssl.client.auth"] == "required"
    assert config["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert config["allow.everyone.if.no.acl.found"] == "false"
    assert config["super.users"] == f"User:CN={BROKER_CN}"
    assert config["authorizer.class.name"].endswith("StandardAuthorizer")
    assert config["ssl.keystore.type"] == config["ssl.truststore.type"] == "PEM"


def test_the_benchmark_listener_exists_only_when_asked_for(tmp_path: Path):
    paths = InfraPaths(state=tmp_path / "state", cache=tmp_path / "cache")
    paths.kafka_dir.mkdir(parents=True)
    tls = ensure_tls(paths.kafka_dir / "tls")

    config = _properties(render_config(paths, kafka_endpoint(True, bench_listener=True, environ={}), tls).read_text())

    assert (
        "BENCH://127.0.0.1:9095" in config["listeners"]
        and "BENCH:PLAINTEXT" in config["listener.security.protocol.map"]
    )
    assert "User:ANONYMOUS" in config["super.users"].split(";")


def test_the_private_ca_signs_a_broker_certificate_for_localhost_with_an_unencrypted_pkcs8_key(tmp_path: Path):
    tls = ensure_tls(tmp_path / "tls")

    ca = x509.load_pem_x509_certificate(tls.ca_cert.read_bytes())
    broker = x509.load_pem_x509_certificates(tls.broker_cert.read_bytes())[0]
    broker.verify_directly_issued_by(ca)
    sans = broker.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["localhost"]
    assert [str(ip) for ip in sans.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    key_text = tls.broker_key.read_bytes()
    assert key_text.startswith(b"-----BEGIN PRIVATE KEY-----")  # PKCS#8, not encrypted
    assert load_pem_private_key(key_text, password=None) is not None
    assert oct(tls.broker_keystore.stat().st_mode & 0o777) == "0o600"
    assert ensure_tls(tmp_path / "tls").ca_cert.read_bytes() == tls.ca_cert.read_bytes()  # made once


def test_the_compose_secure_profile_runs_a_secured_broker_and_each_service_as_its_own_principal():
    import yaml

    from deploy.local.paths import REPO_ROOT
    from reelstream.processes import SERVICES

    services = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())["services"]
    broker = services["kafka-secure"]["environment"]
    assert broker["KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND"] == "false"
    assert "CLIENT:SASL_SSL" in broker["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"]
    assert broker["KAFKA_SUPER_USERS"] == f"User:CN={BROKER_CN}"
    for name in SERVICES:
        service = services[f"{name}-secure"]
        assert service["profiles"] == ["secure"] and service["command"] == ["services", "run", name]
        assert service["environment"]["REELSTREAM_KAFKA_CLIENT_CONFIG"] == f"/client/{name}.json"  # its own role's
    assert all("reelstream-local-dev-secret" not in str(service) for service in services.values())
