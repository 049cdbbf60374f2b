"""The live projector is a single writer enforced by Postgres (services/projector/adapters/single_writer.py).

Scenario: a first projector projects fresh topics into a fresh database; a second one is started on the same database
and stands by (it never reports ready) while traffic goes on and the first projects all of it. The first is killed
(SIGKILL, as a lost node); the second takes the lock, becomes ready and projects the rest, byte-identical redeliveries
included. Every fact is in the projection once, and the second counts as new only what came after the takeover.
"""

from __future__ import annotations

import re

import pytest

from reelstream.processes import spawn
from shared.readiness import ready_line
from tests.support.projector import assert_exactly_once, at_log_end, expected_counts, projected_events, samples

pytestmark = pytest.mark.integration
SMALL_BATCHES = {"REELSTREAM_PROJECTOR_MAX_RECORDS": "200"}


def test_a_second_projector_stands_by_while_the_first_writes_and_takes_over_when_it_dies(deployment, eventually):
    published = samples(240, tag="sw")
    third = len(published) // 3
    before, during, after = published[:third], published[third : 2 * third], published[2 * third :]
    deployment.publish(before)
    env = {**deployment.env, **SMALL_BATCHES}
    first = spawn("projector", env=env, log_dir=deployment.log_dir / "first")
    second = None
    try:
        first.wait_ready(60)
        second = spawn("projector", env=env, log_dir=deployment.log_dir / "second")
        second.wait_for_log("standing by", 30)
        deployment.publish(during)
        eventually(lambda: at_log_end(deployment), 60, 0.1)
        assert projected_events(deployment.database_url) == expected_counts(before + during)["events"]
        assert ready_line("projector") not in second.own_log_text()  # it stood by: it never began to project
        assert first.kill() != 0
        second.wait_ready(30)
        assert "taking over as the single writer" in second.own_log_text()
        deployment.publish(after + before[:100])  # and redeliveries of what the first projected
        eventually(lambda: at_log_end(deployment), 60, 0.1)
        assert second.stop() == 0
    finally:
        first.kill()
        if second is not None:
            second.stop()
    assert_exactly_once(deployment.database_url, published)
    stopped = re.search(r"stopped: (\d+) events \((\d+) new\)", second.own_log_text())
    assert stopped is not None, second.own_log_text()[-2000:]
    assert int(stopped.group(2)) == expected_counts(after)["events"]
