"""Fixtures of the trust-boundary tests: the secured broker (skipped on a plaintext one, failed in a secured CI) and a
prefixed deployment with every role's ACLs under its prefix."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from shared import signing
from shared.acls import authorizer_enabled, grant_prefix, revoke_prefix
from shared.kafka import admin_client, ensure_topics
from shared.roles import ADMIN, BREAK_GLASS, ROLE_NAMES
from shared.topics import ALL_TOPICS
from tests.support.principals import clients_with


@pytest.fixture(scope="module")
def every_role(secured, tmp_path_factory):
    """A clients folder with a file per role: the broker's own where `reelstream infra up` made them, else SCRAM users
    made here with the project's provisioning code (a broker that predates a role), deleted after the module."""
    with clients_with(secured, ROLE_NAMES, tmp_path_factory.mktemp("clients")) as folder:
        yield folder


@pytest.fixture(scope="session")
def secured(kafka_bootstrap):
    """The bootstrap of a broker with an authorizer and role client files; skip (fail in CI) on a plaintext one."""
    from tests.integration.conftest import in_ci

    admin = admin_client(kafka_bootstrap, role=ADMIN)
    try:
        enabled = authorizer_enabled(admin)
    finally:
        admin.close()
    if not enabled or not os.environ.get("REELSTREAM_KAFKA_CLIENTS_DIR"):
        if in_ci():  # CI runs `reelstream infra up`, secured by default
            pytest.fail(
                "CI=true but the broker is plaintext (no authorizer) or REELSTREAM_KAFKA_CLIENTS_DIR is unset",
                pytrace=False,
            )
        pytest.skip("the broker is plaintext (no authorizer): `reelstream infra up --secure` runs these")
    return kafka_bootstrap


@pytest.fixture(scope="session")
def break_glass(secured):
    """The break-glass role's client file: made by `reelstream infra up` from this code; a broker provisioned before
    the role existed lacks it (skipped locally, failed in CI)."""
    from tests.integration.conftest import in_ci

    path = Path(os.environ["REELSTREAM_KAFKA_CLIENTS_DIR"]) / f"{BREAK_GLASS}.json"
    if not path.exists():
        message = f"no {path}: the broker was provisioned before the break-glass role (run `reelstream infra up`)"
        if in_ci():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return BREAK_GLASS


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    """A signing directory in the environment of this module's test process and of the services it starts."""
    folder = tmp_path_factory.mktemp("signing") / "keys"
    signing.generate(folder)
    patch = pytest.MonkeyPatch()
    patch.setenv(signing.SIGNING_DIR_ENV, str(folder))
    yield folder
    patch.undo()


@pytest.fixture
def deployment(secured):
    prefix = f"sec-{uuid.uuid4().hex[:12]}."
    admin = admin_client(secured, role=ADMIN)
    ensure_topics(admin, ALL_TOPICS, replication_factor=1, prefix=prefix)
    grant_prefix(admin, prefix)
    yield prefix
    admin.delete_topics([prefix + spec.name for spec in ALL_TOPICS])
    revoke_prefix(admin, prefix)
    admin.close()
