"""The secured local broker's principals: one SCRAM-SHA-512 user per role (made through the admin API, so users can be
added after the first format), the roles' ACLs and quotas, and each role's client files in .reelstream/clients/."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from deploy.local.exceptions import InfraError
from deploy.local.pki import TlsFiles
from shared.acls import apply_acls, apply_quotas
from shared.client_files import write_client_files
from shared.roles import ROLE_NAMES
from shared.security import ClientSecurity

MECHANISM = "SCRAM-SHA-512"
Echo = Callable[[str], None]


def clients_dir(state: Path) -> Path:
    return state / "clients"


def _password(folder: Path, role: str) -> str | None:
    """The role's password from its JSON file when there is one (restarts keep credentials), else None."""
    try:
        return json.loads((folder / f"{role}.json").read_text())["sasl_password"]
    except (OSError, ValueError, KeyError):
        return None


def role_security(tls: TlsFiles, role: str, password: str, client_ca: str | None = None) -> ClientSecurity:
    """client_ca: where the role's clients find the CA certificate, when not at the path this process reads it from
    (a container that mounts only the public CA)."""
    return ClientSecurity(
        protocol="SASL_SSL",
        mechanism=MECHANISM,
        username=role,
        password=password,
        ca_file=client_ca or str(tls.ca_cert),
        source=role,
    )


def _upsert(admin, passwords: dict[str, str]) -> None:
    from kafka.admin import ScramMechanism, UserScramCredentialUpsertion

    upserts = [
        UserScramCredentialUpsertion(role, ScramMechanism.SCRAM_SHA_512, password)
        for role, password in passwords.items()
    ]
    failed = {user: error for user, error in admin.alter_user_scram_credentials(upserts).items() if error}
    if failed:
        raise InfraError(f"the broker refused SCRAM users: {failed}")


def add_principals(admin, roles: Iterable[str], template: ClientSecurity, bootstrap: str, folder: Path) -> list[str]:
    """SCRAM users for those of `roles` without client files in `folder` (roles the code gained after the broker was
    provisioned, e.g. a new operator's game-client.<O>), with fresh passwords and their client files written
    (`template`: any role's settings, for the protocol and the CA). No ACLs: those come per prefix or from
    `reelstream acl apply`. Returns the roles made."""
    passwords = {role: secrets.token_urlsafe(24) for role in roles if _password(folder, role) is None}
    if passwords:
        _upsert(admin, passwords)
    for role, password in passwords.items():
        security = replace(template, username=role, password=password, source=role)
        write_client_files(folder, role, security, bootstrap)
    return list(passwords)


def remove_principals(admin, roles: Iterable[str]) -> None:
    """Delete these SCRAM users (what `add_principals` made for a test)."""
    from kafka.admin import ScramMechanism, UserScramCredentialDeletion

    deletions = [UserScramCredentialDeletion(role, ScramMechanism.SCRAM_SHA_512) for role in roles]
    failed = {user: error for user, error in admin.alter_user_scram_credentials(deletions).items() if error}
    if failed:
        raise InfraError(f"the broker refused to delete SCRAM users: {failed}")


def provision(
    admin,
    state: Path,
    tls: TlsFiles,
    bootstrap: str,
    echo: Echo,
    folder: Path | None = None,
    client_ca: str | None = None,
) -> Path:
    """Upsert every role's SCRAM user, apply the un-prefixed ACLs and the quotas, write the client files (into
    `folder`, by default the state's clients/; naming `client_ca` as the CA, by default the broker's)."""
    folder = folder or clients_dir(state)
    known = {role: _password(folder, role) for role in ROLE_NAMES}
    passwords = {role: password or secrets.token_urlsafe(24) for role, password in known.items()}
    _upsert(admin, passwords)
    reports = apply_acls(admin)
    apply_quotas(admin)
    for role, password in passwords.items():
        write_client_files(folder, role, role_security(tls, role, password, client_ca), bootstrap)
    created, new_users = sum(len(report.created) for report in reports), sum(p is None for p in known.values())
    if created or new_users:  # a restart with nothing new stays quiet
        echo(f"kafka: {new_users} new SCRAM users, {created} ACLs created, quotas set; client settings in {folder}")
    return folder
