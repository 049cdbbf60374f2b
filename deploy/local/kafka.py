"""Local Kafka: fetch the official jars of a version with Maven once, format KRaft storage, run kafka.Kafka as a
daemon. 3.9.1 by default (InfraPaths.kafka_version); 4.x differs here only in its logging (log4j 2)."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deploy.local import procs
from deploy.local.exceptions import InfraError
from deploy.local.paths import KAFKA_VERSION, TEMPLATES, InfraPaths
from deploy.local.pki import TlsFiles, ensure_tls
from deploy.local.tools import find_java, find_maven, who_listens
from shared.waits import WaitTimeout, wait_until
from shared.security import ClientSecurity, security_for

HEAP = "1g"
START_TIMEOUT_S = 90
STOP_TIMEOUT_S = 30
# For a broker that lives only as long as a test module: the client compiler only and one GC thread start it in about
# half the time at the cost of peak throughput, so never for the shared broker that benchmarks measure.
QUICK_START_JVM = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")
_MARKER = "kafka.Kafka"
Echo = Callable[[str], None]


@dataclass(frozen=True)
class KafkaEndpoint:
    host: str
    port: int
    controller_port: int
    # Secured: the client listener is SASL_SSL (SCRAM-SHA-512); the controller and inter-broker listeners take the
    # broker's own certificate only (mTLS on loopback); `bench_port` adds a plaintext loopback listener for benchmarks.
    secure: bool = False
    internal_port: int | None = None
    bench_port: int | None = None

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def internal_bootstrap(self) -> str:
        return f"{self.host}:{self.internal_port}"

    @property
    def bench_bootstrap(self) -> str | None:
        return f"{self.host}:{self.bench_port}" if self.bench_port else None

    @property
    def ports(self) -> tuple[int, ...]:
        return tuple(port for port in (self.port, self.controller_port, self.internal_port, self.bench_port) if port)


def major(version: str) -> int:
    return int(version.split(".", 1)[0])


def logging_profile(version: str) -> str:
    """The pom.xml profile with the logging binding of this Kafka version: log4j 2 from 4.0 on, reload4j before."""
    assert major(version) >= 3, f"Kafka {version}: only 3.x (ZooKeeper-free KRaft) and later are supported"
    return "log4j2" if major(version) >= 4 else "reload4j"


def maven_argv(mvn: str, version: str, staging: Path) -> list[str]:
    pom = str(TEMPLATES / "pom.xml")
    return [
        *(mvn, "-B", "-f", pom, "dependency:copy-dependencies", f"-DoutputDirectory={staging}"),
        *(f"-Dkafka.version={version}", "-P", logging_profile(version)),
    ]


def ensure_jars(paths: InfraPaths, echo: Echo) -> Path:
    """The cached libs folder of `paths.kafka_version`; fetched with Maven copy-dependencies into a temp folder, then
    renamed."""
    libs, version = paths.kafka_libs, paths.kafka_version
    if (libs / ".complete").exists():
        return libs
    mvn = find_maven()
    staging = libs.with_name(f"libs.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    echo(f"fetching Kafka {version} jars from Maven Central into {libs} (once per machine) ...")
    argv = maven_argv(mvn, version, staging)
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as process:
        fetched, transcript = 0, []
        for line in process.stdout:  # type: ignore[union-attr]
            transcript.append(line.rstrip())
            jar = downloaded_jar(line)
            if jar is not None:
                fetched += 1
                echo(f"  [{fetched:3d}] {jar}")
        code = process.wait()
    if code != 0:
        raise InfraError("Maven could not fetch the Kafka jars:\n" + "\n".join(transcript[-25:]))
    (staging / ".complete").write_text(f"kafka {version}\n")
    shutil.rmtree(libs, ignore_errors=True)
    staging.rename(libs)
    echo(f"  {len(list(libs.glob('*.jar')))} jars in {libs}")
    return libs


def downloaded_jar(maven_line: str) -> str | None:
    """The jar file name of a Maven 'Downloaded from <repo>: <url> (<size>)' log line, else None."""
    text = maven_line.strip().removeprefix("[INFO] ")
    if not text.startswith("Downloaded from "):
        return None
    url = text.split(": ", 1)[-1].split(" (", 1)[0]
    return url.rsplit("/", 1)[-1] if url.endswith(".jar") else None


def _cluster_id(kafka_dir: Path) -> str:
    id_file = kafka_dir / "cluster-id"
    if not id_file.exists():
        # Kafka cluster ids: 16 random bytes in URL-safe base64 without padding (what StorageTool random-uuid prints),
        # never starting with "-" (Kafka's own rule: StorageTool would read such an id as an option, 1 time in 64).
        cluster_id = "-"
        while cluster_id.startswith("-"):
            cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode()
        id_file.write_text(cluster_id + "\n")
    return id_file.read_text().strip()


def listener_lines(endpoint: KafkaEndpoint, tls: TlsFiles | None) -> list[str]:
    """The listener, TLS, SASL and authorizer settings: plaintext when `tls` is None, else secured (KafkaEndpoint)."""
    host = endpoint.host
    if tls is None:
        return [
            f"listeners=PLAINTEXT://{host}:{endpoint.port},CONTROLLER://{host}:{endpoint.controller_port}",
            f"advertised.listeners=PLAINTEXT://{host}:{endpoint.port}",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.listener.name=PLAINTEXT",
        ]
    listeners = {
        "CLIENT": (endpoint.port, "SASL_SSL"),
        "CONTROLLER": (endpoint.controller_port, "SSL"),
        "INTERNAL": (endpoint.internal_port, "SSL"),
    }
    if endpoint.bench_port:
        listeners["BENCH"] = (endpoint.bench_port, "PLAINTEXT")
    advertised = [name for name in listeners if name != "CONTROLLER"]
    # The plaintext benchmark listener is the only way to arrive as User:ANONYMOUS, and it exists only behind a flag.
    supers = [tls.principal] + (["User:ANONYMOUS"] if endpoint.bench_port else [])
    return [
        "listeners=" + ",".join(f"{name}://{host}:{port}" for name, (port, _) in listeners.items()),
        "advertised.listeners=" + ",".join(f"{name}://{host}:{listeners[name][0]}" for name in advertised),
        "listener.security.protocol.map=" + ",".join(f"{name}:{proto}" for name, (_, proto) in listeners.items()),
        "inter.broker.listener.name=INTERNAL",
        "sasl.enabled.mechanisms=SCRAM-SHA-512",
        "listener.name.client.sasl.enabled.mechanisms=SCRAM-SHA-512",
        "listener.name.client.scram-sha-512.sasl.jaas.config="
        "org.apache.kafka.common.security.scram.ScramLoginModule required;",
        "ssl.keystore.type=PEM",
        f"ssl.keystore.location={tls.broker_keystore}",
        "ssl.truststore.type=PEM",
        f"ssl.truststore.location={tls.ca_cert}",
        "ssl.endpoint.identification.algorithm=https",
        "listener.name.controller.ssl.client.auth=required",
        "listener.name.internal.ssl.client.auth=required",
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found=false",
        "super.users=" + ";".join(supers),
    ]


def render_config(paths: InfraPaths, endpoint: KafkaEndpoint, tls: TlsFiles | None = None) -> Path:
    template = (TEMPLATES / "server.properties").read_text()
    text = template.format(
        host=endpoint.host,
        controller_port=endpoint.controller_port,
        log_dirs=paths.kafka_dir / "data",
        listener_lines="\n".join(listener_lines(endpoint, tls)),
    )
    config = paths.kafka_dir / "server.properties"
    config.write_text(text)
    return config


def logging_flags(version: str, logs: Path) -> list[str]:
    if logging_profile(version) == "log4j2":
        return [f"-Dlog4j2.configurationFile={TEMPLATES / 'log4j2.yaml'}", f"-Dkafka.logs.dir={logs}"]
    return [f"-Dlog4j.configuration=file:{TEMPLATES / 'log4j.properties'}", f"-Dkafka.logs.dir={logs}"]


def _java_argv(
    java: str, paths: InfraPaths, logs: Path, main: str, *args: str, heap: str = HEAP, jvm: tuple[str, ...] = ()
) -> list[str]:
    """kafka.Kafka or a Kafka tool on the jars of `paths.kafka_version` (fetched: `ensure_jars`), `jvm` flags added."""
    libs = paths.kafka_libs
    assert (libs / ".complete").exists(), f"Kafka {paths.kafka_version} jars not fetched into {libs}"
    return [
        java,
        f"-Xmx{heap}",
        "-Xms256m",
        *jvm,
        "-Djava.awt.headless=true",
        # A TLS 1.3 client's close_notify answered, not left for the client to wait out (shared/event_loop.py).
        "-Djdk.tls.acknowledgeCloseNotify=true",
        *logging_flags(paths.kafka_version, logs),
        "-cp",
        f"{libs}/*",
        main,
        *args,
    ]


def formatted_by(paths: InfraPaths) -> str | None:
    """The Kafka version that formatted this state's log dir (None: not formatted yet)."""
    if not (paths.kafka_dir / "data" / "meta.properties").exists():
        return None
    recorded = paths.kafka_dir / "kafka-version"
    return recorded.read_text().strip() if recorded.exists() else KAFKA_VERSION  # formatted before versions were kept


