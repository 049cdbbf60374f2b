"""What docker-compose.yml and the image's Dockerfile must hold, as rules over their text (no Docker needed), each
naming the problems it finds (tests/unit/deploy/test_compose.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
APP_UID = "10001"  # the image's user (deploy/docker/Dockerfile `USER 10001`)
SECRET_NAME = re.compile(r"SECRET|PASSWORD|TOKEN|KEYS?\b|_KEY_", re.I)
# Jobs of the secure profile that may mount the private-key volume: the broker reads its key, the PKI job writes
# them, the provisioning job connects as the broker (a super user) to make the users; no application service.
KEY_HOLDERS = frozenset({"secure-volumes", "secure-pki", "secure-provision", "kafka-secure"})
# The secure profile's network with no route off the host, which every one of its containers joins; and the one
# service that may also join a network with a route out: the seamless saga, to call the operators' wallets.
INTERNAL_NETWORK = "secure-internal"
LEAVES_THE_HOST = frozenset({"seamless-saga-secure"})
NO_NAT_OUT = "com.docker.network.bridge.enable_ip_masquerade"

Compose = dict
Rule = Callable[[Compose, str], Iterator[str]]


def services(compose: Compose) -> dict[str, dict]:
    return compose.get("services", {})


def mounts(service: dict) -> dict[str, str]:
    """container path -> source (a volume name or a host path) of a service's mounts."""
    return {target: source for target, (source, _) in mounted(service).items()}


def mounted(service: dict) -> dict[str, tuple[str, str | None]]:
    """container path -> (source, the volume's subpath or None), from the short and the long syntax."""
    found = {}
    for entry in service.get("volumes", []):
        if isinstance(entry, dict):
            found[entry["target"]] = (entry["source"], entry.get("volume", {}).get("subpath"))
        else:
            source, target = entry.split(":")[:2]
            found[target] = (source, None)
    return found


def command(service: dict) -> list[str]:
    words = service.get("command", [])
    return words.split() if isinstance(words, str) else list(words)


def is_app(service: dict) -> bool:
    """A long-running reelstream service (not a one-shot job)."""
    return service.get("image") == "reelstream:local" and command(service)[:2] == ["services", "run"]


def pinned_images(compose: Compose, dockerfile: str) -> Iterator[str]:
    for name, service in services(compose).items():
        image = service.get("image", "")
        tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
        if "@sha256:" not in image and (not tag or tag == "latest"):
            yield f"{name}: image {image!r} is not pinned to a version"
    for line in re.findall(r"^FROM\s+(\S+)", dockerfile, re.M):
        tag = line.rsplit(":", 1)[1] if ":" in line.rsplit("/", 1)[-1] else ""
        if "@sha256:" not in line and (not tag or tag == "latest"):
            yield f"Dockerfile: FROM {line} is not pinned to a version"


def no_secret_defaults(compose: Compose, dockerfile: str) -> Iterator[str]:
    """A secret has no default in the source: `${VAR:?why}` makes the operator set it."""
    for name, service in services(compose).items():
        environment = service.get("environment", {})
        for variable, value in environment.items() if isinstance(environment, dict) else ():
            for reference, operator in re.findall(r"\$\{(\w+)(:?[-=?+]?)", str(value)):
                secret = SECRET_NAME.search(variable) or SECRET_NAME.search(reference)
                if secret and operator not in (":?", "?"):
                    yield f"{name}: secret {variable} has a default in the source (${{{reference}{operator}...}})"


