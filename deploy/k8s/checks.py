"""The security and operational properties of a rendered deployment (a list of resources, as kustomize yields them),
checked without a cluster: `problems(resources, overlay)` names each broken property as `<check>: <what>`. Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from deploy.k8s import tenants
from deploy.k8s import workloads as wl
from deploy.k8s.manifests import OPEN_WAGER_AGE, OPEN_WAGER_ALERT, TAKEOVER, TAKEOVER_ALERT
from shared import operators
from shared.config import SAGA_TIME_LIMIT_MS
from shared.roles import AclRule, owner_write_problem
from shared.kafka import INSTANCE_ID_ENV, SESSION_TIMEOUT_ENV, SESSION_TIMEOUT_MS
from shared.topics import SEAMLESS_SAGA

Resource = dict[str, Any]
CHECKS: dict[str, Callable[[list[Resource], str], Iterator[str]]] = {}
# The Secrets a deployment may name: Strimzi's KafkaUser Secrets (checked against the KafkaUsers) and CA
# certificate, CloudNativePG's app Secret, and those the operator makes (docs/operations.md).
OPERATOR_SECRETS = {wl.SESSION_SECRET, wl.DROP_KEY_SECRET} | {wl.signing_secret(w.name) for w in wl.WORKLOADS}
MADE_SECRETS = {wl.CA_SECRET, wl.PG_SECRET} | OPERATOR_SECRETS


def check(name: str):
    def register(function):
        CHECKS[name] = function
        return function

    return register


def of_kind(resources: list[Resource], *kinds: str) -> list[Resource]:
    return [r for r in resources if r["kind"] in kinds]


def pods(resources: list[Resource]) -> Iterator[tuple[Resource, dict[str, Any]]]:
    for r in of_kind(resources, "Deployment", "StatefulSet", "DaemonSet", "Job"):
        yield r, r["spec"]["template"]["spec"]


def containers(resources: list[Resource]) -> Iterator[tuple[Resource, dict[str, Any], dict[str, Any]]]:
    for r, pod in pods(resources):
        for c in pod.get("initContainers", []) + pod["containers"]:
            yield r, pod, c


def env_of(c: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in c.get("env", [])}


def configmap_value(resources: list[Resource], name: str, key: str) -> str | None:
    found = [r for r in of_kind(resources, "ConfigMap") if r["metadata"]["name"] == name]
    return found[0].get("data", {}).get(key) if found else None


def mounted_file(resources: list[Resource], pod: dict, c: dict, path: str) -> tuple[str, str, str] | None:
    """Where a path in the container comes from: (configMap | secret, its name, its key); None when from no volume."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for mount in c.get("volumeMounts", []):
        prefix = mount["mountPath"].rstrip("/") + "/"
        if not path.startswith(prefix):
            continue
        relative, volume = path[len(prefix) :], volumes.get(mount["name"], {})
        sources = volume.get("projected", {}).get("sources", []) + [
            {kind: volume[kind]} for kind in ("configMap", "secret") if kind in volume
        ]
        for source in sources:
            for kind, ref in source.items():
                name = ref.get("name") or ref.get("secretName")
                items = ref.get("items") or [{"key": relative, "path": relative}]
                for item in items:
                    if item["path"] == relative:
                        return kind, name, item["key"]
    return None


def is_app(c: dict[str, Any]) -> bool:
    return c.get("image", "").startswith(wl.IMAGE.split(":")[0])


def configured_operators(resources: list[Resource]) -> tuple[operators.Operator, ...]:
    """The operators of the file the pods are given (OperatorsFileError when it is no valid operators file)."""
    text = configmap_value(resources, wl.OPERATORS_CONFIGMAP, "operators.json") or '{"operators": []}'
    return operators.parse(text.encode(), f"ConfigMap {wl.OPERATORS_CONFIGMAP}")


def seamless_wallets(resources: list[Resource]) -> dict[str, operators.SeamlessWallet]:
    """The seamless operators' wallets by operator id."""
    return {o.id: o.wallet for o in configured_operators(resources) if o.wallet is not None}


