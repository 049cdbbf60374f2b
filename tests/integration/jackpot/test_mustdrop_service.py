"""Must-drop pools through the real broker: the jackpot service in-process on fresh topics with pools-v2 shrunk
(dm-drop: a 50-cent range above its 1,000 EUR seed; sn-hourly: a 4-second window).

Scenarios: an amount pool drops exactly once per cycle at its committed point and reseeds with a new commitment,
and the winning wager's drop claim gets the award again while another wager's gets NO_DROP; a pool fed only by
non-qualifying stakes stops at its ceiling and sends the rest to the overflow pool; a time pool at low traffic
drops once per window, to the first qualifying wager at or after its instant (by broker time). Every reveal matches
the commitment published before it, on jackpot.events and on the meters.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timezone

from shared import records
from shared.events import decode, decode_all, encode, envelope, epoch_ms
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.pools import drop_claim_id
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS

from services.audit.adapters.topics import read_topics
from services.audit.core.audit import run_audit
from services.jackpot.adapters import runner
from services.jackpot.adapters.history import fold_events, read_all
from services.jackpot.core.commitment import reveal_matches
from tests.support.mustdrop import drop_pools, secrets

WAIT_S = 90  # a bound, not a sleep: the shared 2-core machine can be slow to start a service


def _config(kafka_bootstrap: str, prefix: str) -> runner.JackpotConfig:
    return runner.JackpotConfig.on_prefix(
        kafka_bootstrap,
        prefix,
        batch_max=50,
        meter_interval_s=0.2,
        session_timeout_ms=6000,
    )


def _contribute(network, stake_minor: int, player_id: str = "p-1") -> jp.Contribute:
    return jp.Contribute(
        network_id=network.network_id,
        contribution_id=uuid.uuid4(),
        game=network.games[0],
        currency=network.currency,
        stake_minor=stake_minor,
        contribution_micro=network.wager_contribution_micro(stake_minor),
        player_id=player_id,
        operator_id="op-a",
    )


def _drop_claim(network, contribution: jp.Contribute, pool) -> jp.Claim:
    return jp.Claim(
        network_id=network.network_id,
        claim_id=drop_claim_id(contribution.contribution_id, pool.pool_id),
        request_id=contribution.contribution_id,
        player_id=contribution.player_id,
        game=contribution.game,
        tier=pool.tier,
        currency=network.currency,
        stake_minor=contribution.stake_minor,
        operator_id=contribution.operator_id,
    )


class Platform:
    """The service running in a task; `send` writes commands as the spin service would."""

    def __init__(self, config: runner.JackpotConfig, pools, writer) -> None:
        self.config, self.writer = config, writer
        self.service = runner.JackpotService(config, pools=pools, secrets=secrets())
        self.stop = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> "Platform":
        ready = asyncio.Event()
        self.task = asyncio.create_task(self.service.run(self.stop, on_ready=ready.set))
        await asyncio.wait_for(ready.wait(), WAIT_S)
        return self

    async def __aexit__(self, *exc) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, WAIT_S)

    async def send(self, *datas) -> None:
        def write() -> None:
            for data in datas:
                message = envelope(data, source="test", time=datetime.now(timezone.utc))
                value = encode(message)
                self.writer.send(
                    self.config.commands_topic,
                    key=message.key,
                    value=value,
                    headers=records.signed_headers("spin", JACKPOT_COMMANDS, message.key, value),
                )
            self.writer.flush(timeout=30)

        await asyncio.to_thread(write)

    async def until_meter_shows(self, network_id: str, pool_id: str, kafka_bootstrap: str, prefix: str) -> None:
        await _until_meter_shows(self, network_id, pool_id, kafka_bootstrap, prefix)

    async def until_records(self, count: int) -> None:
        """Until `count` records are decided and their transactions committed (decided is not yet readable)."""
        deadline = asyncio.get_running_loop().time() + WAIT_S
        while self.service.stats.records < count or self.service.loop.busy():
            assert not self.task.done(), "the service stopped"
            assert asyncio.get_running_loop().time() < deadline, f"{count} records within {WAIT_S} s"
            await asyncio.sleep(0.05)


async def _until_meter_shows(platform, network_id: str, pool_id: str, kafka_bootstrap: str, prefix: str) -> None:
    """Until the meter topic shows the service's current level and commitment of the pool (bounded)."""
    deadline = asyncio.get_running_loop().time() + WAIT_S
    while True:
        async with platform.service.loop.lock:
            pool = next(
                s.pools[pool_id]
                for p in platform.service.states.values()
                for s in p.values()
                if s.network_id == network_id
            )
            wanted = (pool.level_micro // MICRO_PER_MINOR, pool.drop.commitment)
        meter = (await asyncio.to_thread(_latest_meters, kafka_bootstrap, prefix)).get(pool_id)
        if meter is not None and (meter.level_minor, meter.commitment) == wanted:
            return
        assert asyncio.get_running_loop().time() < deadline, f"the meter of {pool_id} within {WAIT_S} s"
        await asyncio.sleep(0.2)


def _events(kafka_bootstrap: str, prefix: str) -> list:
    records = read_all(kafka_bootstrap, prefix + JACKPOT_EVENTS)
    return [event for r in records for event in decode_all(r.value, expect_kind="event")]  # batch envelopes unpacked


def _latest_meters(kafka_bootstrap: str, prefix: str) -> dict[str, jp.JackpotMeter]:
    latest = {}
    for record in read_all(kafka_bootstrap, prefix + JACKPOT_METERS):
        meter = decode(record.value, expect_kind="event").data
        latest[meter.pool_id] = meter
    return latest


def _of(events, kind, pool_id=None) -> list:
    return [e.data for e in events if isinstance(e.data, kind) and (pool_id is None or e.data.pool_id == pool_id)]


def _assert_reveals_match_their_commitments(events, pool_id: str) -> None:
    committed = {c.cycle: c for c in _of(events, jp.DropPointCommitted, pool_id)}
    for reveal in _of(events, jp.DropRevealed, pool_id):
        assert reveal.commitment == committed[reveal.cycle].commitment
        assert reveal_matches(reveal.commitment, reveal.drop_value, reveal.salt)


def test_an_amount_pool_drops_once_per_cycle_at_its_point_and_reseeds_with_a_new_commitment(
    kafka_bootstrap, fresh_prefix, make_producer
):
    pools = drop_pools()
    network, pool = pools.network("diamond-mystery"), pools.network("diamond-mystery").pool("dm-drop")
    part_micro = 2000 * pool.contribution_ppm  # 2 cents a wager at 20 EUR: 25 wagers cover the 50-cent range
    contributions = [_contribute(network, 2000, player_id=f"p-{i % 7}") for i in range(70)]

    async def scenario() -> None:
        async with Platform(_config(kafka_bootstrap, fresh_prefix), pools, make_producer()) as platform:
            await platform.send(*contributions)
            await platform.until_records(len(contributions))
            events = _events(kafka_bootstrap, fresh_prefix)
            win = _of(events, jp.JackpotWon, "dm-drop")[0]
            winner = next(c for c in contributions if c.contribution_id == win.request_id)
            loser = next(c for c in contributions if c.contribution_id != win.request_id)
            await platform.send(_drop_claim(network, winner, pool), _drop_claim(network, loser, pool))
            await platform.until_records(len(contributions) + 2)
            await platform.until_meter_shows("diamond-mystery", "dm-drop", kafka_bootstrap, fresh_prefix)

    asyncio.run(scenario())
    events = _events(kafka_bootstrap, fresh_prefix)
    wins, reveals = _of(events, jp.JackpotWon, "dm-drop"), _of(events, jp.DropRevealed, "dm-drop")
    committed = _of(events, jp.DropPointCommitted, "dm-drop")
    first_wins = {w.claim_id: w for w in wins}
    assert len(reveals) == len(first_wins) >= 2, "70 x 2 cents cross the 50-cent range at least twice"
    assert [r.cycle for r in reveals] == list(range(len(reveals)))
    assert [c.cycle for c in committed] == list(range(len(reveals) + 1)), "a new commitment after each reseed"
    assert len({c.commitment for c in committed}) == len(committed)
    _assert_reveals_match_their_commitments(events, "dm-drop")
    for reveal in reveals:
        win = first_wins[drop_claim_id(reveal.contribution_id, "dm-drop")]
        assert win.level_before_micro >= reveal.drop_value * MICRO_PER_MINOR > win.level_before_micro - part_micro
        assert pool.seed_minor < reveal.drop_value <= pool.must_drop.ceiling_minor
    assert len(wins) == len(first_wins) + 1, "the winner's own claim re-emitted its award, once"
    rejected = _of(events, jp.ClaimRejected)
    assert [r.code for r in rejected] == ["NO_DROP"]
    state = fold_events(read_all(kafka_bootstrap, fresh_prefix + JACKPOT_EVENTS), pools)["diamond-mystery"]
    meters = _latest_meters(kafka_bootstrap, fresh_prefix)
    assert meters["dm-drop"].commitment == committed[-1].commitment == state.pools["dm-drop"].drop.commitment
    assert (meters["dm-drop"].kind, meters["dm-drop"].ceiling_minor) == ("must-drop-by-amount", 100_050)
    assert meters["dm-drop"].level_minor == state.pools["dm-drop"].level_micro // MICRO_PER_MINOR
    assert "dm-reserve" not in meters, "the reserve is hidden"


def test_a_pool_at_its_ceiling_sends_contributions_to_the_overflow_pool(kafka_bootstrap, fresh_prefix, make_producer):
    pools = drop_pools(ceiling_minor=100_005, min_stake_minor=2000)  # 5 cents of room; only 20 EUR stakes win
    network = pools.network("diamond-mystery")
    drop_ppm, reserve_ppm = network.pool("dm-drop").contribution_ppm, network.pool("dm-reserve").contribution_ppm
    contributions = [_contribute(network, 1000) for _ in range(80)]  # 1 cent each to dm-drop: 75 cents overflow

    async def scenario() -> None:
        async with Platform(_config(kafka_bootstrap, fresh_prefix), pools, make_producer()) as platform:
            await platform.send(*contributions)
            await platform.until_records(len(contributions))

    asyncio.run(scenario())
    events = _events(kafka_bootstrap, fresh_prefix)
    state = fold_events(read_all(kafka_bootstrap, fresh_prefix + JACKPOT_EVENTS), pools)["diamond-mystery"]
    assert state.pools["dm-drop"].level_micro == 100_005 * MICRO_PER_MINOR
    assert not _of(events, jp.DropRevealed)
    overflow_micro = 80 * 1000 * drop_ppm - 5 * MICRO_PER_MINOR
    assert state.pools["dm-reserve"].level_micro == 80 * 1000 * reserve_ppm + overflow_micro
    assert (
        state.pools["dm-drop"].transferred_out_micro == overflow_micro == state.pools["dm-reserve"].transferred_in_micro
    )
    applied = sum(c.amount_micro for e in _of(events, jp.ContributionsApplied) for c in e.contributions)
    assert applied == 80 * network.wager_contribution_micro(1000), "nothing lost"


def test_a_time_pool_drops_once_inside_its_window_at_low_traffic(kafka_bootstrap, fresh_prefix, make_producer):
    window_s = 4
    pools = drop_pools(window_s=window_s)
    network = pools.network("stjernestoev")

    async def scenario() -> None:
        async with Platform(_config(kafka_bootstrap, fresh_prefix), pools, make_producer()) as platform:
            # Five wagers a second for 9 s (two windows); every third one is below the 100 øre minimum.
            for index in range(45):
                await platform.send(_contribute(network, 50 if index % 3 == 0 else 100))
                await asyncio.sleep(0.2)
            await platform.until_records(45)

    asyncio.run(scenario())
    events = _events(kafka_bootstrap, fresh_prefix)
    committed = {c.cycle: c for c in _of(events, jp.DropPointCommitted, "sn-hourly")}
    reveals = _of(events, jp.DropRevealed, "sn-hourly")
    assert len(reveals) >= 1
    _assert_reveals_match_their_commitments(events, "sn-hourly")
    commands = [
        (record.timestamp, decode(record.value, expect_kind="command").data)
        for record in read_all(kafka_bootstrap, fresh_prefix + JACKPOT_COMMANDS)
    ]
    inside = 0
    for reveal in reveals:
        cycle = committed[reveal.cycle]
        start_ms, end_ms = epoch_ms(cycle.window_start), epoch_ms(cycle.window_end)
        assert start_ms <= reveal.drop_value < end_ms
        first = next(d for t, d in commands if t >= reveal.drop_value and d.stake_minor >= 100)
        assert first.contribution_id == reveal.contribution_id, "the first qualifying wager at or after the instant"
        win_ms = next(epoch_ms(w.recorded_at) for w in _of(events, jp.JackpotWon) if w.claim_id == reveal.claim_id)
        in_window = [t for t, d in commands if reveal.drop_value <= t < end_ms and d.stake_minor >= 100]
        if in_window:  # a qualifying wager came before the window's end (nearly always at five a second)
            assert win_ms < end_ms, "it drops inside its window"
            inside += 1
    assert inside >= 1, "at five wagers a second at least one window drops inside itself"


def test_the_audit_verifies_every_reveal_and_flags_a_tampered_one(kafka_bootstrap, fresh_prefix, make_producer):
    """The audit reads the raw topics (no wallet or spins here: only its drop checks are asserted)."""
    pools = drop_pools()
    network = pools.network("diamond-mystery")

    async def scenario() -> None:
        async with Platform(_config(kafka_bootstrap, fresh_prefix), pools, make_producer()) as platform:
            await platform.send(*[_contribute(network, 2000) for _ in range(60)])
            await platform.until_records(60)

    asyncio.run(scenario())

    def drop_findings():
        records, _ = read_topics(kafka_bootstrap, fresh_prefix)
        result = run_audit(records, config=pools)
        return result, [d for d in result.discrepancies if d.check.startswith("drop-")]

    clean, found = drop_findings()
    assert found == []
    assert clean.counts["type:" + jp.DropRevealed.TYPE] >= 2, "every reveal was checked"
    # Someone writes a reveal for the open cycle with a drop point of their choosing and the published commitment.
    events = _events(kafka_bootstrap, fresh_prefix)
    open_cycle = _of(events, jp.DropPointCommitted, "dm-drop")[-1]
    real = next(e for e in events if isinstance(e.data, jp.DropRevealed))
    forged_data = real.data.model_copy(
        update={
            "cycle": open_cycle.cycle,
            "commitment": open_cycle.commitment,
            "drop_value": 100_001,
            "salt": "11" * 32,
        }
    )
    forged = envelope(forged_data, source="reelstream/jackpot", time=real.time)
    writer = make_producer()
    value = encode(forged)  # signed with the jackpot's key: what a compromised jackpot service could write
    writer.send(
        fresh_prefix + JACKPOT_EVENTS,
        key=forged.key,
        value=value,
        headers=records.headers_as_owner(JACKPOT_EVENTS, "test", forged.key, value),
    )
    writer.flush(timeout=30)
    _, found = drop_findings()
    assert {(d.check, d.event_id) for d in found} == {("drop-reveal-mismatch", str(forged.id))}
    assert any("not the published commitment" in d.detail for d in found)


def test_a_restarted_service_restores_the_sealed_cycle_and_drops_where_it_was_committed(
    kafka_bootstrap, fresh_prefix, make_producer
):
    """The drop point lives only sealed in jackpot.events: a second instance (same key) restores it from there."""
    pools = drop_pools()
    network, pool = pools.network("diamond-mystery"), pools.network("diamond-mystery").pool("dm-drop")
    keeper = secrets()
    config = _config(kafka_bootstrap, fresh_prefix)
    first_half = [_contribute(network, 2000) for _ in range(12)]  # 24 cents: most likely inside the first cycle
    second_half = [_contribute(network, 2000) for _ in range(60)]

    async def run(datas, total: int) -> None:
        platform = Platform(config, pools, make_producer())
        platform.service.secrets = keeper
        async with platform:
            await platform.send(*datas)
            await platform.until_records(total)

    asyncio.run(run(first_half, len(first_half)))
    before = _events(kafka_bootstrap, fresh_prefix)
    open_cycle = _of(before, jp.DropPointCommitted, "dm-drop")[-1]
    asyncio.run(run(second_half, len(second_half)))
    events = _events(kafka_bootstrap, fresh_prefix)
    _assert_reveals_match_their_commitments(events, "dm-drop")
    reveals = _of(events, jp.DropRevealed, "dm-drop")
    assert open_cycle.cycle in {r.cycle for r in reveals}, "the cycle open at the restart dropped after it"
    part_micro = 2000 * pool.contribution_ppm
    for reveal in reveals:
        win = next(w for w in _of(events, jp.JackpotWon, "dm-drop") if w.claim_id == reveal.claim_id)
        assert win.level_before_micro >= reveal.drop_value * MICRO_PER_MINOR > win.level_before_micro - part_micro
    committed = _of(events, jp.DropPointCommitted, "dm-drop")
    assert [c.cycle for c in committed] == list(range(len(committed))), "no cycle committed twice across the restart"
