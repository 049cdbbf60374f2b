"""Scenario: a platform (wallet, jackpot, spin) and the monitor run on fresh topics. A browser opens the meter page;
a player's spins raise the Diamond Mystery pools, and the page's level rises without a reload; a forced Supernova win
(a JackpotWon and its meter, written with the project's models as the jackpot service would) appears in the
Stjernestøv winners list; the ops page opens and shows the spins, and says so plainly once the monitor is gone.
Screenshots of both pages are kept (and written to docs/monitor/ with REELSTREAM_UPDATE_SCREENSHOTS=1)."""

from __future__ import annotations

import os
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from selenium.webdriver.common.by import By

from reelstream.client import ReelstreamClient
from reelstream.processes import spawn, stop_all
from bench.synthetic.publish import publish
from bench.synthetic.samples import Sample
from shared.config import load_settings
from shared.events import envelope
from shared.events import jackpot as jp
from shared.session import issue_token
from reelstream.monitor_process import free_port, get_json, start_monitor

DOCS = Path(__file__).resolve().parents[3] / "docs" / "monitor"
# The session key ring of the environment (tests/conftest.py makes a random one when none is set).
SESSION_KEYS = load_settings().session_secret
ENV = {
    "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
    "REELSTREAM_SESSION_KEYS": SESSION_KEYS,
    "REELSTREAM_LOG_LEVEL": "WARNING",
}


def _level(browser, pool_id: str) -> int | None:
    found = browser.find_elements(By.CSS_SELECTOR, f"#pool-{pool_id} .level")
    value = found[0].get_attribute("data-level-minor") if found else None
    return int(value) if value else None


def _forced_win(level_minor: int) -> list[Sample]:
    now, claim = datetime.now(timezone.utc), uuid.uuid4()
    level = level_minor * 1_000_000
    won = jp.JackpotWon(
        network_id="stjernestoev",
        recorded_at=now,
        claim_id=claim,
        request_id=uuid.uuid4(),
        player_id="forced-winner",
        operator_id="op-1",
        pool_id="sn-supernova",
        tier="supernova",
        currency="DKK",
        stake_minor=200,
        share_ppm=1_000_000,
        amount_minor=level_minor,
        level_before_micro=level,
        level_after_micro=0,
        movement=jp.PoolMovement(pool_id="sn-supernova", opening_micro=level, paid_micro=level, closing_micro=0),
    )
    meter = jp.JackpotMeter(pool_id="sn-supernova", network_id="stjernestoev", currency="DKK", level_minor=0, as_of=now)
    return [
        Sample("jackpot.events", envelope(won, source="reelstream-tests", time=now)),
        Sample("jackpot.meters", envelope(meter, source="reelstream-tests", time=now)),
    ]


def _shot(browser, tmp_path: Path, name: str) -> None:
    browser.save_screenshot(str(tmp_path / name))
    if os.environ.get("REELSTREAM_UPDATE_SCREENSHOTS") == "1":
        DOCS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(DOCS / name))


def test_the_meter_page_ticks_up_with_spins_shows_a_forced_win_and_the_ops_page_opens(
    kafka_bootstrap, fresh_prefix, tmp_path, browser, eventually
):
    env = {**ENV, "REELSTREAM_TOPIC_PREFIX": fresh_prefix, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    services = [spawn(name, env=env, log_dir=tmp_path) for name in ("wallet", "jackpot", "spin")]
    port = free_port()
    services.append(start_monitor(kafka_bootstrap, fresh_prefix, port, tmp_path))
    client = None
    try:
        for service in services:
            service.wait_ready(90)
        client = ReelstreamClient(bootstrap_servers=kafka_bootstrap, topic_prefix=fresh_prefix)
        token = issue_token(SESSION_KEYS, "rj-page", time.time_ns() // 1_000_000 + 3_600_000)
        client.deposit("rj-page", 200_000, "EUR")
        client.spin("rj-page", "rising-joker", 2_000, "EUR", token, timeout_s=30)
        browser.set_window_size(1280, 1000)
        browser.get(f"http://127.0.0.1:{port}/?stake=2000")
        before = eventually(lambda: _level(browser, "dm-diamond"), 20)
        for _ in range(4):
            client.spin("rj-page", "rising-joker", 2_000, "EUR", token, timeout_s=30)
        eventually(lambda: (_level(browser, "dm-diamond") or 0) > before, 20)
        assert browser.find_element(By.ID, "state").get_attribute("data-state") == "live"

        forced = _forced_win(1_234_567)
        publish(kafka_bootstrap, forced, lambda topic: fresh_prefix + topic)
        claim = str(forced[0].envelope.data.claim_id)
        selector = f'#wins-stjernestoev li[data-claim="{claim}"]'
        row = eventually(lambda: browser.find_elements(By.CSS_SELECTOR, selector), 20)
        assert "12.345,67" in row[0].text and "kr" in row[0].text  # DKK as Danes read it
        assert "€" in browser.find_element(By.ID, "pool-dm-green").text
        time.sleep(1.0)  # let the count-up animation settle before the picture
        _shot(browser, tmp_path, "meters.png")

        browser.get(f"http://127.0.0.1:{port}/ops")
        eventually(lambda: browser.find_element(By.ID, "state").get_attribute("data-state") == "live", 20)
        eventually(lambda: "rising-joker" in browser.find_element(By.ID, "rtp").text, 20)
        eventually(lambda: get_json(port, "/api/ops")["rtp_by_game"]["rising-joker"]["spins"] == 5, 10)
        _shot(browser, tmp_path, "ops.png")

        services[-1].stop()  # the monitor goes away: the page says so instead of showing stale figures as live
        eventually(lambda: browser.find_element(By.ID, "state").get_attribute("data-state") == "down", 20)
        assert browser.find_element(By.ID, "down").is_displayed()
    finally:
        if client is not None:
            client.close()
        stop_all(services)
