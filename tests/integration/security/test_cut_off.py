"""The runbook's cut-off (`reelstream acl cut-off ROLE`): a principal that wrote hostile records is denied every write
at once, nothing restarts, and `--restore` gives its writes back.

Scenario: on a prefixed deployment the game client writes a request; ops cuts the game client off and its next
write is refused by the broker (TopicAuthorizationFailed) while the cashier still writes; ops restores it and the
game client writes again; `acl apply` reports the DENY rules as drift while they stand.
"""

from __future__ import annotations

import pytest
from kafka.errors import TopicAuthorizationFailedError
from typer.testing import CliRunner

from shared.waits import wait_until
from reelstream.cli import app
from shared.acls import broker_rules, cut_off_rules
from shared.kafka import admin_client, producer
from shared.roles import ADMIN, role
from shared.topics import SPIN_REQUESTS, WALLET_COMMANDS

pytestmark = pytest.mark.integration


def _writes(bootstrap: str, who: str, topic: str) -> bool:
    """Whether `who` may write `topic` now (False: the broker refuses it)."""
    writer = producer(bootstrap, role=who, client_id=f"cut-off-{who}")
    try:
        writer.send(topic, key=b"p-1", value=b"{}").get(timeout=15)
        return True
    except TopicAuthorizationFailedError:
        return False
    finally:
        writer.close(timeout=5)


def test_a_cut_off_principal_writes_nothing_until_restored_and_nothing_else_stops(secured, deployment):
    requests, commands = deployment + SPIN_REQUESTS, deployment + WALLET_COMMANDS
    assert _writes(secured, "game-client", requests)
    cut = CliRunner().invoke(app, ["acl", "cut-off", "game-client", "--prefix", deployment])
    assert cut.exit_code == 0 and "may write nothing" in cut.output, cut.output
    admin = admin_client(secured, role=ADMIN)
    try:
        denied = set(cut_off_rules(role("game-client"), deployment))
        wait_until(lambda: denied <= broker_rules(admin, "User:game-client"), 10, 0.2, what="the DENY rules")
        assert not _writes(secured, "game-client", requests)
        assert _writes(secured, "cashier", commands)  # every other principal writes on
        drifted = CliRunner().invoke(app, ["acl", "apply", "--prefix", deployment])
        assert drifted.exit_code == 2 and "drift: WRITE TOPIC LITERAL" in drifted.output, drifted.output
        back = CliRunner().invoke(app, ["acl", "cut-off", "game-client", "--prefix", deployment, "--restore"])
        assert back.exit_code == 0 and "writes again" in back.output, back.output
        wait_until(lambda: not denied & broker_rules(admin, "User:game-client"), 10, 0.2, what="the DENY rules gone")
    finally:
        admin.close()
    assert _writes(secured, "game-client", requests)
