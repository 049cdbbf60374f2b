"""Kafka connection security from configuration, in one place: a role's JSON file or the environment becomes the
settings of kafka-python and aiokafka clients (docs/security.md, "Client settings")."""

from __future__ import annotations

import json
import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")
KEYS = (
    "security_protocol",
    "sasl_mechanism",
    "sasl_username",
    "sasl_password",
    "ssl_ca_file",
    "ssl_cert_file",
    "ssl_key_file",
    "ssl_key_password",
)
_SECRET_KEYS = ("sasl_password", "ssl_key_password")
MAX_CONFIG_BYTES = 64 * 1024


class SecurityConfigError(ValueError):
    """The Kafka security configuration is unusable; the message is one line saying what and where."""


@dataclass(frozen=True)
class ClientSecurity:
    protocol: str = "PLAINTEXT"
    mechanism: str | None = None
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    key_password: str | None = None
    source: str = "default"  # where the settings came from, for error messages (a path or "environment")

    def __repr__(self) -> str:
        shown = {
            "protocol": self.protocol,
            "mechanism": self.mechanism,
            "username": self.username,
            "ca_file": self.ca_file,
            "cert_file": self.cert_file,
            "source": self.source,
        }
        return "ClientSecurity(" + ", ".join(f"{key}={value!r}" for key, value in shown.items() if value) + ")"

    @property
    def uses_tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def uses_sasl(self) -> bool:
        return self.protocol in ("SASL_PLAINTEXT", "SASL_SSL")

    def kafka_python(self) -> dict[str, Any]:
        """Keyword arguments for kafka-python's KafkaProducer, KafkaConsumer and KafkaAdminClient."""
        options: dict[str, Any] = {"security_protocol": self.protocol}
        if self.uses_tls:
            options.update(
                ssl_check_hostname=True,
                ssl_cafile=self.ca_file,
                ssl_certfile=self.cert_file,
                ssl_keyfile=self.key_file,
                ssl_password=self.key_password,
            )
        if self.uses_sasl:
            options.update(
                sasl_mechanism=self.mechanism, sasl_plain_username=self.username, sasl_plain_password=self.password
            )
        return options

    def aiokafka(self) -> dict[str, Any]:
        """Keyword arguments for aiokafka's AIOKafkaProducer and AIOKafkaConsumer."""
        options: dict[str, Any] = {"security_protocol": self.protocol}
        if self.uses_tls:
            options["ssl_context"] = self.ssl_context()
        if self.uses_sasl:
            options.update(
                sasl_mechanism=self.mechanism, sasl_plain_username=self.username, sasl_plain_password=self.password
            )
        return options

    def ssl_context(self) -> ssl.SSLContext:
        """A client TLS context: the CA file (or the system CAs), hostname verification on, TLS 1.2 at least."""
        context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.ca_file)
        context.check_hostname = True
        context.verify_mode = ssl.CERT_REQUIRED
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        if self.cert_file:
            context.load_cert_chain(self.cert_file, self.key_file, password=self.key_password)
        return context


def security_for(role: str | None = None, environ: Mapping[str, str] | None = None) -> ClientSecurity:
    """The connection security of a client acting as `role` (None: `$REELSTREAM_KAFKA_ROLE` or the process-wide
    settings); see the module docstring for the order of sources. Raises SecurityConfigError."""
    env = os.environ if environ is None else environ
    role = role or env.get("REELSTREAM_KAFKA_ROLE") or None
    clients_dir = env.get("REELSTREAM_KAFKA_CLIENTS_DIR")
    if role and clients_dir:
        return parse(_read_json(Path(clients_dir) / f"{role}.json"), source=str(Path(clients_dir) / f"{role}.json"))
    if env.get("REELSTREAM_KAFKA_CLIENT_CONFIG"):
        path = Path(env["REELSTREAM_KAFKA_CLIENT_CONFIG"])
        return parse(_read_json(path), source=str(path))
    values = {key: env[f"KAFKA_{key.upper()}"] for key in KEYS if env.get(f"KAFKA_{key.upper()}")}
    for key in _SECRET_KEYS:
        file_variable = f"KAFKA_{key.upper()}_FILE"
        if env.get(file_variable) and key not in values:
            values[key] = _read_secret(Path(env[file_variable]), file_variable)
    return parse(values, source="environment")