@check("kafka-authorization")
def _authorization(resources, overlay):
    users_with_acls = [u for u in of_kind(resources, "KafkaUser") if u["spec"].get("authorization", {}).get("acls")]
    for kafka in of_kind(resources, "Kafka"):
        if users_with_acls and kafka["spec"]["kafka"].get("authorization", {}).get("type") != "simple":
            yield f"KafkaUsers carry ACLs but Kafka {kafka['metadata']['name']} has no simple authorization"
        for user in kafka["spec"]["kafka"].get("authorization", {}).get("superUsers", []):
            yield f"Kafka super user {user}: a super user bypasses every DENY"


@check("kafkauser")
def _users(resources, overlay):
    for u in of_kind(resources, "KafkaUser"):
        if u["spec"].get("authentication", {}).get("type") != "scram-sha-512":
            yield f"KafkaUser {u['metadata']['name']} does not authenticate with SCRAM-SHA-512"
        if not u["spec"].get("authorization", {}).get("acls"):
            yield f"KafkaUser {u['metadata']['name']} has no ACLs"


@check("listener")
def _listeners(resources, overlay):
    for kafka in of_kind(resources, "Kafka"):
        for listener in kafka["spec"]["kafka"]["listeners"]:
            if not listener.get("tls") or listener.get("authentication", {}).get("type") != "scram-sha-512":
                yield f"listener {listener['name']} (port {listener['port']}) is not SCRAM-SHA-512 over TLS"


def _tls_ports(resources) -> set[int]:
    return {
        listener["port"]
        for kafka in of_kind(resources, "Kafka")
        for listener in kafka["spec"]["kafka"]["listeners"]
        if listener.get("tls")
    }


def _client_settings(resources, pod, c) -> tuple[dict[str, Any] | None, str]:
    path = env_of(c).get("REELSTREAM_KAFKA_CLIENT_CONFIG", {}).get("value")
    source = mounted_file(resources, pod, c, path) if path else None
    if source is None or source[0] != "configMap":
        return None, f"{c['name']}: REELSTREAM_KAFKA_CLIENT_CONFIG is not a mounted ConfigMap file"
    text = configmap_value(resources, source[1], source[2])
    return (json.loads(text), "") if text else (None, f"{c['name']}: ConfigMap {source[1]} has no {source[2]}")


@check("kafka-credentials")
def _credentials(resources, overlay):
    users = {u["metadata"]["name"] for u in of_kind(resources, "KafkaUser")}
    for _, pod, c in containers(resources):
        if not is_app(c):
            continue
        settings, problem = _client_settings(resources, pod, c)
        if settings is None:
            yield problem
            continue
        name = c["name"]
        if settings.get("security_protocol") != "SASL_SSL" or settings.get("sasl_mechanism") != "SCRAM-SHA-512":
            yield f"{name}: not SCRAM-SHA-512 over SASL_SSL"
        if settings.get("sasl_username") != name or name not in users:
            yield f"{name}: connects as {settings.get('sasl_username')!r}, not as its own KafkaUser"
        password = mounted_file(resources, pod, c, settings.get("sasl_password_file", ""))
        if password != ("secret", name, "password") or "sasl_password" in settings:
            yield f"{name}: the SCRAM password is not its KafkaUser Secret's `password`"
        if mounted_file(resources, pod, c, settings.get("ssl_ca_file", "")) != ("secret", wl.CA_SECRET, "ca.crt"):
            yield f"{name}: the CA is not {wl.CA_SECRET}'s ca.crt"
        bootstrap = env_of(c).get("KAFKA_BOOTSTRAP_SERVERS", {}).get("value", "")
        if int(bootstrap.rpartition(":")[2] or 0) not in _tls_ports(resources):
            yield f"{name}: KAFKA_BOOTSTRAP_SERVERS {bootstrap} is not a TLS listener"


@check("signing")
def _signing(resources, overlay):
    for _, pod, c in containers(resources):
        if not is_app(c):
            continue
        env = env_of(c)
        directory = env.get("REELSTREAM_SIGNING_DIR", {}).get("value")
        if not directory:
            yield f"{c['name']}: REELSTREAM_SIGNING_DIR is not set"
            continue
        if mounted_file(resources, pod, c, f"{directory}/public.json") is None:
            yield f"{c['name']}: no public.json in {directory}"
        for w in wl.WORKLOADS:
            if w.name != c["name"] or not w.signs:
                continue
            key, secret = f"{w.name}.key.json", wl.signing_secret(w.name)
            if mounted_file(resources, pod, c, f"{directory}/{key}") != ("secret", secret, key):
                yield f"{c['name']}: its signing key is not from the Secret {secret}"
        if overlay == "production" and _env_value(resources, env.get("REELSTREAM_ENV")) != "production":
            yield f"{c['name']}: REELSTREAM_ENV is not production in the production overlay"


