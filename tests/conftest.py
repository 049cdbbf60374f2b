"""Shared test helpers for every test: bounded waits (no bare sleeps) and the integration marker."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from shared import signing
from shared.waits import wait_until, wait_until_async

_INTEGRATION = Path(__file__).resolve().parent / "integration"
# No secret lives in the source: a test run without a configured session key gets a random one of its own.
if not (os.environ.get("REELSTREAM_SESSION_KEYS") or os.environ.get("REELSTREAM_SESSION_SECRET")):
    os.environ["REELSTREAM_SESSION_SECRET"] = secrets.token_urlsafe(32)


def pytest_configure(config: pytest.Config) -> None:
    # Test-only hooks (forced seeds, crash points) are off by default; the services these tests start may arm them.
    os.environ["REELSTREAM_TEST_HOOKS"] = "1"
    # kafka-python 3.0 loads its protocol schemas through importlib.resources' legacy API: noise, not our code.
    config.addinivalue_line("filterwarnings", "ignore:read_text is deprecated:DeprecationWarning")
    config.addinivalue_line("filterwarnings", "ignore:open_text is deprecated:DeprecationWarning")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Everything under tests/integration needs real servers: mark it even when its author forgot to.
    for item in items:
        if _INTEGRATION in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.integration)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under `-n N --dist loadgroup` (`make test`): the integration tests as one unit, on one worker, in order, and the
    unit tests spread over the rest. They restart the broker, stop PostgreSQL and time failovers on the one shared
    pair, so two at once would fail each other. xdist's own grouping (an `xdist_group` mark) renames node ids, which
    pytest 9.2 no longer reads, so the grouping is by path here."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    integration = _INTEGRATION.relative_to(config.rootpath).as_posix() + "/"  # node ids are relative to the root

    class ServersInOrder(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "integration" if nodeid.startswith(integration) else nodeid

    return ServersInOrder(config, log)


@pytest.fixture(autouse=True)
def _unit_tests_have_no_key_ring(request, monkeypatch):
    """Unit tests are pure: the environment's signing directory (`infra up` writes it) is theirs only when a test sets
    it; integration tests and the services they start keep it."""
    if _INTEGRATION not in Path(str(request.fspath)).resolve().parents:
        monkeypatch.delenv("REELSTREAM_SIGNING_DIR", raising=False)


@pytest.fixture
def eventually():
    """`eventually(predicate, timeout_s)`: the first truthy value of predicate, or a failure after timeout_s."""
    return wait_until


@pytest.fixture
def eventually_async():
    """Async twin of `eventually` for coroutine predicates."""
    return wait_until_async


pytest_plugins = ("tests.support.browser",)


@pytest.fixture
def keys(tmp_path, monkeypatch) -> Path:
    """A signing directory with every writer's key, the operators' cashiers' included (as `infra up` makes it), set
    for the test: signatures are made and required."""
    folder = tmp_path / "signing"
    signing.generate(folder)
    monkeypatch.setenv(signing.SIGNING_DIR_ENV, str(folder))
    return folder