def parse(values: Mapping[str, Any], source: str) -> ClientSecurity:
    """Validate one set of settings (the JSON or environment names); every problem is one SecurityConfigError."""
    unknown = sorted(set(values) - set(KEYS) - {f"{key}_file" for key in _SECRET_KEYS} - {"role", "bootstrap_servers"})
    if unknown:
        raise SecurityConfigError(f"kafka security settings in {source}: unknown keys {unknown}")
    found = {key: values[key] for key in KEYS if values.get(key) not in (None, "")}
    for key in _SECRET_KEYS:
        if key not in found and values.get(f"{key}_file"):
            found[key] = _read_secret(Path(values[f"{key}_file"]), f"{key}_file in {source}")
    protocol = str(found.get("security_protocol", "PLAINTEXT")).upper()
    if protocol not in PROTOCOLS:
        raise SecurityConfigError(
            f"kafka security_protocol {protocol!r} in {source}: use one of {', '.join(PROTOCOLS)}"
        )
    security = ClientSecurity(
        protocol=protocol,
        mechanism=found.get("sasl_mechanism"),
        username=found.get("sasl_username"),
        password=found.get("sasl_password"),
        ca_file=found.get("ssl_ca_file"),
        cert_file=found.get("ssl_cert_file"),
        key_file=found.get("ssl_key_file"),
        key_password=found.get("ssl_key_password"),
        source=source,
    )
    _check(security)
    return security


def _check(security: ClientSecurity) -> None:
    where = security.source
    if security.uses_sasl:
        mechanism = (security.mechanism or "").upper()
        if mechanism not in MECHANISMS:
            raise SecurityConfigError(
                f"kafka sasl_mechanism {security.mechanism!r} in {where}: use one of {', '.join(MECHANISMS)}"
            )
        if not security.username or not security.password:
            raise SecurityConfigError(f"kafka {security.protocol} needs sasl_username and sasl_password ({where})")
        if mechanism == "PLAIN" and security.protocol == "SASL_PLAINTEXT":
            raise SecurityConfigError(
                f"kafka SASL PLAIN over SASL_PLAINTEXT would send the password in clear ({where})"
            )
    if security.uses_tls:
        for label, path in (
            ("CA file", security.ca_file),
            ("client certificate", security.cert_file),
            ("client key", security.key_file),
        ):
            if path and not Path(path).is_file():
                raise SecurityConfigError(f"kafka {label} {path} does not exist ({where})")
        if bool(security.cert_file) != bool(security.key_file):
            raise SecurityConfigError(f"kafka mTLS needs both ssl_cert_file and ssl_key_file ({where})")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()[: MAX_CONFIG_BYTES + 1]
    except OSError as error:
        raise SecurityConfigError(f"kafka client settings {path} cannot be read: {error.strerror}") from error
    if len(raw) > MAX_CONFIG_BYTES:
        raise SecurityConfigError(f"kafka client settings {path} are larger than {MAX_CONFIG_BYTES} bytes")
    try:
        values = json.loads(raw)
    except ValueError as error:
        line = getattr(error, "lineno", "?")
        raise SecurityConfigError(f"kafka client settings {path} are not JSON (line {line})") from None
    if not isinstance(values, dict):
        raise SecurityConfigError(f"kafka client settings {path} are not a JSON object")
    return values


def _read_secret(path: Path, what: str) -> str:
    try:
        return path.read_text().strip()
    except OSError as error:
        raise SecurityConfigError(f"kafka secret file {path} ({what}) cannot be read: {error.strerror}") from error