def _env_value(resources, entry: dict[str, Any] | None) -> str | None:
    if entry is None:
        return None
    ref = entry.get("valueFrom", {}).get("configMapKeyRef")
    return configmap_value(resources, ref["name"], ref["key"]) if ref else entry.get("value")


@check("drop-key")
def _drop_key(resources, overlay):
    for _, _, c in containers(resources):
        if c["name"] == "jackpot":
            ref = env_of(c).get("REELSTREAM_JACKPOT_DROP_KEY", {}).get("valueFrom", {}).get("secretKeyRef")
            if not ref:
                yield "jackpot: REELSTREAM_JACKPOT_DROP_KEY is not from a Secret (else it is made in scratch)"


@check("secret-env")
def _secret_env(resources, overlay):
    wanted = {"spin": "REELSTREAM_SESSION_KEYS", "projector": "DATABASE_URL"}
    for _, _, c in containers(resources):
        variable = wanted.get(c["name"])
        if variable and "secretKeyRef" not in env_of(c).get(variable, {}).get("valueFrom", {}):
            yield f"{c['name']}: {variable} is not from a Secret"
        for name in env_of(c):
            if name.startswith("REELSTREAM_TEST_"):
                yield f"{c['name']}: test hook {name} set"


def _secret_refs(pod: dict, c: dict) -> Iterator[tuple[str, str | None]]:
    for e in c.get("env", []):
        ref = e.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            yield ref["name"], ref["key"]
    for volume in pod.get("volumes", []):
        sources = volume.get("projected", {}).get("sources", []) + ([volume] if "secret" in volume else [])
        for source in sources:
            if "secret" in source:
                ref = source["secret"]
                name = ref.get("name") or ref.get("secretName")
                keys = [item["key"] for item in ref.get("items", [])] or [None]
                yield from ((name, key) for key in keys)


@check("secrets")
def _secrets(resources, overlay):
    users = {u["metadata"]["name"] for u in of_kind(resources, "KafkaUser")}
    wallet_keys = {wl.seamless_key_secret(o) for o in _wallets_or_none(resources)}
    for _, pod, c in containers(resources):
        for name, key in _secret_refs(pod, c):
            if name not in MADE_SECRETS | users | wallet_keys:
                yield f"{c['name']}: Secret {name} is made by nobody"
            if name in wallet_keys and c["name"] != SEAMLESS_SAGA:
                yield f"{c['name']}: mounts {name}, a key only the seamless saga signs its wallet calls with"
            if key is None or key.endswith(".key") or name.endswith(("-cluster-ca", "-clients-ca")):
                yield f"{c['name']}: mounts {name}/{key or '*'} (a CA key or a whole Secret)"


def _wallets_or_none(resources: list[Resource]) -> dict[str, operators.SeamlessWallet]:
    try:
        return seamless_wallets(resources)
    except operators.OperatorsFileError:
        return {}  # the "seamless" check names it


@check("seamless")
def _seamless(resources, overlay):
    """The saga finds each seamless operator's call-signing key where the operators file says, from that operator's
    Secret (a ConfigMap would hand a private key to anyone who may read the namespace's configuration)."""
    try:
        wallets = seamless_wallets(resources)
    except operators.OperatorsFileError as error:
        yield str(error)
        return
    saga = [(pod, c) for _, pod, c in containers(resources) if c["name"] == SEAMLESS_SAGA]
    for operator_id, wallet in wallets.items():
        for pod, c in saga:
            wanted = ("secret", wl.seamless_key_secret(operator_id), "private.pem")
            if mounted_file(resources, pod, c, wallet.private_key_file) != wanted:
                yield f"{SEAMLESS_SAGA}: operator {operator_id}'s key {wallet.private_key_file} is not from {wanted[1]}"


