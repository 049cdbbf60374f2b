"""A Postgres outage of ~10 s is ridden out and caught up.

Scenario: the projector reaches Postgres through a relay; mid-stream the relay resets every connection and refuses
new ones for 10 s while events keep arriving. The projector must stay up, reconnect, resume from the positions
stored in Postgres (a commit lost in flight is either there or not) and end with every event projected once.
"""

from __future__ import annotations

import asyncio
import time
from urllib.parse import urlsplit

import pytest

from reelstream.processes import spawn
from tests.support.projector import OutageProxy, at_log_end, expected_counts, fetchval, projected_events, samples

pytestmark = pytest.mark.integration
OUTAGE_S = 10


def test_a_ten_second_postgres_outage_is_ridden_out_and_caught_up(deployment, eventually):
    published = samples(300)
    half = len(published) // 2
    target = urlsplit(deployment.database_url)
    proxy = OutageProxy(target.hostname, target.port)
    env = {
        **deployment.env,
        "DATABASE_URL": proxy.url(deployment.database_url),
        "REELSTREAM_PROJECTOR_MAX_RECORDS": "200",
    }
    deployment.publish(published[:half])
    projector = spawn("projector", env=env, log_dir=deployment.log_dir)
    try:
        projector.wait_ready(60)
        eventually(lambda: projected_events(deployment.database_url) > 0, 30, 0.05)
        proxy.cut()
        deployment.publish(published[half:])
        time.sleep(OUTAGE_S)  # the outage itself: Postgres is unreachable for the projector this long
        assert projector.process.poll() is None, "the projector died during the outage"
        proxy.restore()
        eventually(lambda: at_log_end(deployment), 60, 0.2)
    finally:
        projector.stop()
        proxy.close()
    assert "postgres" in projector.log_text().lower() and "retrying" in projector.log_text()
    expected = expected_counts(published)
    assert (
        asyncio.run(fetchval(deployment.database_url, "SELECT count(*) FROM projection.events")) == expected["events"]
    )
    assert asyncio.run(fetchval(deployment.database_url, "SELECT count(*) FROM projection.spins")) == expected["spins"]
    assert (
        asyncio.run(fetchval(deployment.database_url, "SELECT sum(balance_micro) FROM projection.account_balances"))
        == 0
    )
