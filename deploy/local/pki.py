"""The local broker's private CA and certificate, made once on first secured start (cryptography, EC P-256).

The broker key is unencrypted PKCS#8 (Java 17 cannot read the PBES2 that `BestAvailableEncryption` writes) in a 0600
file beside its certificate chain: Kafka 3.9 reads that PEM file as its keystore, the CA certificate as truststore.
The same certificate authenticates the broker to its own controller and inter-broker listeners (mTLS).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

BROKER_CN = "reelstream-broker"
CA_CN = "reelstream local CA"
VALID_DAYS = 3650


@dataclass(frozen=True)
class TlsFiles:
    folder: Path

    @property
    def ca_cert(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca.key"

    @property
    def broker_cert(self) -> Path:
        return self.folder / "broker.crt"

    @property
    def broker_key(self) -> Path:
        return self.folder / "broker.key"

    @property
    def broker_keystore(self) -> Path:
        """Key and certificate chain in one PEM file: Kafka's `ssl.keystore.type=PEM` location."""
        return self.folder / "broker.pem"

    @property
    def principal(self) -> str:
        return f"User:CN={BROKER_CN}"

    def complete(self) -> bool:
        return all(
            path.exists()
            for path in (self.ca_cert, self.ca_key, self.broker_cert, self.broker_key, self.broker_keystore)
        )


def _name(common_name: str):
    from cryptography.x509.oid import NameOID
    from cryptography import x509

    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _pkcs8(key) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _write_private(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


def ensure_tls(folder: Path, now: datetime.datetime | None = None, hostnames: tuple[str, ...] = ()) -> TlsFiles:
    """The CA and broker files under `folder`, made when any is missing (all are made again together); the broker
    certificate names `localhost`, `127.0.0.1` and `hostnames` (e.g. a container's name)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

    files = TlsFiles(folder)
    if files.complete():
        return files
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    start = (now or datetime.datetime.now(datetime.timezone.utc)) - datetime.timedelta(minutes=5)
    end = start + datetime.timedelta(days=VALID_DAYS)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(_name(CA_CN))
        .issuer_name(_name(CA_CN))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                key_cert_sign=True,
                crl_sign=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    broker_key = ec.generate_private_key(ec.SECP256R1())
    names = [x509.DNSName(name) for name in ("localhost", *hostnames)]
    sans = x509.SubjectAlternativeName(names + [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    broker_cert = (
        x509.CertificateBuilder()
        .subject_name(_name(BROKER_CN))
        .issuer_name(ca_cert.subject)
        .public_key(broker_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(end)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(sans, critical=False)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    _write_private(files.ca_key, _pkcs8(ca_key))
    _write_private(files.broker_key, _pkcs8(broker_key))
    chain = broker_cert.public_bytes(pem) + ca_cert.public_bytes(pem)
    _write_private(files.broker_keystore, _pkcs8(broker_key) + chain)
    files.broker_cert.write_bytes(chain)
    files.ca_cert.write_bytes(ca_cert.public_bytes(pem))
    return files
