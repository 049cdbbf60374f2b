"""Local Kafka: fetch the official jars with Maven once, format KRaft storage, run kafka.Kafka as a daemon."""
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
from deploy.local.tools import find_java, find_maven, who_listens
from deploy.local.waits import WaitTimeout, wait_until

HEAP = "1g"
START_TIMEOUT_S = 90
STOP_TIMEOUT_S = 30
_MARKER = "kafka.Kafka"
Echo = Callable[[str], None]


@dataclass(frozen=True)
class KafkaEndpoint:
    host: str
    port: int
    controller_port: int

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"


def ensure_jars(paths: InfraPaths, echo: Echo) -> Path:
    """The cached Kafka libs folder; fetched with Maven copy-dependencies into a temp folder, then renamed."""
    libs = paths.kafka_libs
    if (libs / ".complete").exists():
        return libs
    mvn = find_maven()
    staging = libs.with_name(f"libs.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    echo(f"fetching Kafka {KAFKA_VERSION} jars from Maven Central into {libs} (once per machine) ...")
    argv = [mvn, "-B", "-f", str(TEMPLATES / "pom.xml"), "dependency:copy-dependencies", f"-DoutputDirectory={staging}"]
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
    (staging / ".complete").write_text(f"kafka {KAFKA_VERSION}\n")
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
        # Kafka cluster ids are 16 random bytes in URL-safe base64 without padding (what StorageTool random-uuid prints).
        id_file.write_text(base64.urlsafe_b64encode(uuid.uuid4().bytes).rstrip(b"=").decode() + "\n")
    return id_file.read_text().strip()


def render_config(paths: InfraPaths, endpoint: KafkaEndpoint) -> Path:
    template = (TEMPLATES / "server.properties").read_text()
    text = template.format(
        host=endpoint.host, port=endpoint.port, controller_port=endpoint.controller_port, log_dirs=paths.kafka_dir / "data"
    )
    config = paths.kafka_dir / "server.properties"
    config.write_text(text)
    return config


def _java_argv(java: str, libs: Path, logs: Path, main: str, *args: str, heap: str = HEAP) -> list[str]:
    log4j = [f"-Dlog4j.configuration=file:{TEMPLATES / 'log4j.properties'}", f"-Dkafka.logs.dir={logs}"]
    return [java, f"-Xmx{heap}", "-Xms256m", "-Djava.awt.headless=true", *log4j, "-cp", f"{libs}/*", main, *args]


def _format_storage(java: str, libs: Path, config: Path, paths: InfraPaths) -> None:
    if (paths.kafka_dir / "data" / "meta.properties").exists():
        return
    cluster_id = _cluster_id(paths.kafka_dir)
    argv = _java_argv(java, libs, paths.kafka_dir, "kafka.tools.StorageTool", "format", "-t", cluster_id, "-c", str(config))
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        raise InfraError(f"kafka StorageTool format failed:\n{result.stdout}\n{result.stderr}")


def broker_answers(bootstrap: str) -> bool:
    """True when the broker answers a metadata request with at least one broker."""
    from kafka import KafkaAdminClient
    from kafka.errors import KafkaError

    try:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=3000, client_id="reelstream-infra")
    except (KafkaError, OSError, ValueError):
        return False
    try:
        return bool(admin.describe_cluster().get("brokers"))
    except (KafkaError, OSError):
        return False
    finally:
        admin.close()


def running_pid(paths: InfraPaths) -> int | None:
    return procs.read_pid(paths.kafka_dir / "kafka.pid", _MARKER)


def up(paths: InfraPaths, endpoint: KafkaEndpoint, echo: Echo) -> None:
    paths.kafka_dir.mkdir(parents=True, exist_ok=True)
    pid = running_pid(paths)
    if pid is not None:
        echo(f"kafka: already running (pid {pid})")
    else:
        for port in (endpoint.port, endpoint.controller_port):
            if procs.port_open(endpoint.host, port):
                raise InfraError(
                    f"port {port} on {endpoint.host} is taken by {who_listens(port)}, not by a broker this checkout "
                    "started; stop it (or its owner) and run `reelstream infra up` again."
                )
        java = find_java()
        libs = ensure_jars(paths, echo)
        config = render_config(paths, endpoint)
        _format_storage(java, libs, config, paths)
        argv = _java_argv(java, libs, paths.kafka_dir, "kafka.Kafka", str(config))
        # kafka.log is the broker's rolling log; kafka.out catches what the JVM prints before logging starts.
        out = paths.kafka_dir / "kafka.out"
        pid = procs.spawn_daemon(argv, out, paths.kafka_dir / "kafka.pid", paths.kafka_dir, dict(os.environ))
        echo(f"kafka: started pid {pid}, log {paths.kafka_dir / 'kafka.log'}")
    _wait_ready(paths, endpoint, pid)


def _logs(paths: InfraPaths) -> str:
    return "\n".join(
        f"--- {name}:\n{procs.log_tail(paths.kafka_dir / name)}" for name in ("kafka.out", "kafka.log")
    )


def _wait_ready(paths: InfraPaths, endpoint: KafkaEndpoint, pid: int) -> None:
    def ready() -> bool:
        if not procs.alive(pid):
            raise InfraError(f"kafka exited during startup; last log lines:\n{_logs(paths)}")
        return broker_answers(endpoint.bootstrap)

    try:
        wait_until(ready, START_TIMEOUT_S, interval_s=0.5, what=f"kafka metadata on {endpoint.bootstrap}")
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
