"""The compose secure profile's jobs, run here the way compose runs them (no Docker engine needed).

Scenario: one folder per named volume, made the way Docker makes a named volume (root-owned, 0755). The
secure-volumes job's script runs as root with CAP_CHOWN alone (twice: a second `up` must change nothing); the
secure-pki and secure-signing jobs' commands run through the reelstream CLI as uid/gid 10001 with no other group
(the image's user). Then each key file's owner and mode are checked, the broker key is readable by the Kafka image's
user (1000:1000) and by no other, and no volume an application service mounts holds a PEM private key. The
provisioning job needs a running broker: only its file writes run here (each role's client files, as uid 10001,
naming the CA path compose passes); the SCRAM users and ACLs it makes are covered by tests/integration/security.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from deploy.compose_check import command, is_app, mounted, mounts

ROOT = Path(__file__).resolve().parents[3]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP = 10001  # the image's USER (deploy/docker/Dockerfile)
STRANGER = 10002


def user_of(service: str, image_user: str | None = f"{APP}:{APP}") -> tuple[int, int]:
    """The uid and gid a service runs as: its compose `user`, else its image's."""
    user = str(SERVICES[service].get("user", image_user))
    assert user and user != "None", f"{service} names no user and its image's is not known here"
    uid, _, gid = user.partition(":")
    return int(uid), int(gid or uid)


def broker() -> tuple[int, int]:
    return user_of("kafka-secure", image_user=None)


pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="runs jobs as other users: needs root and setpriv"
)


def as_user(uid: int, gid: int, action: Callable[[], int | None], env: dict[str, str] | None = None) -> int:
    """Run `action` in a forked child as uid/gid with no supplementary group (setpriv --clear-groups), umask 022 as in
    a container; its exit code (0 when it returns None). A fork, not a new interpreter: the interpreter's own files
    need not be readable by that user (here they live under /root)."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            os.umask(0o022)
            os.environ.update(env or {})
            code = action() or 0
        except BaseException:  # the child must never return into pytest
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def cli(argv: list[str]) -> Callable[[], int]:
    from reelstream.cli import run

    return lambda: run(argv)


def readable(path: Path) -> Callable[[], int]:
    def read() -> int:
        try:
            path.read_bytes()
            return 0
        except PermissionError:
            return 13

    return read


class Volumes:
    """Host folders standing for the compose file's named volumes, and each service's paths translated to them."""

    def __init__(self, base: Path) -> None:
        self.base = base
        for name in COMPOSE["volumes"]:
            (base / name).mkdir(mode=0o755)
            os.chmod(base / name, 0o755)  # as Docker makes them: root-owned, 0755 (whatever the umask)

    def of(self, service: str) -> dict[str, Path]:
        """container path -> host folder of a service's named-volume mounts."""
        return {
            target: self.base / source / (subpath or "")
            for target, (source, subpath) in mounted(SERVICES[service]).items()
            if "/" not in source
        }

    def translate(self, service: str, text: str) -> str:
        """`text` with the service's mount points replaced by their host folders."""
        places = self.of(service)
        pattern = "|".join(re.escape(target) for target in sorted(places, key=len, reverse=True))
        return re.sub(rf"(?<![\w/])({pattern})(?=/|\s|$)", lambda m: str(places[m.group(1)]), text)

    def argv(self, service: str) -> list[str]:
        return [self.translate(service, word) for word in command(SERVICES[service])]

    def env(self, service: str, *names: str) -> dict[str, str]:
        environment = SERVICES[service].get("environment", {})
        return {name: self.translate(service, environment[name]) for name in names}


