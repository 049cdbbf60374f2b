"""Connection security as configuration, the roles' ACLs, and the generated documents that must stay current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deploy.k8s.generate import rendered
from deploy.k8s.users import USERS_FILE
from deploy.local.paths import REPO_ROOT
from shared.client_files import java_properties, librdkafka_conf, project_json
from shared.roles import ADMIN, BREAK_GLASS, ROLE_NAMES, ROLES, acl_rules, acl_table, all_rules
from shared.security import SecurityConfigError, parse, security_for
from shared.topics import ALL_TOPICS


def _scram(tmp_path: Path) -> dict:
    ca = tmp_path / "ca.pem"
    ca.write_text("not parsed here")
    return {
        "security_protocol": "SASL_SSL",
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_username": "wallet",
        "sasl_password": "s3cret-value",
        "ssl_ca_file": str(ca),
    }


def test_nothing_configured_means_plaintext():
    assert security_for(None, environ={}).kafka_python() == {"security_protocol": "PLAINTEXT"}


def test_a_roles_json_file_gives_sasl_ssl_with_hostname_verification(tmp_path):
    (tmp_path / "wallet.json").write_text(json.dumps({"role": "wallet", **_scram(tmp_path)}))
    security = security_for("wallet", environ={"REELSTREAM_KAFKA_CLIENTS_DIR": str(tmp_path)})
    options = security.kafka_python()
    assert options["security_protocol"] == "SASL_SSL" and options["ssl_check_hostname"] is True
    assert options["sasl_plain_username"] == "wallet" and options["ssl_cafile"] == str(tmp_path / "ca.pem")


def test_the_password_comes_from_a_file_and_never_shows_in_the_repr(tmp_path):
    (tmp_path / "password").write_text("from-a-file\n")
    env = {
        "KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
        "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
        "KAFKA_SASL_USERNAME": "spin",
        "KAFKA_SASL_PASSWORD_FILE": str(tmp_path / "password"),
    }
    security = security_for(None, environ=env)
    assert security.password == "from-a-file"
    assert "from-a-file" not in repr(security)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ssl_ca_file": "/nowhere/ca.pem"}, "CA file /nowhere/ca.pem does not exist"),
        ({"sasl_password": ""}, "needs sasl_username and sasl_password"),
        ({"sasl_mechanism": "GSSAPI"}, "sasl_mechanism"),
        ({"security_protocol": "TLS"}, "security_protocol"),
        ({"ssl_cert_file": "/etc/hostname"}, "needs both ssl_cert_file and ssl_key_file"),
        ({"sasl_pasword": "typo"}, "unknown keys"),
    ],
)
def test_unusable_settings_are_one_line_naming_the_problem_and_never_the_password(tmp_path, change, message):
    with pytest.raises(SecurityConfigError, match=message) as raised:
        parse({**_scram(tmp_path), **change}, source="wallet.json")
    assert "s3cret-value" not in str(raised.value) and "\n" not in str(raised.value)


def test_the_three_client_files_carry_the_same_principal(tmp_path):
    security = parse(_scram(tmp_path), source="wallet.json")
    properties = java_properties(security, "127.0.0.1:9092")
    assert 'username="wallet" password="s3cret-value"' in properties
    assert "ssl.truststore.type=PEM" in properties and f"ssl.truststore.location={tmp_path / 'ca.pem'}" in properties
    conf = librdkafka_conf(security, "127.0.0.1:9092")
    assert "sasl.username=wallet" in conf and f"ssl.ca.location={tmp_path / 'ca.pem'}" in conf
    assert parse(
        {
            k: v
            for k, v in json.loads(project_json(security, "h:1", "wallet")).items()
            if k not in ("role", "bootstrap_servers")
        },
        "json",
    ) == parse(_scram(tmp_path), "json")


def test_every_role_named_by_a_topic_exists():
    named = {role for spec in ALL_TOPICS for role in spec.writers + spec.readers}
    assert named <= set(ROLE_NAMES)


def test_no_role_but_break_glass_may_alter_configs_or_delete_records_of_the_event_topics():
    dangerous = {"ALTER", "ALTER_CONFIGS", "DELETE", "ALL", "CLUSTER_ACTION"}
    events = {spec.name for spec in ALL_TOPICS if spec.kind == "event"}
    for member in ROLES:
        rules = acl_rules(member)
        allowed = {r.operation for r in rules if r.resource in ("TOPIC", "CLUSTER") and r.permission == "ALLOW"}
        denied = {(r.resource, r.name, r.operation) for r in rules if r.permission == "DENY"}
        if member.name == BREAK_GLASS:
            assert {"ALTER_CONFIGS", "DELETE"} <= allowed and not allowed & {"ALL", "ALTER", "CREATE", "WRITE"}
        elif member.name == ADMIN:  # everything else (it makes and removes test deployments), never the evidence
            assert "ALL" in allowed
            assert denied == {("TOPIC", name, op) for name in events for op in ("ALTER_CONFIGS", "DELETE")}
        else:
            assert not allowed & dangerous, member.name
        assert member.name == ADMIN or not denied


def test_a_game_client_writes_spin_requests_only():
    writes = {rule.name for rule in all_rules() if rule.principal == "User:game-client" and rule.operation == "WRITE"}
    assert writes == {"spin.requests"}


def test_prefixed_rules_stay_under_the_prefix():
    for rule in all_rules("t1234."):
        assert rule.name.startswith("t1234."), rule


def test_the_roles_table_in_docs_security_is_current():
    assert acl_table() in (REPO_ROOT / "docs" / "security.md").read_text(), "run `reelstream acl table` into docs"


def test_the_strimzi_users_are_current():
    assert USERS_FILE.read_text() == rendered()["overlays/demo/users.yaml"], "run `python -m deploy.k8s.generate`"
