"""`reelstream acl apply` is idempotent, reports a rule beyond the code as drift (exit 2) and removes it only with
--prune; the rules of a prefixed deployment are applied and deleted with it."""

from __future__ import annotations

from typer.testing import CliRunner

from shared.waits import wait_until
from reelstream.cli import app
from shared.acls import _kafka_acl, broker_rules
from shared.kafka import admin_client
from shared.roles import ADMIN, AclRule, acl_rules, role


def test_apply_twice_changes_nothing_and_drift_is_reported_then_pruned(secured, deployment):
    first = CliRunner().invoke(app, ["acl", "apply", "--prefix", deployment])
    assert first.exit_code == 0 and " 0 created" in first.output, first.output
    stray = AclRule("User:game-client", "TOPIC", deployment + "wallet.commands", "LITERAL", "WRITE")
    admin = admin_client(secured, role=ADMIN)
    try:
        admin.create_acls([_kafka_acl(stray)])
        wait_until(lambda: stray in broker_rules(admin, "User:game-client"), 10, 0.1, what="the stray rule visible")
        drifted = CliRunner().invoke(app, ["acl", "apply", "--prefix", deployment])
        assert drifted.exit_code == 2 and "drift: WRITE TOPIC LITERAL" in drifted.output, drifted.output
        pruned = CliRunner().invoke(app, ["acl", "apply", "--prefix", deployment, "--prune"])
        assert pruned.exit_code == 0 and "1 removed" in pruned.output, pruned.output
        wait_until(lambda: stray not in broker_rules(admin, "User:game-client"), 10, 0.1, what="the stray rule gone")
        assert set(acl_rules(role("game-client"), deployment)) <= broker_rules(admin, "User:game-client")
    finally:
        admin.close()