def _check_version(paths: InfraPaths) -> None:
    """A state folder keeps the Kafka version it was made with: a 3.9 log dir is not silently upgraded by starting
    4.x on it, nor is a running broker of one version taken for the other."""
    made_by = formatted_by(paths)
    if made_by is not None and made_by != paths.kafka_version:
        raise InfraError(
            f"{paths.kafka_dir} holds a Kafka {made_by} broker; run Kafka {paths.kafka_version} with another "
            "REELSTREAM_STATE_DIR (and REELSTREAM_KAFKA_PORT)"
        )


def _format_storage(java: str, config: Path, paths: InfraPaths, jvm: tuple[str, ...] = ()) -> None:
    """Format the log dir once, and record which Kafka version did."""
    if formatted_by(paths) is not None:
        return
    cluster_id = _cluster_id(paths.kafka_dir)
    argv = _java_argv(
        java, paths, paths.kafka_dir, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(config), jvm=jvm
    )
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise InfraError(f"kafka StorageTool format failed:\n{result.stdout}\n{result.stderr}")
    (paths.kafka_dir / "kafka-version").write_text(paths.kafka_version + "\n")


def broker_answers(bootstrap: str, security: ClientSecurity | None = None) -> bool:
    """True when the broker answers a metadata request with at least one broker."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    options = (security or security_for(None)).kafka_python()
    try:
        admin = KafkaAdminClient(
            bootstrap_servers=bootstrap, request_timeout_ms=3000, client_id="reelstream-infra", **options
        )
    except (KafkaError, OSError, ValueError):
        return False
    try:
        return bool(admin.describe_cluster().get("brokers"))
    except (KafkaError, OSError):
        return False
    finally:
        admin.close()


def broker_security(tls: TlsFiles) -> ClientSecurity:
    """How the infrastructure code itself connects to a secured broker: its internal listener with the broker's own
    certificate (a super user), so users and ACLs can be made before any SCRAM user exists."""
    return ClientSecurity(
        protocol="SSL",
        ca_file=str(tls.ca_cert),
        cert_file=str(tls.broker_cert),
        key_file=str(tls.broker_key),
        source=str(tls.folder),
    )


def admin_access(endpoint: KafkaEndpoint, tls: TlsFiles | None) -> tuple[str, ClientSecurity]:
    """(bootstrap, security) through which the infrastructure code administers the local broker."""
    if tls is None:
        return endpoint.bootstrap, ClientSecurity()
    return endpoint.internal_bootstrap, broker_security(tls)


def running_pid(paths: InfraPaths) -> int | None:
    return procs.read_pid(paths.kafka_dir / "kafka.pid", _MARKER)


def tls_files(paths: InfraPaths) -> TlsFiles:
    return TlsFiles(paths.kafka_dir / "tls")


def up(paths: InfraPaths, endpoint: KafkaEndpoint, echo: Echo, jvm: tuple[str, ...] = ()) -> TlsFiles | None:
    """Start (or find running) the broker (its JVM with `jvm` flags added); returns the TLS files of a secured one (None
    for plaintext)."""
    paths.kafka_dir.mkdir(parents=True, exist_ok=True)
    _check_version(paths)
    tls = ensure_tls(tls_files(paths).folder) if endpoint.secure else None
    wanted = listener_lines(endpoint, tls)[0]
    pid = running_pid(paths)
    if pid is not None:
        running = (paths.kafka_dir / "server.properties").read_text()
        if wanted not in running.splitlines():
            raise InfraError(
                f"kafka is running (pid {pid}) with other listeners than `{wanted}`; run "
                "`reelstream infra down` first to switch between secured and plaintext"
            )
        echo(f"kafka: already running (pid {pid})")
    else:
        for port in endpoint.ports:
            if procs.port_open(endpoint.host, port):
                raise InfraError(
                    f"port {port} on {endpoint.host} is taken by {who_listens(port)}, not by a broker this checkout "
                    "started; stop it (or its owner) and run `reelstream infra up` again."
                )
        java = find_java()
        ensure_jars(paths, echo)
        config = render_config(paths, endpoint, tls)
        _format_storage(java, config, paths, jvm)
        argv = _java_argv(java, paths, paths.kafka_dir, "kafka.Kafka", str(config), jvm=jvm)
        # kafka.log is the broker's rolling log; kafka.out catches what the JVM prints before logging starts.
        out = paths.kafka_dir / "kafka.out"
        pid = procs.spawn_daemon(argv, out, paths.kafka_dir / "kafka.pid", paths.kafka_dir, dict(os.environ))
        echo(f"kafka {paths.kafka_version}: started pid {pid}, log {paths.kafka_dir / 'kafka.log'}")
    _wait_ready(paths, endpoint, tls, pid)
    return tls


def _logs(paths: InfraPaths) -> str:
    return "\n".join(f"--- {name}:\n{procs.log_tail(paths.kafka_dir / name)}" for name in ("kafka.out", "kafka.log"))


def _wait_ready(paths: InfraPaths, endpoint: KafkaEndpoint, tls: TlsFiles | None, pid: int) -> None:
    bootstrap, security = admin_access(endpoint, tls)
    host, port = bootstrap.rsplit(":", 1)

    def ready() -> bool:
        if not procs.alive(pid):
            raise InfraError(f"kafka exited during startup; last log lines:\n{_logs(paths)}")
        # An admin client made before the listener accepts connections takes seconds to give up: ask only once it does.
        return procs.port_open(host, int(port)) and broker_answers(bootstrap, security)

    try:
        wait_until(ready, START_TIMEOUT_S, interval_s=0.5, what=f"kafka metadata on {bootstrap}")
    except WaitTimeout as error:
        raise InfraError(f"{error}; last log lines:\n{_logs(paths)}") from error


def down(paths: InfraPaths, echo: Echo) -> None:
    pid = running_pid(paths)
    if pid is None:
        echo("kafka: not running (nothing this checkout started)")
    else:
        procs.stop_group(pid, STOP_TIMEOUT_S)
        echo(f"kafka: stopped pid {pid}")
    (paths.kafka_dir / "kafka.pid").unlink(missing_ok=True)