class KafkaAccessError(ConnectionError):
    """A client could not connect as configured; the message is one line (wrong password, untrusted certificate)."""


def _tls_problem(host: str, port: int, security: ClientSecurity, timeout_s: float) -> str | None:
    import socket

    try:
        with socket.create_connection((host, port), timeout=timeout_s) as raw:
            with security.ssl_context().wrap_socket(raw, server_hostname=host):
                return None
    except ssl.SSLCertVerificationError as error:
        trusted = f"the CA file {security.ca_file}" if security.ca_file else "the system's CAs"
        return (
            f"kafka: the certificate of {host}:{port} is not trusted by {trusted} "
            f"({error.verify_message}; {security.source})"
        )
    except (ssl.SSLError, OSError) as error:
        return f"kafka: no TLS connection to {host}:{port} ({error.__class__.__name__}: {error}; {security.source})"


def diagnose(bootstrap: str, security: ClientSecurity, timeout_s: float = 5) -> str | None:
    """One line saying why a client with these settings cannot connect (None when it can): an untrusted broker
    certificate, failed SASL authentication (wrong user or password), or an unreachable broker."""
    import logging

    host, _, port = bootstrap.split(",")[0].strip().rpartition(":")
    if security.uses_tls:
        problem = _tls_problem(host, int(port), security, timeout_s)
        if problem:
            return problem
    # kafka-python only sees the socket close on a refused login; aiokafka logs the broker's SASL error: ask it.
    import asyncio

    from aiokafka import AIOKafkaClient
    from aiokafka.errors import KafkaError

    seen: list[str] = []

    class _Catch(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    async def bootstrap_once() -> None:
        client = AIOKafkaClient(
            bootstrap_servers=bootstrap,
            request_timeout_ms=int(timeout_s * 1000),
            client_id="reelstream-diagnose",
            **security.aiokafka(),
        )
        try:
            await client.bootstrap()
        finally:
            await client.close()

    catcher, logger = _Catch(logging.WARNING), logging.getLogger("aiokafka")
    logger.addHandler(catcher)
    try:
        asyncio.run(bootstrap_once())
        return None
    except KafkaError:
        if any("SaslAuthenticationFailed" in line or "Authentication failed" in line for line in seen):
            return (
                f"kafka: authentication failed for user {security.username!r} with {security.mechanism} "
                f"(wrong user name or password; {security.source})"
            )
        return f"kafka: no broker answers on {bootstrap} with {security.protocol} ({security.source})"
    finally:
        logger.removeHandler(catcher)


_RECENT: list[tuple[str, ClientSecurity]] = []  # the last connection a factory set up in this process, for diagnosis


def note_client(bootstrap: str, security: ClientSecurity) -> ClientSecurity:
    """Remember the settings a client factory just used (shared.kafka), so a failure can be explained afterwards."""
    _RECENT[:] = [(bootstrap, security)]
    return security


def explain_last_failure() -> str | None:
    """`diagnose` for the last client a factory made in this process (None when none was made or it connects)."""
    return diagnose(*_RECENT[0]) if _RECENT else None


def quiet_client_debug_logs() -> None:
    """aiokafka and kafka-python log whole records (tokens included) at DEBUG: keep their loggers at INFO or above
    whatever level a service runs at."""
    import logging

    for name in ("aiokafka", "kafka"):
        logger = logging.getLogger(name)
        logger.setLevel(max(logging.INFO, logger.getEffectiveLevel()))


def faust_credentials(role: str | None = None, environ: Mapping[str, str] | None = None):
    """faust's `broker_credentials` for a role (None on PLAINTEXT): the same settings as every other client."""
    import faust

    security = security_for(role, environ)
    if security.uses_sasl:
        return faust.SASLCredentials(
            username=security.username,
            password=security.password,
            mechanism=security.mechanism,
            ssl_context=security.ssl_context() if security.uses_tls else None,
        )
    if security.uses_tls:
        return faust.SSLCredentials(security.ssl_context())
    return None
