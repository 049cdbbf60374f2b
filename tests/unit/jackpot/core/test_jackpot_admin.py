"""Administrative commands: open, disable, resume, decommission with a transfer; repeats change nothing."""

from shared.events import jackpot as jp
from shared.money import MICRO_PER_MINOR

from tests.support.jackpot import Network, admin, claim, contribute, incoming, minutes


def test_open_puts_a_pool_at_its_seed_before_any_wager():
    network = Network()
    outcome = network.send(admin(jp.OpenPool, "dm-green"))
    (opened,) = [event.data for event in outcome.events]
    assert opened.pool_id == "dm-green"
    assert opened.movement.closing_micro == 5000 * MICRO_PER_MINOR
    assert "dm-blue" not in network.state.pools


def test_opening_an_open_pool_is_rejected():
    network = Network()
    network.send(contribute())
    outcome = network.send(admin(jp.OpenPool, "dm-green"))
    assert [event.data.code for event in outcome.events] == ["ALREADY_OPEN"]


def test_a_disabled_pool_keeps_its_share_of_every_wager_and_pays_again_once_resumed():
    network = Network()
    network.send(admin(jp.DisablePool, "dm-green", reason="investigation"))
    before_micro = network.level_micro("dm-green")
    network.send(contribute(stake_minor=1000))
    assert network.level_micro("dm-green") == before_micro + 1500 * 1000
    network.send(admin(jp.ResumePool, "dm-green"))
    network.send(claim(tier="green", stake_minor=2000))
    assert network.of_type(jp.JackpotWon)[0].pool_id == "dm-green"


def test_resuming_a_pool_that_is_not_disabled_is_rejected():
    network = Network()
    outcome = network.send(admin(jp.ResumePool, "dm-green"))
    assert [e.data.code for e in outcome.events if isinstance(e.data, jp.PoolCommandRejected)] == ["WRONG_STATUS"]


def test_decommissioning_moves_the_balance_and_later_shares_to_the_named_pool():
    network = Network()
    network.send(contribute(stake_minor=100))
    green_micro, blue_micro = network.level_micro("dm-green"), network.level_micro("dm-blue")
    outcome = network.send(admin(jp.DecommissionPool, "dm-green", transfer_to_pool_id="dm-blue"))
    (changed,) = [event.data for event in outcome.events]
    assert changed.status == "decommissioned"
    assert all(m.balanced() for m in changed.movements)
    assert network.level_micro("dm-green") == 0
    assert network.level_micro("dm-blue") == blue_micro + green_micro
    network.send(contribute(stake_minor=100))
    assert network.level_micro("dm-green") == 0
    assert network.level_micro("dm-blue") == blue_micro + green_micro + (1500 + 2000) * 100
    (rejected,) = [e.data for e in network.send(claim(tier="green", stake_minor=10)).events]
    assert rejected.code == "POOL_DECOMMISSIONED"


def test_a_decommission_into_itself_or_another_network_is_rejected():
    network = Network()
    codes = [
        e.data.code
        for e in network.send(
            admin(jp.DecommissionPool, "dm-green", transfer_to_pool_id="dm-green"),
            admin(jp.DecommissionPool, "dm-green", transfer_to_pool_id="sn-jackpot"),
        ).events
        if isinstance(e.data, jp.PoolCommandRejected)
    ]
    assert codes == ["INVALID_TRANSFER", "INVALID_TRANSFER"]


def test_a_repeated_admin_command_re_emits_its_answer_and_changes_nothing():
    network = Network()
    command = admin(jp.DecommissionPool, "dm-red", transfer_to_pool_id="dm-diamond")
    first = network.send(command)
    levels = {p: s.level_micro for p, s in network.state.pools.items()}
    again = network.send(command)
    assert again.events == tuple(e for e in first.events if isinstance(e.data, jp.PoolStatusChanged))
    assert {p: s.level_micro for p, s in network.state.pools.items()} == levels


def test_an_unknown_pool_is_rejected():
    network = Network()
    outcome = network.send(admin(jp.DisablePool, "dm-platinum"))
    assert [e.data.code for e in outcome.events if isinstance(e.data, jp.PoolCommandRejected)] == ["UNKNOWN_POOL"]


def test_an_admin_command_older_than_the_window_is_rejected_so_an_old_repeat_cannot_act_again():
    network = Network()
    now_ms = network.clock.tick()
    outcome = network.send_incoming([incoming(admin(jp.DisablePool, "dm-green"), now_ms, sent_ms=now_ms - minutes(61))])
    assert [e.data.code for e in outcome.events if isinstance(e.data, jp.PoolCommandRejected)] == ["EXPIRED"]
    assert network.state.pools["dm-green"].status == "open"
