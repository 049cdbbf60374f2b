"""Must-drop pools in the core: one winner per drop at its committed point, the reveal, the reseed and the next
commitment; ceilings and disabled pools overflow; time drops go to the first qualifying wager at or after the instant.
"""

from __future__ import annotations

import uuid

from shared.decision import NOTHING
from shared.events import broker_time
from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR
from shared.pools import drop_claim_id

from services.jackpot.core.commitment import commitment_of, reveal_matches
from tests.support.mustdrop import drop_pools, secrets
from tests.support.jackpot import Network, admin, claim, contribute, incoming, jackpot_core


POOLS = drop_pools()
DIAMOND = POOLS.network("diamond-mystery")
STJERNE = POOLS.network("stjernestoev")
DROP = DIAMOND.pool("dm-drop")
SEED_MICRO = DROP.seed_minor * MICRO_PER_MINOR


class DropNetwork(Network):
    def __init__(self, config=DIAMOND) -> None:
        super().__init__(config, secrets())

    def send_incoming(self, batch):
        decision = super().send_incoming(batch)
        for event in decision.events:
            assert all(m.balanced() for m in _movements(event.data))
        return decision


def _movements(data):
    return [m for m in (getattr(data, "movement", None),) + tuple(getattr(data, "movements", ())) if m is not None]


def _part_micro(stake_minor: int) -> int:
    return stake_minor * DROP.contribution_ppm


def test_an_amount_pool_drops_exactly_once_at_its_committed_point_and_commits_a_new_one():
    net = DropNetwork()
    contributions = [contribute(DIAMOND, stake_minor=2000) for _ in range(60)]  # 2 cents each to dm-drop
    net.send(*contributions)
    committed = net.of_type(jp.DropPointCommitted)
    wins = [w for w in net.of_type(jp.JackpotWon) if w.pool_id == "dm-drop"]
    revealed = net.of_type(jp.DropRevealed)
    # 60 x 2 cents cover the 50-cent range at least twice: one win and one reveal per cycle, a commitment per cycle.
    assert len(wins) == len(revealed) >= 2
    assert [r.cycle for r in revealed] == list(range(len(revealed)))
    assert [c.cycle for c in committed] == list(range(len(revealed) + 1))
    assert len({c.commitment for c in committed}) == len(committed)
    order = [c.contribution_id for c in contributions]
    for win, reveal, commitment in zip(wins, revealed, committed):
        assert reveal.commitment == commitment.commitment
        assert reveal_matches(reveal.commitment, reveal.drop_value, reveal.salt)
        assert DROP.seed_minor < reveal.drop_value <= DROP.must_drop.ceiling_minor
        # The winner's own part crossed the drop point: the level before it was below, with it at or above.
        assert (
            win.level_before_micro >= reveal.drop_value * MICRO_PER_MINOR > win.level_before_micro - _part_micro(2000)
        )
        assert win.claim_id == drop_claim_id(win.request_id, "dm-drop") and win.request_id == reveal.contribution_id
        assert win.amount_minor == win.level_before_micro // MICRO_PER_MINOR
    assert order.index(wins[0].request_id) < order.index(wins[1].request_id)
    last = order.index(wins[-1].request_id)
    assert net.level_micro("dm-drop") == SEED_MICRO + (len(order) - last - 1) * _part_micro(2000)
    assert net.state.pools["dm-drop"].drop.cycle == len(revealed)


