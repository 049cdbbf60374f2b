"""Find the external programs the local infrastructure needs (Java 17+, Maven) and name what is missing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from deploy.local.exceptions import InfraError

JAVA_MIN_MAJOR = 17


def java_major(version_output: str) -> int | None:
    """Major version from `java -version` output ('openjdk version "17.0.15"' -> 17, '"1.8.0_392"' -> 8)."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if match is None:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    candidate = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not candidate or not Path(candidate).exists():
        raise InfraError(
            "Java not found: Kafka needs Java 17 or newer. "
            "Install it (Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME."
        )
    probe = subprocess.run([candidate, "-version"], capture_output=True, text=True, timeout=30)
    major = java_major(probe.stderr + probe.stdout)
    if major is None or major < JAVA_MIN_MAJOR:
        raise InfraError(f"{candidate} is Java {major}; Kafka 3.9 needs Java {JAVA_MIN_MAJOR} or newer.")
    return candidate


def find_maven() -> str:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise InfraError(
            "Maven not found: it fetches the Kafka jars from Maven Central once. Install it (Debian: apt-get install "
            "maven) or put the jars in the cache folder yourself."
        )
    return mvn


def who_listens(port: int) -> str:
    """A short description of the process listening on a TCP port, when `ss` can tell."""
    if shutil.which("ss") is None:
        return "unknown process"
    probe = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, timeout=10)
    users = re.findall(r'users:\(\("([^"]+)",pid=(\d+)', probe.stdout)
    return ", ".join(f"{name} (pid {pid})" for name, pid in users) or "unknown process"
