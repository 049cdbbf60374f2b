"""Ops on a live deployment: a replay dry run changes nothing, live topics are refused as replay targets, and a dead
letter re-driven after a fix is projected exactly once (re-running the re-drive does nothing).

Scenario: a projector with a "bug" (it refuses meter events) sends them to jackpot.meters.dlq; a record that is not
JSON at all lands in spin.events.dlq. Dry runs touch nothing; after the fix (restart without the bug) the meter dead
letter is re-driven twice and lands once; the broken record is still refused by the re-drive.
"""

from __future__ import annotations

import asyncio

import pytest
from typer.testing import CliRunner

from reelstream.cli import app
from reelstream.processes import spawn
from services.projector.adapters.rebuild import end_offsets
from tests.support.projector import at_log_end, fetchval, samples, table_digests

pytestmark = pytest.mark.integration
METER = "reelstream.jackpot.meter.v1"


def _cli(deployment, *args: str):
    result = CliRunner().invoke(app, list(args), env={**deployment.env, "COLUMNS": "300"})
    return result


def _ends(deployment, *names: str):
    return asyncio.run(end_offsets(deployment.bootstrap, tuple(deployment.topic(n) for n in names)))


def _meters(deployment) -> int:
    return asyncio.run(fetchval(deployment.database_url, "SELECT count(*) FROM projection.meters"))


def test_dry_runs_change_nothing_and_a_redriven_dead_letter_lands_once(deployment, eventually, make_producer):
    published = samples(100)
    assert sum(s.envelope.type == METER for s in published) == 1
    deployment.publish(published)
    make_producer().send(deployment.topic("spin.events"), key=b"p1", value=b"not json").get(timeout=10)
    buggy = spawn(
        "projector", env={**deployment.env, "REELSTREAM_PROJECTOR_REFUSE_TYPES": METER}, log_dir=deployment.log_dir
    )
    try:
        buggy.wait_ready(60)
        eventually(lambda: at_log_end(deployment), 60, 0.2)
    finally:
        buggy.stop()
    assert _meters(deployment) == 0
    listing = _cli(deployment, "ops", "dlq", "list", "--topic", "jackpot.meters.dlq")
    assert (
        listing.exit_code == 0 and "1 dead letters" in listing.output and "refused by this projector" in listing.output
    )

    schema = asyncio.run(fetchval(deployment.database_url, "SELECT schema_name FROM projector_control.active"))
    before = (asyncio.run(table_digests(deployment.database_url, schema)), _ends(deployment, "spin.events"))
    dry = [
        _cli(deployment, "ops", "replay", "--topic", "spin.events", "--into-projection", "--dry-run"),
        _cli(
            deployment,
            "ops",
            "replay",
            "--topic",
            "spin.events",
            "--into-topic",
            f"{deployment.prefix}copy",
            "--dry-run",
        ),
        _cli(deployment, "ops", "dlq", "redrive", "--topic", "jackpot.meters.dlq", "--dry-run"),
    ]
    assert [result.exit_code for result in dry] == [0, 0, 0], [r.output for r in dry]
    assert "dry run: nothing changed" in dry[0].output
    assert (asyncio.run(table_digests(deployment.database_url, schema)), _ends(deployment, "spin.events")) == before
    refused = _cli(
        deployment, "ops", "replay", "--topic", "spin.events", "--into-topic", deployment.topic("wallet.events")
    )
    assert refused.exit_code == 2 and "live topic" in refused.output

    fixed = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
    try:
        fixed.wait_ready(60)
        runs = [_cli(deployment, "ops", "dlq", "redrive", "--topic", "jackpot.meters.dlq") for _ in range(2)]
        broken = _cli(deployment, "ops", "dlq", "redrive", "--topic", "spin.events.dlq")
        eventually(lambda: _meters(deployment) >= 1 and at_log_end(deployment), 60, 0.2)
    finally:
        fixed.stop()
    assert [r.exit_code for r in runs] == [0, 0], [r.output for r in runs]
    assert _meters(deployment) == 1
    assert sum(_ends(deployment, "jackpot.meters").values()) == 2  # the original plus ONE re-drive, not two
    assert broken.exit_code == 0 and "still undecodable" in broken.output


def test_a_group_is_reset_only_while_idle_and_only_after_confirmation(deployment, make_consumer, fresh_group):
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata

    deployment.publish(samples(20))
    group, topic = fresh_group(), deployment.topic("wallet.events")
    member = make_consumer(group_id=group)
    member.subscribe([topic])
    for _ in range(20):  # bounded: joining the group takes a few polls
        if member.assignment():
            break
        member.poll(timeout_ms=500)
    assert member.assignment()
    ends = _ends(deployment, "wallet.events")
    member.commit({TopicPartition(t, p): OffsetAndMetadata(end, "", -1) for (t, p), end in ends.items()})
    busy = _cli(
        deployment, "ops", "reset-group", "--group", group, "--topic", "wallet.events", "--to", "earliest", "--yes"
    )
    assert busy.exit_code == 2 and "active" in busy.output
    member.close(autocommit=False)

    declined = CliRunner().invoke(
        app,
        ["ops", "reset-group", "--group", group, "--topic", "wallet.events", "--to", "earliest"],
        env={**deployment.env, "COLUMNS": "300"},
        input="n\n",
    )
    assert declined.exit_code == 1 and "nothing changed" in declined.output
    done = _cli(
        deployment, "ops", "reset-group", "--group", group, "--topic", "wallet.events", "--to", "earliest", "--yes"
    )
    assert done.exit_code == 0, done.output
    from shared.kafka import admin_client

    admin = admin_client(deployment.bootstrap)
    try:
        committed = admin.list_group_offsets({group: None})[group]
    finally:
        admin.close()
    assert {tp.partition: meta.offset for tp, meta in committed.items()} == {p: 0 for (_, p) in ends}