def test_the_winning_wagers_claim_gets_the_award_again_and_any_other_gets_no_drop():
    net = DropNetwork()
    contributions = [contribute(DIAMOND, stake_minor=2000, player_id=f"p-{i}") for i in range(30)]
    net.send(*contributions)
    wins_before = len(net.of_type(jp.JackpotWon))
    win = next(w for w in net.of_type(jp.JackpotWon) if w.pool_id == "dm-drop")
    winner = next(c for c in contributions if c.contribution_id == win.request_id)
    loser = next(c for c in contributions if c.contribution_id != win.request_id)
    for wager, expected in ((winner, "won"), (loser, "rejected")):
        ask = claim(DIAMOND, tier="drop", stake_minor=2000, player_id=wager.player_id)
        ask = ask.model_copy(
            update={"request_id": wager.contribution_id, "claim_id": drop_claim_id(wager.contribution_id, "dm-drop")}
        )
        answer = net.send(ask).events
        if expected == "won":
            assert [e.data.claim_id for e in answer if isinstance(e.data, jp.JackpotWon)] == [win.claim_id]
        else:
            assert [e.data.code for e in answer] == ["NO_DROP"]
    assert len(net.of_type(jp.JackpotWon)) == wins_before + 1  # the re-emission of the original answer


def test_a_reseed_takes_the_reserve_first_and_the_operator_the_rest():
    net = DropNetwork()
    net.send(*[contribute(DIAMOND, stake_minor=2000) for _ in range(30)])
    funded = net.of_type(jp.PoolFundedFromReserve)
    reseeded = [r for r in net.of_type(jp.PoolReseeded) if r.pool_id == "dm-drop"]
    wins = [w for w in net.of_type(jp.JackpotWon) if w.pool_id == "dm-drop"]
    taken = sum(f.amount_micro for f in funded)
    assert taken > 0
    assert taken + sum(r.seed_micro for r in reseeded) == sum(SEED_MICRO - w.level_after_micro for w in wins)


def test_a_pool_at_its_ceiling_sends_contributions_to_the_overflow_pool():
    # Stakes below the minimum never win: the pool fills to its ceiling and the rest overflows to the reserve.
    net = DropNetwork()
    net.send(*[contribute(DIAMOND, stake_minor=40) for _ in range(2000)])  # 0.04 cent each
    ceiling_micro = DROP.must_drop.ceiling_minor * MICRO_PER_MINOR
    assert net.level_micro("dm-drop") == ceiling_micro
    reserve_micro = net.level_micro("dm-reserve")
    total = 2000 * 40 * (DROP.contribution_ppm + DIAMOND.pool("dm-reserve").contribution_ppm)
    assert reserve_micro == total - (ceiling_micro - SEED_MICRO)
    # The whole share is the must-drop pool's contribution; the part above the ceiling is its overflow out.
    drop = net.state.pools["dm-drop"]
    assert drop.contributions_micro == 2000 * 40 * DROP.contribution_ppm
    assert drop.transferred_out_micro == net.state.pools["dm-reserve"].transferred_in_micro
    assert SEED_MICRO + drop.contributions_micro - drop.transferred_out_micro == ceiling_micro
    assert not net.of_type(jp.DropRevealed)
    # The first qualifying wager drops it at once.
    net.send(contribute(DIAMOND, stake_minor=50))
    assert len(net.of_type(jp.DropRevealed)) == 1


def test_a_disabled_pool_sends_its_share_to_the_overflow_and_drops_after_it_resumes():
    net = DropNetwork()
    net.send(contribute(DIAMOND, stake_minor=100))
    net.send(admin(jp.DisablePool, "dm-drop", DIAMOND))
    level_micro, reserve_micro = net.level_micro("dm-drop"), net.level_micro("dm-reserve")
    net.send(*[contribute(DIAMOND, stake_minor=2000) for _ in range(40)])
    assert net.level_micro("dm-drop") == level_micro
    reserve_part_micro = 2000 * DIAMOND.pool("dm-reserve").contribution_ppm
    assert net.level_micro("dm-reserve") == reserve_micro + 40 * (_part_micro(2000) + reserve_part_micro)
    assert not net.of_type(jp.DropRevealed)
    net.send(admin(jp.ResumePool, "dm-drop", DIAMOND))
    net.send(*[contribute(DIAMOND, stake_minor=2000) for _ in range(30)])  # 60 cents: at least one drop
    assert len(net.of_type(jp.DropRevealed)) >= 1