@pytest.fixture(scope="module")
def volumes():
    """Every secure job run once on fresh volume folders (imports warmed as root first: a child cannot read them)."""
    from deploy.local.pki import ensure_tls, publish_ca
    from reelstream.cli import run
    from shared import signing

    base = Path(tempfile.mkdtemp(prefix="compose-volumes-", dir="/tmp"))
    os.chmod(base, 0o755)
    try:
        warm = base / "warm"
        publish_ca(ensure_tls(warm / "pki"), warm)
        signing.generate(warm / "signing", writers=("spin",))
        assert run(["signing", "--help"]) == 0
        found = Volumes(base)
        script = found.translate("secure-volumes", command(SERVICES["secure-volumes"])[0])
        entry = SERVICES["secure-volumes"]["entrypoint"]
        for _ in range(2):  # `up` again changes nothing
            subprocess.run(
                ["setpriv", "--bounding-set=-all,+chown", "--inh-caps=-all", "--", *entry, script],
                check=True,
                capture_output=True,
            )
        assert as_user(*user_of("secure-pki"), cli(found.argv("secure-pki"))) == 0
        signing_env = found.env("secure-signing", "REELSTREAM_SIGNING_DIR")
        assert as_user(*user_of("secure-signing"), cli(found.argv("secure-signing")), env=signing_env) == 0
        _provisioned_role_files(found)
        script = found.translate("secure-mounts", command(SERVICES["secure-mounts"])[0]).replace("$$", "$")
        mounts_job = ["setpriv", f"--reuid={APP}", f"--regid={APP}", "--clear-groups", "--", "sh", "-euc", script]
        subprocess.run(mounts_job, check=True, capture_output=True)
        yield found
    finally:
        shutil.rmtree(base)


def _provisioned_role_files(volumes: Volumes) -> None:
    """What the provisioning job writes into the `clients` volume (as the image's user), for every role a secure
    container connects as; its broker calls are not run here."""
    from deploy.local.pki import TlsFiles
    from deploy.local.principals import role_security
    from shared.client_files import write_client_files

    words = command(SERVICES["secure-provision"])
    option = dict(zip(words[2::2], words[3::2]))
    clients = Path(volumes.translate("secure-provision", option["--clients"]))
    tls = TlsFiles(Path(volumes.translate("secure-provision", option["--tls-dir"])))

    def write() -> None:
        for role in ("admin", "spin", "wallet", "jackpot", "projector", "monitor", "seamless-saga"):
            security = role_security(tls, role, f"{role}-pw" * 4, option["--client-ca"])
            write_client_files(clients, role, security, "k:19092")

    assert as_user(*user_of("secure-provision"), write) == 0


def test_each_secure_container_mounts_its_own_credential_and_key_alone(volumes):
    """The subpaths secure-mounts lays out: a container's client folder holds its role's file alone (its password,
    no one else's), its signing folder the public ring and its own key alone (the projector's, the ring only)."""
    from deploy.k8s.workloads import WORKLOADS

    signers = {w.name for w in WORKLOADS if w.signs}
    checked = 0
    for name, service in SERVICES.items():
        if "secure" not in service.get("profiles", []) or not (is_app(service) or name == "secure-topics"):
            continue
        role = command(service)[2] if is_app(service) else "admin"
        places = volumes.of(name)
        config = Path(service["environment"]["REELSTREAM_KAFKA_CLIENT_CONFIG"])
        client_folder = places[str(config.parent)]
        assert sorted(p.name for p in client_folder.iterdir()) == [f"{role}.json"], name
        assert f'"{role}-pw' in (client_folder / f"{role}.json").read_text(), name
        keys = sorted(p.name for p in places[service["environment"]["REELSTREAM_SIGNING_DIR"]].iterdir())
        own = [f"{role}.key.json"] if role in signers else []
        assert keys == sorted(["public.json", *own]), name
        assert as_user(APP, APP, readable(client_folder / f"{role}.json")) == 0
        checked += 1
    assert checked == 7


def _owner_mode(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)


def test_the_private_key_volume_is_the_apps_user_s_shared_with_the_broker_s_group_alone(volumes):
    pki = volumes.of("secure-pki")["/pki"]
    assert _owner_mode(pki) == (APP, broker()[1], 0o2750)
    assert _owner_mode(pki / "ca.key")[::2] == (APP, 0o600)
    for name in ("broker.key", "broker.pem"):
        assert _owner_mode(pki / name) == (APP, broker()[1], 0o640), name
    for name in ("ca.pem", "broker.crt"):
        assert _owner_mode(pki / name)[::2] == (APP, 0o644), name