def pinned_pip(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Every package the image installs is pinned by constraints.txt (pip itself by its version)."""
    for step in re.findall(r"pip install[^&\n\\]*", dockerfile):
        if re.fullmatch(r"pip install --upgrade pip==[\d.]+\s*", step):
            continue
        if "-c constraints.txt" not in step:
            yield f"Dockerfile: `{step.strip()}` installs without -c constraints.txt"


def image_health_check(compose: Compose, dockerfile: str) -> Iterator[str]:
    if not re.search(r"^HEALTHCHECK\b.*\n?.*shared\.observability\.probe\", \"ready\"", dockerfile, re.M):
        yield "Dockerfile: no HEALTHCHECK on the service's /ready"
    if not re.search(r"^USER (?!root\b|0\b)\S+", dockerfile, re.M):
        yield "Dockerfile: the image runs as root"


def health_checks(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Every long-running service is probed (one-shot jobs are waited for to complete instead)."""
    for name, service in services(compose).items():
        if service.get("restart") == "no":
            continue
        check = service.get("healthcheck")
        if not check or check.get("disable") or check.get("test", [""])[0] not in ("CMD", "CMD-SHELL"):
            yield f"{name}: no health check"


def monitors_probe_their_port(compose: Compose, dockerfile: str) -> Iterator[str]:
    """The monitor serves /ready on faust's web port (its published container port), not on REELSTREAM_HTTP_PORT."""
    for name, service in services(compose).items():
        if command(service) == ["services", "run", "monitor"]:
            port = service.get("ports", ["?:?"])[0].rsplit(":", 1)[1]
            if service.get("healthcheck", {}).get("test", [])[-2:] != ["ready", port]:
                yield f"{name}: its health check does not probe /ready on its web port {port}"


def brokers(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Kafka keeps its log on a named volume; a broker with an authorizer denies what no ACL allows."""
    for name, service in services(compose).items():
        if not service.get("image", "").startswith("apache/kafka"):
            continue
        env = service.get("environment", {})
        log_dirs = env.get("KAFKA_LOG_DIRS")
        if log_dirs is None or mounts(service).get(log_dirs) not in compose.get("volumes", {}):
            yield f"{name}: Kafka's log dir {log_dirs or '/tmp/kraft-combined-logs'} is not on a named volume"
        if "KAFKA_AUTHORIZER_CLASS_NAME" in env and str(env.get("KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND")) != "false":
            yield f"{name}: KAFKA_ALLOW_EVERYONE_IF_NO_ACL_FOUND is not false: a resource without ACLs is open"


def one_projector_per_database(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Projectors that run together (unprofiled ones, and a profile's beside them) write different databases."""
    projectors = [s for s in services(compose).values() if command(s) == ["services", "run", "projector"]]
    for profile in {p for s in projectors for p in s.get("profiles", [])} | {None}:
        running = [s for s in projectors if not s.get("profiles") or profile in s.get("profiles", [])]
        urls = [s.get("environment", {}).get("DATABASE_URL") for s in running]
        if len(set(urls)) < len(urls):
            yield f"profile {profile or 'default'}: two projectors write the one database {urls[0]}"


def private_keys_stay_with_the_broker(compose: Compose, dockerfile: str) -> Iterator[str]:
    """The CA's and the broker's private keys (the folder `infra pki` writes) reach no application service."""
    for writer in services(compose).values():
        words = command(writer)
        if words[:2] != ["infra", "pki"]:
            continue
        volume = mounts(writer).get(words[2])
        for name, service in services(compose).items():
            if volume in mounts(service).values() and name not in KEY_HOLDERS:
                yield f"{name}: mounts {volume!r}, the volume with the CA key and the broker key"


def secure_volumes_owned(compose: Compose, dockerfile: str) -> Iterator[str]:
    """The jobs writing the secure volumes run as the image's user on folders given to it first; the broker reads its
    key as the group the PKI job shares it with."""
    jobs = services(compose)
    init = jobs.get("secure-volumes", {})
    script = " ".join(command(init))
    if init.get("cap_add") != ["CHOWN"] or init.get("cap_drop") != ["ALL"] or init.get("network_mode") != "none":
        yield "secure-volumes: runs as root with more than CAP_CHOWN or with a network"
    for name in ("secure-pki", "secure-signing", "secure-provision"):
        job = jobs.get(name, {})
        if str(job.get("user", APP_UID)).split(":")[0] not in (APP_UID, "reelstream"):
            yield f"{name}: does not run as the image's user {APP_UID}"
        for volume in mounts(job).values():
            if volume in compose.get("volumes", {}) and f":/{volume}" not in " ".join(init.get("volumes", [])):
                yield f"{name}: writes volume {volume!r}, which secure-volumes does not give to {APP_UID}"
    pki = command(jobs.get("secure-pki", {}))
    group = pki[pki.index("--broker-group") + 1] if "--broker-group" in pki else None
    broker_user = str(jobs.get("kafka-secure", {}).get("user", ""))
    if group is None or broker_user.split(":")[-1] != group or f"chown {APP_UID}:{group} /pki" not in script:
        yield f"kafka-secure: runs as {broker_user or 'the image user'}, not the group the broker key is shared with"


def secure_services_sign(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Every secure service signs and verifies: its signing folder is the volume the signing job writes keys into."""
    signing_job = services(compose).get("secure-signing", {})
    folder = signing_job.get("environment", {}).get("REELSTREAM_SIGNING_DIR")
    volume = mounts(signing_job).get(folder) if folder else None
    if command(signing_job) != ["signing", "generate"] or volume is None:
        yield "secure-signing: makes no signing keys on a volume"
    for name, service in services(compose).items():
        if "secure" in service.get("profiles", []) and is_app(service):
            target = service.get("environment", {}).get("REELSTREAM_SIGNING_DIR")
            if not target or mounts(service).get(target) != volume:
                yield f"{name}: REELSTREAM_SIGNING_DIR is not the signing job's volume: nothing signed or verified"


def own_credentials_only(compose: Compose, dockerfile: str) -> Iterator[str]:
    """A secure service mounts its own role's client file and its own signing key alone (the subpaths secure-mounts
    lays out), never the whole `clients` or `signing` volume: another role's password or key is not its to read."""
    layout = " ".join(command(services(compose).get("secure-mounts", {})))
    for name, service in services(compose).items():
        if "secure" not in service.get("profiles", []) or not (is_app(service) or command(service)[:1] == ["topics"]):
            continue
        role = command(service)[2] if is_app(service) else "admin"
        wanted = {"clients": f"by-role/{role}", "signing": f"by-writer/{role if is_app(service) else 'projector'}"}
        for target, (source, subpath) in mounted(service).items():
            if source in wanted and subpath != wanted[source]:
                yield f"{name}: mounts {source}:{subpath or '/'} at {target}, not its own {wanted[source]} alone"
            elif source in wanted and f"/{source}/{wanted[source].split('/')[0]}/" not in layout:
                yield f"{name}: {source}:{subpath} is no folder secure-mounts lays out"
        config = service.get("environment", {}).get("REELSTREAM_KAFKA_CLIENT_CONFIG", "")
        if not config.endswith(f"/{role}.json") or "REELSTREAM_KAFKA_CLIENTS_DIR" in service.get("environment", {}):
            yield f"{name}: does not connect with its own role's client file ({config or 'none named'})"


def operators_file(compose: Compose, dockerfile: str) -> Iterator[str]:
    """Every reelstream container names its operators file, one the image carries (deploy/ is copied to /app)."""
    for name, service in services(compose).items():
        if service.get("image") != "reelstream:local" or "entrypoint" in service:  # not a reelstream command
            continue
        path = service.get("environment", {}).get("REELSTREAM_OPERATORS_FILE", "")
        if not path.startswith("/app/deploy/operators/") or not (ROOT / path.removeprefix("/app/")).is_file():
            yield f"{name}: REELSTREAM_OPERATORS_FILE {path!r} is not an operators file of the image"


def secure_services_run_every_workload(compose: Compose, dockerfile: str) -> Iterator[str]:
    """The secure profile runs each service a cluster runs (deploy/k8s/workloads.py), the seamless saga included."""
    from deploy.k8s.workloads import WORKLOADS

    running = {
        command(service)[2]
        for service in services(compose).values()
        if "secure" in service.get("profiles", []) and is_app(service)
    }
    for w in WORKLOADS:
        if w.name not in running:
            yield f"the secure profile runs no `services run {w.name}`"


def without_route_out(network: dict | None) -> bool:
    """A network its containers cannot leave the host by: internal, or a bridge that does not NAT their traffic out
    (a published port still reaches them from the host). Compose's implicit `default` network has a route out."""
    network = network or {}
    return network.get("internal") is True or str((network.get("driver_opts") or {}).get(NO_NAT_OUT)) == "false"


def only_the_saga_leaves(compose: Compose, dockerfile: str) -> Iterator[str]:
    """In the secure profile only the seamless saga reaches past the host (the operators' wallets): the internal
    network stays internal, every other container joins networks without a route out, and each joins the internal
    one (or none at all)."""
    declared = compose.get("networks") or {}
    if (declared.get(INTERNAL_NETWORK) or {}).get("internal") is not True:
        yield f"network {INTERNAL_NETWORK}: not `internal: true`, so every secure container has a route off the host"
    for name, service in services(compose).items():
        mode = service.get("network_mode")
        if "secure" not in service.get("profiles", []) or mode == "none":
            continue
        if mode is not None and name not in LEAVES_THE_HOST:
            yield f"{name}: network_mode {mode}, a route out; only {', '.join(sorted(LEAVES_THE_HOST))} leaves the host"
        joined = list(service.get("networks") or ["default"])
        if INTERNAL_NETWORK not in joined:
            yield f"{name}: not on {INTERNAL_NETWORK}"
        leaving = [network for network in joined if not without_route_out(declared.get(network))]
        if leaving and name not in LEAVES_THE_HOST:
            yield f"{name}: joins {', '.join(leaving)}, a network with a route out; only the saga's may leave the host"


RULES: tuple[Rule, ...] = (
    pinned_images,
    no_secret_defaults,
    pinned_pip,
    image_health_check,
    health_checks,
    monitors_probe_their_port,
    brokers,
    one_projector_per_database,
    private_keys_stay_with_the_broker,
    secure_volumes_owned,
    secure_services_sign,
    own_credentials_only,
    operators_file,
    secure_services_run_every_workload,
    only_the_saga_leaves,
)


def problems(compose_text: str, dockerfile: str) -> list[str]:
    compose = yaml.safe_load(compose_text)
    return [problem for rule in RULES for problem in rule(compose, dockerfile)]
