"""Events land in Postgres exactly once across a projector SIGKILL, crash hooks between the row write and the
commit, byte-identical redeliveries, and restarts — resuming from the positions stored in Postgres.

Scenario: sample traffic (deposits, debits, seeds, contributions, wins, settlements, meters) is put on fresh topics;
the projector is killed or crashed at its dangerous points while projecting, restarted, and finally every table holds
each fact once: one events row per id, balances equal to a fresh sum of the postings, positions at the log end.
"""
from __future__ import annotations

import asyncio

import pytest

from reelstream.processes import spawn
from services.projector.testing import at_log_end, expected_counts, fetchval, projected_events, samples

pytestmark = pytest.mark.integration


def _assert_exactly_once(url: str, published) -> None:
    expected = expected_counts(published)
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.events")) == expected["events"]
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.spins")) == expected["spins"]
    postings = sum(len(s.envelope.data.postings) for s in {s.envelope.id: s for s in published}.values()
                   if hasattr(s.envelope.data, "postings"))
    assert asyncio.run(fetchval(url, "SELECT count(*) FROM projection.ledger_postings")) == postings
    folded_vs_sum = asyncio.run(fetchval(url, """
        SELECT count(*) FROM projection.account_balances b FULL JOIN (
            SELECT account, currency, sum(amount_micro) AS total, count(*) AS n
            FROM projection.ledger_postings GROUP BY account, currency) p USING (account, currency)
        WHERE b.balance_micro IS DISTINCT FROM p.total OR b.postings IS DISTINCT FROM p.n"""))
    assert folded_vs_sum == 0
    assert asyncio.run(fetchval(url, "SELECT sum(balance_micro) FROM projection.account_balances")) == 0


def test_projects_every_event_once_across_a_sigkill_and_redeliveries(deployment, eventually):
    first, second = samples(1500), samples(1500, first=1500)
    deployment.publish(first)
    projector = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: projected_events(deployment.database_url) > 0, 30, 0.02)
        deployment.publish(second)
        assert projector.kill() != 0
        deployment.publish(first[:2000])  # byte-identical redeliveries, as after a producer's crash
        projector = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
        projector.wait_ready(60)
        total = expected_counts(first + second)["events"]
        eventually(lambda: projected_events(deployment.database_url) >= total, 60, 0.2)
        eventually(lambda: at_log_end(deployment), 30, 0.2)
    finally:
        projector.stop()
    _assert_exactly_once(deployment.database_url, first + second)


@pytest.mark.parametrize("crash_at", ["projector.after_rows:2", "projector.before_commit:2"])
def test_a_crash_between_the_row_write_and_the_commit_loses_and_duplicates_nothing(deployment, eventually, crash_at):
    published = samples(800)
    deployment.publish(published[: len(published) // 2])
    crashing = spawn("projector", env={**deployment.env, "REELSTREAM_CRASH_AT": crash_at}, log_dir=deployment.log_dir)
    crashing.wait_ready(60)
    deployment.publish(published[len(published) // 2:])
    assert crashing.wait_exit(60) == 137
    projector = spawn("projector", env=deployment.env, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: at_log_end(deployment), 60, 0.2)
    finally:
        projector.stop()
    _assert_exactly_once(deployment.database_url, published)
