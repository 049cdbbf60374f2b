"""Events land in Postgres exactly once across a projector SIGKILL, crash hooks between the row write and the
commit, byte-identical redeliveries, and restarts — resuming from the positions stored in Postgres.

Scenario: sample traffic (deposits, debits, seeds, contributions, wins, settlements, meters) is put on fresh topics;
the projector is killed or crashed at its dangerous points while projecting, restarted, and finally every table holds
each fact once: one events row per id, balances equal to a fresh sum of the postings, positions at the log end.
"""

from __future__ import annotations


import pytest

from reelstream.processes import spawn
from tests.support.projector import assert_exactly_once, at_log_end, expected_counts, projected_events, samples

pytestmark = pytest.mark.integration
# Many small transactions, so kills and crash hooks land between batches that are partly projected.
SMALL_BATCHES = {"REELSTREAM_PROJECTOR_MAX_RECORDS": "200"}


def test_projects_every_event_once_across_a_sigkill_and_redeliveries(deployment, eventually):
    published = samples(600)
    first, second = published[:1500], published[1500:]
    deployment.publish(first)
    projector = spawn("projector", env={**deployment.env, **SMALL_BATCHES}, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: projected_events(deployment.database_url) > 0, 30, 0.02)
        deployment.publish(second)
        assert projector.kill() != 0
        deployment.publish(first[:1000])  # byte-identical redeliveries, as after a producer's crash
        projector = spawn("projector", env={**deployment.env, **SMALL_BATCHES}, log_dir=deployment.log_dir)
        projector.wait_ready(60)
        total = expected_counts(first + second)["events"]
        eventually(lambda: projected_events(deployment.database_url) >= total, 60, 0.2)
        eventually(lambda: at_log_end(deployment), 30, 0.2)
    finally:
        projector.stop()
    assert_exactly_once(deployment.database_url, first + second)


def test_crashes_between_the_row_write_and_the_commit_lose_and_duplicate_nothing(deployment, eventually):
    published = samples(300)
    deployment.publish(published[: len(published) // 2])
    for crash_at in ("projector.after_rows:2", "projector.before_commit:2"):
        armed = {**deployment.env, **SMALL_BATCHES, "REELSTREAM_CRASH_AT": crash_at}
        crashing = spawn("projector", env=armed, log_dir=deployment.log_dir)
        crashing.wait_ready(60)
        if crash_at.startswith("projector.after_rows"):
            deployment.publish(published[len(published) // 2 :])
        assert crashing.wait_exit(60) == 137, crash_at
    projector = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: at_log_end(deployment), 60, 0.2)
    finally:
        projector.stop()
    assert projector.log_text().count("crash hook") == 2
    assert_exactly_once(deployment.database_url, published)