@check("images")
def _images(resources, overlay):
    images = [c.get("image", "") for _, _, c in containers(resources)]
    images += [r["spec"].get("imageName", "") for r in of_kind(resources, "Cluster")]
    for image in images:
        tag = image.rpartition(":")[2] if ":" in image.rpartition("/")[2] else ""
        if "@sha256:" not in image and tag in ("", "latest"):
            yield f"image {image!r} is not pinned"


@check("pod-security")
def _pod_security(resources, overlay):
    for r, pod, c in containers(resources):
        context = {**pod.get("securityContext", {}), **c.get("securityContext", {})}
        if context.get("runAsNonRoot") is not True or context.get("allowPrivilegeEscalation") is not False:
            yield f"{c['name']}: not runAsNonRoot without privilege escalation"
        if "memory" not in c.get("resources", {}).get("limits", {}):
            yield f"{c['name']}: no memory limit"
        if pod.get("automountServiceAccountToken") is not False:
            yield f"{r['metadata']['name']}: mounts a service account token"
    for ns in of_kind(resources, "Namespace"):
        if ns["metadata"].get("labels", {}).get("pod-security.kubernetes.io/enforce") != "restricted":
            yield f"namespace {ns['metadata']['name']} does not enforce the restricted Pod Security Standard"


def _selects(policy: Resource, labels: dict[str, str]) -> bool:
    wanted = policy["spec"]["podSelector"].get("matchLabels", {})
    return all(labels.get(k) == v for k, v in wanted.items())


# The one way into a reelstream pod: Prometheus' namespace, on the metrics port.
_SCRAPED = {
    "from": [{"namespaceSelector": {"matchLabels": wl.METRICS_NAMESPACE}}],
    "ports": [{"protocol": "TCP", "port": wl.HTTP_PORT}],
}


@check("network")
def _network(resources, overlay):
    policies = of_kind(resources, "NetworkPolicy")
    if not any(not p["spec"]["podSelector"] and p["spec"].get("ingress") == [] for p in policies):
        yield "no default-deny ingress NetworkPolicy"
    for r, _ in pods(resources):
        labels = r["spec"]["template"]["metadata"]["labels"]
        types = {
            t for p in policies if _selects(p, labels) and p["spec"]["podSelector"] for t in p["spec"]["policyTypes"]
        }
        if types != {"Ingress", "Egress"}:
            yield f"{r['metadata']['name']}: no NetworkPolicy of its own for ingress and egress"
        for p in policies:
            if p["spec"]["podSelector"] and _selects(p, labels) and p["spec"].get("ingress", []) != [_SCRAPED]:
                yield f"{r['metadata']['name']}: let in by {p['metadata']['name']} from more than the metrics scraper"


def _egress_rules(policies: list[Resource], labels: dict[str, str]) -> Iterator[dict[str, Any]]:
    for p in policies:
        if p["spec"]["podSelector"] and _selects(p, labels) and "Egress" in p["spec"]["policyTypes"]:
            yield from p["spec"].get("egress", [])


def _wallet_addresses(resources: list[Resource]) -> dict[tuple[str, int], str]:
    """(CIDR, TCP port) -> the seamless operator whose wallet it is."""
    return {(cidr, w.port): o for o, w in _wallets_or_none(resources).items() for cidr in w.egress_cidrs}


@check("egress")
def _egress(resources, overlay):
    """No pod reaches anywhere, nor past the cluster, but the seamless saga, and it its operators' wallets alone
    (their declared CIDRs on their URLs' ports), each of them."""
    policies, wallets = of_kind(resources, "NetworkPolicy"), _wallet_addresses(resources)
    for r, _ in pods(resources):
        name, reached = r["metadata"]["name"], set()
        for rule in _egress_rules(policies, r["spec"]["template"]["metadata"]["labels"]):
            blocks = [peer["ipBlock"] for peer in rule.get("to") or [] if "ipBlock" in peer]
            ports = [(p.get("protocol", "TCP"), p.get("port")) for p in rule.get("ports") or []]
            if not rule.get("to"):
                yield f"{name}: an egress rule without `to` (open egress: anywhere, past the cluster too)"
            elif blocks and name != SEAMLESS_SAGA:
                yield f"{name}: egress past the cluster to {[b['cidr'] for b in blocks]}"
            elif blocks and not ports:
                yield f"{name}: egress to {[b['cidr'] for b in blocks]} on every port"
            for block in blocks if name == SEAMLESS_SAGA else ():
                for protocol, port in ports:
                    if (block["cidr"], port) not in wallets or protocol != "TCP" or block.get("except"):
                        yield f"{name}: egress to {block['cidr']} port {port}, no seamless operator's wallet"
                    reached.add((block["cidr"], port))
        if name == SEAMLESS_SAGA:
            for address, operator_id in sorted(wallets.items()):
                if address not in reached:
                    yield f"{name}: cannot reach operator {operator_id}'s wallet at {address[0]} port {address[1]}"
    for operator_id, wallet in _wallets_or_none(resources).items():
        if not wallet.egress_cidrs:
            yield f"operator {operator_id} is seamless but declares no egress_cidrs: no policy lets the saga reach it"


