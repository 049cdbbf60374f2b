"""The local broker's private CA and certificate, made once on first secured start (cryptography, EC P-256); why the key
is unencrypted PKCS#8: docs/operations.md."""

from __future__ import annotations

import datetime
import ipaddress
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from deploy.local.exceptions import InfraError

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


def ensure_tls(
    folder: Path,
    now: datetime.datetime | None = None,
    hostnames: tuple[str, ...] = (),
    broker_group: int | None = None,
) -> TlsFiles:
    """The CA and broker files under `folder`, made when any is missing (all are made again together); the broker
    certificate names `localhost`, `127.0.0.1` and `hostnames` (e.g. a container's name). broker_group: the group of
    a broker that runs as another user (a container image's): its key is readable by that group as well."""
    files = TlsFiles(folder)
    if not files.complete():
        if broker_group is None:
            folder.mkdir(parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        else:
            _require_shared_folder(folder, broker_group)
        _make(files, now, hostnames)
    if broker_group is not None:
        _share_with_broker(files, broker_group)
    return files


def _require_shared_folder(folder: Path, gid: int) -> None:
    """A folder shared with the broker's group is made by whoever may give it that group (the compose secure-volumes
    job): setgid, so every file made in it takes the group, and closed to everyone else."""
    info = folder.stat()
    if info.st_gid != gid or not info.st_mode & stat.S_ISGID or info.st_mode & 0o007:
        raise InfraError(
            f"{folder} must be a setgid folder of group {gid} that others cannot enter (mode 2750), "
            f"found group {info.st_gid} mode {stat.S_IMODE(info.st_mode):o}"
        )


def _share_with_broker(files: TlsFiles, gid: int) -> None:
    """The broker's key and keystore readable by its group too; the CA key stays its owner's alone."""
    for path in (files.broker_key, files.broker_keystore):
        try:
            os.chown(path, -1, gid)
        except PermissionError:
            raise InfraError(f"cannot give {path} to group {gid}: its folder must be setgid group {gid}") from None
        os.chmod(path, 0o640)
    os.chmod(files.ca_key, 0o600)


def publish_ca(files: TlsFiles, folder: Path) -> Path:
    """The CA certificate alone in `folder`, readable by all: what a client needs to trust the broker, and no key."""
    target = folder / files.ca_cert.name
    temporary = target.with_suffix(".tmp")
    temporary.write_bytes(files.ca_cert.read_bytes())
    os.chmod(temporary, 0o644)
    os.replace(temporary, target)
    return target


def _make(files: TlsFiles, now: datetime.datetime | None, hostnames: tuple[str, ...]) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID

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