def test_a_time_pool_drops_to_the_first_qualifying_wager_at_or_after_its_instant():
    net = DropNetwork(STJERNE)
    net.send(contribute(STJERNE, stake_minor=50))  # opens the pools and commits the instant
    committed = net.of_type(jp.DropPointCommitted)[0]
    start_ms = net.clock.now_ms
    qualifying_ms = []
    # A wager every 5 s (low traffic); every other one is 50 øre, below the pool's 100 øre minimum.
    for step in range(1, 14):
        net.clock.now_ms = start_ms + step * 5000
        stake_minor = 100 if step % 2 == 0 else 50
        net.send(contribute(STJERNE, stake_minor=stake_minor))
        if stake_minor == 100:
            qualifying_ms.append(net.clock.now_ms)
        if net.of_type(jp.DropRevealed):
            break
    revealed = net.of_type(jp.DropRevealed)
    assert len(revealed) == 1
    reveal = revealed[0]
    assert reveal.commitment == committed.commitment
    assert committed.window_start.timestamp() * 1000 <= reveal.drop_value < committed.window_end.timestamp() * 1000
    won = next(w for w in net.of_type(jp.JackpotWon) if w.pool_id == "sn-hourly")
    assert won.recorded_at.timestamp() * 1000 == min(t for t in qualifying_ms if t >= reveal.drop_value)


def test_a_state_folded_from_the_encoded_events_drops_where_the_live_one_does():
    live = DropNetwork()
    # 10 before the restore, 50 after: 1 EUR after it, so the 50-cent range is crossed at least once after the restore.
    batch = [incoming(contribute(DIAMOND, stake_minor=2000), 1_800_000_000_000 + i) for i in range(60)]
    live.send_incoming(batch[:10])
    restored = jackpot_core(DIAMOND, live.secrets).given(*live.events)  # each event encoded and read back, folded
    seen = len(live.events)
    rest = NOTHING
    for message in batch[10:]:
        rest += restored.when(message, broker_time(message.broker_ms)).decision
    live.send_incoming(batch[10:])
    # Up to the first drop both decide alike (each later cycle draws fresh randomness of its own).
    until = next(i for i, e in enumerate(rest.events) if isinstance(e.data, jp.DropRevealed)) + 1
    assert [e.id for e in rest.events[:until]] == [e.id for e in live.events[seen : seen + until]]
    assert rest.events[until - 1].data == live.events[seen + until - 1].data


def test_a_changed_drop_value_or_salt_does_not_match_the_commitment():
    salt = uuid.uuid4().bytes * 2
    commitment = commitment_of(123_456, salt)
    assert reveal_matches(commitment, 123_456, salt.hex())
    assert not reveal_matches(commitment, 123_457, salt.hex())
    assert not reveal_matches(commitment, 123_456, (bytes([salt[0] ^ 1]) + salt[1:]).hex())
    assert not reveal_matches(commitment, 123_456, "zz")


def test_draws_cover_the_whole_range_and_nothing_outside_it():
    keeper = secrets()
    values = {keeper.draw(10, 15)[0] for _ in range(400)}
    assert values == {10, 11, 12, 13, 14}


def test_a_sealed_drop_point_opens_only_with_the_key_and_its_own_context():
    import pytest

    from services.jackpot.core.commitment import DropSecrets, SealBroken

    keeper = secrets()
    sealed = keeper.seal(42, bytes(32), "n/p/0")
    assert keeper.open(sealed, "n/p/0") == (42, bytes(32))
    with pytest.raises(SealBroken):
        keeper.open(sealed, "n/p/1")
    with pytest.raises(SealBroken):
        DropSecrets(bytes(32), keeper.entropy).open(sealed, "n/p/0")


def test_the_commitment_layout_is_pinned_for_verifiers_in_other_languages():
    # SHA-256(1234567 as 8 bytes big-endian ‖ bytes 0..31): docs/drop-verifier.html computes the same in a browser.
    expected = "76c9aff07c685c733b4e6bd56200daabfc7a314a4944b21c5a49ca7cf95a8dcd"
    assert commitment_of(1234567, bytes(range(32))) == expected