def _acl_atoms(user: Resource) -> set[tuple]:
    """A KafkaUser's ACLs, one (resource, operation, deny) each, however they are grouped."""
    return {
        (json.dumps(acl["resource"], sort_keys=True), operation, acl.get("type", "allow"))
        for acl in user["spec"].get("authorization", {}).get("acls", [])
        for operation in acl["operations"]
    }


@check("kafka-acls")
def _kafka_acls(resources, overlay):
    """Each KafkaUser holds its role's ACLs over this deployment's topics (shared/roles.py), no more."""
    try:
        ids = tuple(o.id for o in configured_operators(resources))
    except operators.OperatorsFileError:
        return  # the "seamless" check names it
    expected = {u["metadata"]["name"]: _acl_atoms(u) for u in tenants.kafka_users(ids)}
    for user in of_kind(resources, "KafkaUser"):
        name = user["metadata"]["name"]
        extra = _acl_atoms(user) - expected.get(name, set())
        if name not in expected:
            yield f"KafkaUser {name} is no role of this deployment"
        elif extra:
            yield f"KafkaUser {name} has ACLs beyond its role's: {sorted(extra)}"


@check("topic-owners")
def _topic_owners(resources, overlay):
    """No KafkaUser but a topic's owner may write what only the owner signs (shared/roles.py owner_write_problem),
    whatever the roles say: a compromised principal writes nothing the readers would take as another writer's."""
    for user in of_kind(resources, "KafkaUser"):
        name = user["metadata"]["name"]
        for acl in user["spec"].get("authorization", {}).get("acls", []):
            target = acl["resource"]
            if target["type"] != "topic":
                continue
            pattern = "PREFIXED" if target.get("patternType") == "prefix" else "LITERAL"
            permission = acl.get("type", "allow").upper()
            for operation in acl["operations"]:
                rule = AclRule(f"User:{name}", "TOPIC", target["name"], pattern, operation.upper(), permission)
                problem = owner_write_problem(rule)
                if problem is not None:
                    yield f"KafkaUser {problem}"


def by_workload(resources: list[Resource]) -> Iterator[tuple[wl.Workload, Resource | None]]:
    """Each declared workload with its rendered resource (None: missing)."""
    found = {r["metadata"]["name"]: r for r, _ in pods(resources)}
    return ((w, found.get(w.name)) for w in wl.WORKLOADS)


@check("workloads")
def _workloads(resources, overlay):
    for w, r in by_workload(resources):
        if r is None:
            yield f"{w.name}: no workload"
            continue
        if w.group_member:
            ref = env_of(r["spec"]["template"]["spec"]["containers"][0]).get(INSTANCE_ID_ENV, {})
            if (
                r["kind"] != "StatefulSet"
                or ref.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") != "metadata.name"
            ):
                yield f"{w.name}: not a StatefulSet with REELSTREAM_INSTANCE_ID from the pod name"
        if r["spec"].get("volumeClaimTemplates"):
            yield f"{w.name}: keeps state on a volume"
        if w.name == "projector" and (r["kind"] != "StatefulSet" or r["spec"]["replicas"] != 1):
            yield "projector: not a single-replica StatefulSet"
        if not r["spec"]["template"]["spec"].get("topologySpreadConstraints"):
            yield f"{w.name}: no topology spread"