def test_the_broker_reads_its_key_and_the_ca_and_nobody_else_reads_a_key(volumes):
    pki = volumes.of("kafka-secure")["/pki"]
    env = SERVICES["kafka-secure"]["environment"]
    keystore = Path(volumes.translate("kafka-secure", env["KAFKA_SSL_KEYSTORE_LOCATION"]))
    truststore = Path(volumes.translate("kafka-secure", env["KAFKA_SSL_TRUSTSTORE_LOCATION"]))
    assert as_user(*broker(), readable(keystore)) == 0
    assert as_user(*broker(), readable(truststore)) == 0
    assert as_user(*broker(), readable(pki / "ca.key")) == 13
    assert as_user(STRANGER, STRANGER, readable(keystore)) == 13
    assert as_user(STRANGER, STRANGER, readable(pki / "broker.key")) == 13
    assert as_user(APP, APP, readable(keystore)) == 0  # the provisioning job connects with it (a super user)


def test_the_public_volume_holds_the_ca_certificate_alone_and_the_signing_keys_are_the_apps_user_s(volumes):
    tls = volumes.of("secure-pki")["/tls"]
    assert sorted(path.name for path in tls.iterdir()) == ["ca.pem"]
    assert _owner_mode(tls / "ca.pem")[::2] == (APP, 0o644)
    assert (tls / "ca.pem").read_bytes() == (volumes.of("secure-pki")["/pki"] / "ca.pem").read_bytes()
    keys = volumes.of("secure-signing")["/signing"]
    assert _owner_mode(keys)[::2] == (APP, 0o700)
    private = sorted(keys.glob("*.key.json"))
    assert {path.name.removesuffix(".key.json") for path in private} >= {"spin", "wallet", "jackpot", "monitor"}
    assert all(_owner_mode(path)[::2] == (APP, 0o600) for path in private)
    assert (keys / "public.json").is_file()


def test_the_provisioning_jobs_role_files_are_the_apps_user_s_and_name_the_ca_the_apps_mount(volumes):
    from deploy.local.pki import TlsFiles
    from deploy.local.principals import role_security
    from shared.client_files import write_client_files

    words = command(SERVICES["secure-provision"])
    option = dict(zip(words[2::2], words[3::2]))
    clients = Path(volumes.translate("secure-provision", option["--clients"]))
    tls = TlsFiles(Path(volumes.translate("secure-provision", option["--tls-dir"])))

    def write() -> None:
        for role in ("wallet", "spin"):
            write_client_files(clients, role, role_security(tls, role, "pw" * 12, option["--client-ca"]), "k:19092")

    assert as_user(*user_of("secure-provision"), write) == 0
    assert _owner_mode(clients)[::2] == (APP, 0o700)
    assert all(_owner_mode(path)[::2] == (APP, 0o600) for path in clients.iterdir())
    for name, service in SERVICES.items():
        if is_app(service) and "secure" in service.get("profiles", []):
            ca = Path(option["--client-ca"])
            assert mounts(service)[str(ca.parent)] == mounts(SERVICES["secure-pki"])["/tls"], name
            assert mounts(service)["/client"] == "clients", name
            assert "REELSTREAM_KAFKA_CLIENTS_DIR" not in service["environment"], name


def test_no_application_service_mounts_a_volume_holding_a_ca_or_broker_key(volumes):
    checked = 0
    for name, service in SERVICES.items():
        if not is_app(service):
            continue
        for target, folder in volumes.of(name).items():
            for path in folder.rglob("*"):
                if path.is_file():
                    assert b"PRIVATE KEY-----" not in path.read_bytes(), (name, target, path.name)
                    checked += 1
    assert checked > 0  # the certificate, the role files and the signing keys were looked at
