"""Real principals for the tenancy tests: a clients folder holding a file for each of some roles (SCRAM users made with
the project's provisioning code when the broker predates them, deleted afterwards), and whether the broker refuses a
role a fetch."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from kafka import TopicPartition
from kafka.errors import TopicAuthorizationFailedError

from deploy.local.principals import add_principals, remove_principals
from shared.kafka import admin_client, kafka_consumer
from shared.roles import ADMIN
from shared.security import security_for


@contextmanager
def clients_with(bootstrap: str, roles: Sequence[str], folder: Path) -> Iterator[Path]:
    """`folder`, a copy of the broker's clients folder with a file per role in `roles` (made here when missing), set
    as REELSTREAM_KAFKA_CLIENTS_DIR for this process and the services it starts; the users made are deleted after."""
    source = Path(os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"])
    for path in source.iterdir():
        shutil.copy(path, folder / path.name)
    admin = admin_client(bootstrap, role=ADMIN)
    made = add_principals(admin, roles, security_for(ADMIN), bootstrap, folder)
    patch = pytest.MonkeyPatch()
    patch.setenv("REELSTREAM_KAFKA_CLIENTS_DIR", str(folder))
    try:
        yield folder
    finally:
        patch.undo()
        try:
            if made:
                remove_principals(admin, made)
        finally:
            admin.close()


def read_refused(bootstrap: str, role: str, topic: str, within_s: float = 20) -> bool:
    """True when the broker refuses `role` a fetch of `topic` (TopicAuthorizationFailed), False when it reads."""
    reader = kafka_consumer(bootstrap, role=role, group_id=None, enable_auto_commit=False)
    try:
        reader.assign([TopicPartition(topic, 0)])
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            try:
                reader.poll(timeout_ms=500)
                reader.position(TopicPartition(topic, 0))  # a fetch position needs an authorized offset lookup
                return False
            except TopicAuthorizationFailedError:
                return True
        return False
    finally:
        reader.close(autocommit=False)