@check("failure-detector")
def _failure_detector(resources, overlay):
    """A money service's killed pod holds its partitions for the session timeout at most: the bound the recovery in
    docs/operations.md is stated with, written out in each pod (a default could change under it)."""
    for w, r in by_workload(resources):
        if r is None or not w.group_member:
            continue
        entry = env_of(r["spec"]["template"]["spec"]["containers"][0]).get(SESSION_TIMEOUT_ENV, {})
        value = entry.get("value")
        if value is None or not str(value).isdigit():
            yield f"{w.name}: no literal {SESSION_TIMEOUT_ENV}"
        elif int(value) > SESSION_TIMEOUT_MS:
            yield f"{w.name}: session timeout {value} ms above the stated bound of {SESSION_TIMEOUT_MS} ms"


@check("replication")
def _replication(resources, overlay):
    for kafka in of_kind(resources, "Kafka"):
        if int(kafka["spec"]["kafka"]["config"].get("min.insync.replicas", 1)) < 2:
            yield "Kafka min.insync.replicas below 2"
    for topic in of_kind(resources, "KafkaTopic"):
        if topic["spec"]["replicas"] < 3 or int(topic["spec"]["config"].get("min.insync.replicas", 1)) < 2:
            yield f"topic {topic['spec']['topicName']}: replicas below 3 or min.insync.replicas below 2"


@check("monitoring")
def _monitoring(resources, overlay):
    for r in of_kind(resources, "ServiceMonitor", "PrometheusRule"):
        if "release" not in r["metadata"].get("labels", {}):
            yield f"{r['kind']} {r['metadata']['name']} has no `release` label for Prometheus to select it"
    alerts = {
        rule.get("alert"): rule
        for r in of_kind(resources, "PrometheusRule")
        for g in r["spec"]["groups"]
        for rule in g["rules"]
    }
    for needed in (
        "ReelstreamConsumerLag",
        "ReelstreamNotReady",
        "ReelstreamDeadLetters",
        OPEN_WAGER_ALERT,
        TAKEOVER_ALERT,
        "KafkaUnderReplicatedPartitions",
    ):
        if needed not in alerts:
            yield f"no alert {needed}"
    if OPEN_WAGER_ALERT in alerts:
        yield from _open_wager_alert(alerts[OPEN_WAGER_ALERT])
    if TAKEOVER_ALERT in alerts:
        yield from _takeover_alert(alerts[TAKEOVER_ALERT])


def _open_wager_alert(rule: dict[str, Any]) -> Iterator[str]:
    """The oldest open wager's alert fires, its `for` included, no later than the age at which the audit flags the
    wager (shared/config.py), on the series the wallet exports."""
    found = re.fullmatch(rf".*\b{OPEN_WAGER_AGE}\b.*>\s*(\d+)\s*", rule["expr"])
    wait = re.fullmatch(r"(\d+)([sm])", rule.get("for", "0s"))
    if found is None or wait is None:
        yield f"{OPEN_WAGER_ALERT} compares no {OPEN_WAGER_AGE} with a threshold in seconds (or its `for` is unread)"
        return
    fires_s = int(found[1]) + int(wait[1]) * (60 if wait[2] == "m" else 1)
    if fires_s > SAGA_TIME_LIMIT_MS // 1000:
        yield f"{OPEN_WAGER_ALERT} fires at {fires_s} s, after the audit's {SAGA_TIME_LIMIT_MS // 1000} s"


def _takeover_alert(rule: dict[str, Any]) -> Iterator[str]:
    """The slow-takeover alert counts the takeovers above a bound no longer than the session timeout the recovery in
    docs/operations.md is stated with."""
    bounds = re.findall(rf'\b{TAKEOVER}_bucket\{{le="([0-9.]+)"\}}', rule["expr"])
    if f"{TAKEOVER}_count" not in rule["expr"] or len(bounds) != 1:
        yield f"{TAKEOVER_ALERT} compares no {TAKEOVER} count with one of its buckets"
    elif float(bounds[0]) > SESSION_TIMEOUT_MS / 1000:
        yield f"{TAKEOVER_ALERT} counts takeovers above {bounds[0]} s, past the {SESSION_TIMEOUT_MS} ms session timeout"


def problems(resources: list[Resource], overlay: str) -> list[str]:
    """Every broken property as `<check>: <what>`; empty when the deployment holds them all."""
    return [f"{name}: {problem}" for name, run in CHECKS.items() for problem in run(resources, overlay)]
