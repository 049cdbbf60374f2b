"""A principal's client settings in the three forms each ecosystem reads as they are: Java properties (Kafka's own
tools and kafka-clients), librdkafka `.conf` (confluent-kafka and other librdkafka bindings) and the project's JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

from shared.security import ClientSecurity

_JAAS = {
    "PLAIN": "org.apache.kafka.common.security.plain.PlainLoginModule",
    "SCRAM-SHA-256": "org.apache.kafka.common.security.scram.ScramLoginModule",
    "SCRAM-SHA-512": "org.apache.kafka.common.security.scram.ScramLoginModule",
}


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def java_properties(security: ClientSecurity, bootstrap: str) -> str:
    lines = [f"bootstrap.servers={bootstrap}", f"security.protocol={security.protocol}"]
    if security.uses_sasl:
        jaas = (
            f"{_JAAS[security.mechanism]} required username={_quoted(security.username)} "
            f"password={_quoted(security.password)};"
        )
        lines += [f"sasl.mechanism={security.mechanism}", f"sasl.jaas.config={jaas.replace(chr(92), chr(92) * 2)}"]
    if security.uses_tls:
        lines.append("ssl.endpoint.identification.algorithm=https")
        if security.ca_file:
            lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={security.ca_file}"]
        if security.cert_file:
            lines += ["ssl.keystore.type=PEM", f"ssl.keystore.location={security.cert_file}"]
    return "\n".join(lines) + "\n"


def librdkafka_conf(security: ClientSecurity, bootstrap: str) -> str:
    lines = [f"bootstrap.servers={bootstrap}", f"security.protocol={security.protocol.lower()}"]
    if security.uses_sasl:
        lines += [
            f"sasl.mechanisms={security.mechanism}",
            f"sasl.username={security.username}",
            f"sasl.password={security.password}",
        ]
    if security.uses_tls:
        lines.append("ssl.endpoint.identification.algorithm=https")
        if security.ca_file:
            lines.append(f"ssl.ca.location={security.ca_file}")
        if security.cert_file:
            lines += [f"ssl.certificate.location={security.cert_file}", f"ssl.key.location={security.key_file}"]
    return "\n".join(lines) + "\n"


def project_json(security: ClientSecurity, bootstrap: str, role: str) -> str:
    values = {
        "role": role,
        "bootstrap_servers": bootstrap,
        "security_protocol": security.protocol,
        "sasl_mechanism": security.mechanism,
        "sasl_username": security.username,
        "sasl_password": security.password,
        "ssl_ca_file": security.ca_file,
        "ssl_cert_file": security.cert_file,
        "ssl_key_file": security.key_file,
    }
    return json.dumps({key: value for key, value in values.items() if value}, indent=2) + "\n"


def write_client_files(folder: Path, role: str, security: ClientSecurity, bootstrap: str) -> dict[str, Path]:
    """`<role>.properties`, `<role>.conf` and `<role>.json` in `folder`, readable by the owner only (they hold the
    password)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    written = {}
    for suffix, text in (
        ("properties", java_properties(security, bootstrap)),
        ("conf", librdkafka_conf(security, bootstrap)),
        ("json", project_json(security, bootstrap, role)),
    ):
        path = folder / f"{role}.{suffix}"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(text)
        written[suffix] = path
    return written
