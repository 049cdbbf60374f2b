"""What a seamless operator owes the jackpot networks (services/audit/core/owed.py), over hand-built rounds and the
pools' events the real jackpot core decides for them.

Scenario: op-s's players play rounds of both games at many stakes, some with a sub-cent breakage, one winning a pool
share inside its win; one bet is rolled back and one win is still being retried, so neither owes anything; another
operator plays on the same networks. The pools credit every contribution the spin sends: op-s owes, per network and
currency, Σ stake × the network's rate plus the breakage, which is exactly what the pools credited for its rounds, and
the pool share its win carried nets against it. A round the pools never credited, or credited at another stake, is a
difference.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from services.audit.core.collect import Fact
from services.audit.core.ledger import fold_ledger
from services.audit.core.owed import differs, owed_rows
from services.audit.core.pools import fold_pools
from services.audit.core.reports import reconciliation_rows
from services.audit.core.seamless import fold_rounds
from shared.events import broker_time, envelope
from shared.events import jackpot as jp
from shared.events.seamless import (
    SeamlessBetDecided,
    SeamlessRolledBack,
    SeamlessWinAcknowledged,
    SeamlessWinDecided,
)
from shared.money import MICRO_PER_MINOR
from shared.pools import load_pools
from tests.support.jackpot import DIAMOND, STJERNE, Network, claim, contribute

OPERATOR, OTHER = "op-s", "op-a"
T0_MS = 1_800_000_000_000
POOLS = load_pools()


def _fact(topic: str, data: Any, n: int) -> Fact:
    event = envelope(data, source="test", time=broker_time(T0_MS + n))
    return Fact(topic, f"{topic}[0]@{n}", T0_MS + n, event)


class History:
    """Rounds on wallet.seamless and the jackpot core's decisions on jackpot.events, built in order."""

    def __init__(self) -> None:
        self.seamless: list[Fact] = []
        self.networks = {network.network_id: Network(network) for network in (DIAMOND, STJERNE)}

    def _round(self, wager_id: uuid.UUID, operator_id: str, **fields: Any) -> dict[str, Any]:
        at = broker_time(T0_MS + len(self.seamless))
        return {"wager_id": wager_id, "player_id": "p-1", "operator_id": operator_id, "recorded_at": at, **fields}

    def bet(self, network, stake_minor: int, operator_id: str = OPERATOR) -> uuid.UUID:
        wager_id = uuid.uuid4()
        at = broker_time(T0_MS)
        decided = SeamlessBetDecided(
            **self._round(wager_id, operator_id),
            amount_minor=stake_minor,
            currency=network.currency,
            game=network.games[0],
            answer_by=at + timedelta(seconds=5),
            command_fingerprint="f",
        )
        self.seamless.append(_fact("wallet.seamless", decided, len(self.seamless)))
        return wager_id

    def win(self, network, wager_id: uuid.UUID, jackpot_win_minor: int = 0, acknowledged: bool = True) -> None:
        operator_id = next(f.data.operator_id for f in self.seamless if f.data.wager_id == wager_id)
        common = self._round(wager_id, operator_id, settlement_id=uuid.uuid4(), currency=network.currency)
        decided = SeamlessWinDecided(
            **common,
            amount_minor=40 + jackpot_win_minor,
            house_win_minor=40,
            jackpot_win_minor=jackpot_win_minor,
            give_up_at=common["recorded_at"] + timedelta(days=1),
            command_fingerprint="f",
        )
        self.seamless.append(_fact("wallet.seamless", decided, len(self.seamless)))
        if acknowledged:
            done = SeamlessWinAcknowledged(**common, amount_minor=40 + jackpot_win_minor)
            self.seamless.append(_fact("wallet.seamless", done, len(self.seamless)))

    def rolled_back(self, network, wager_id: uuid.UUID, stake_minor: int) -> None:
        done = SeamlessRolledBack(
            **self._round(wager_id, OPERATOR), amount_minor=stake_minor, currency=network.currency
        )
        self.seamless.append(_fact("wallet.seamless", done, len(self.seamless)))

    def contribute(self, network, wager_id: uuid.UUID, stake_minor: int, breakage_micro: int = 0, **fields) -> None:
        """The spin's contribution of the round, decided by the jackpot core."""
        operator_id = fields.pop("operator_id", OPERATOR)
        data = contribute(
            network, stake_minor=stake_minor, breakage_micro=breakage_micro, contribution_id=wager_id, **fields
        )
        self.networks[network.network_id].send(data.model_copy(update={"operator_id": operator_id}))

    def claim(self, network, wager_id: uuid.UUID, tier: str, stake_minor: int) -> int:
        """A pool share the round won, paid by the jackpot core; its amount."""
        claimed = claim(network, tier=tier, stake_minor=stake_minor, operator_id=OPERATOR, request_id=wager_id)
        (won,) = [
            e.data for e in self.networks[network.network_id].send(claimed).events if isinstance(e.data, jp.JackpotWon)
        ]
        return won.amount_minor

    def jackpot_facts(self) -> list[Fact]:
        events = [event for network in self.networks.values() for event in network.events]
        return [Fact("jackpot.events", f"jackpot.events[0]@{n}", T0_MS + n, e) for n, e in enumerate(events)]

    def rows(self) -> list[dict[str, Any]]:
        pools = fold_pools(self.jackpot_facts(), POOLS)
        return owed_rows(fold_rounds(self.seamless), pools, POOLS, OPERATOR)

    def credited(self, operator_id: str = OPERATOR) -> dict[str, int]:
        """What the jackpot core credited for `operator_id`'s contributions, per network, read off its events."""
        credited: dict[str, int] = {}
        for fact in self.jackpot_facts():
            if isinstance(fact.data, jp.ContributionsApplied):
                for item in fact.data.contributions:
                    if item.operator_id == operator_id:
                        credited[fact.data.network_id] = credited.get(fact.data.network_id, 0) + item.amount_micro
        return credited


def _played(history: History, network, stakes_minor, breakage_micro: int = 0) -> None:
    for stake_minor in stakes_minor:
        wager_id = history.bet(network, stake_minor)
        history.contribute(network, wager_id, stake_minor, breakage_micro)
        history.win(network, wager_id)


def test_an_operator_owes_the_rule_s_contributions_of_its_settled_rounds_exactly_what_the_pools_credited():
    history = History()
    _played(history, DIAMOND, (10, 20, 30, 50, 150, 750, 2000))
    _played(history, DIAMOND, (30, 150), breakage_micro=333_333)
    _played(history, STJERNE, (50, 100, 600, 2500, 10_000), breakage_micro=123_457)
    rolled = history.bet(DIAMOND, 500)  # the bet rolled back: no contribution, nothing owed
    history.rolled_back(DIAMOND, rolled, 500)
    other = history.bet(DIAMOND, 1000, operator_id=OTHER)  # another operator's round, on the same network
    history.contribute(DIAMOND, other, 1000, operator_id=OTHER)
    history.win(DIAMOND, other)

    rows = {row["network_id"]: row for row in history.rows()}

    assert set(rows) == {"diamond-mystery", "stjernestoev"}
    diamond, stjerne = rows["diamond-mystery"], rows["stjernestoev"]
    assert (diamond["currency"], stjerne["currency"]) == ("EUR", "DKK")
    assert diamond["rounds"] == 9 and stjerne["rounds"] == 5
    assert diamond["stakes_minor"] == 10 + 20 + 30 + 50 + 150 + 750 + 2000 + 30 + 150
    assert diamond["contributions_micro"] == diamond["stakes_minor"] * DIAMOND.contribution_ppm  # Σ stake × ppm
    assert stjerne["contributions_micro"] == (50 + 100 + 600 + 2500 + 10_000) * STJERNE.contribution_ppm
    assert (diamond["breakage_micro"], stjerne["breakage_micro"]) == (2 * 333_333, 5 * 123_457)
    credited = history.credited()
    for network_id, row in rows.items():
        assert row["owed_micro"] == row["contributions_micro"] + row["breakage_micro"]
        assert row["owed_micro"] == credited[network_id]  # the jackpot's own credits, read off its events
        assert row["pools_credited_micro"] == credited[network_id]
        assert row["contributions_difference_micro"] == 0 and not differs(row)
        payable_minor, carried_micro = divmod(row["owed_micro"], MICRO_PER_MINOR)
        assert (row["payable_minor"], row["carried_micro"]) == (payable_minor, carried_micro)
        assert row["net_minor"] == payable_minor  # no pool share paid
        assert row["operator_id"] == OPERATOR


def test_the_owed_amount_is_rounded_down_to_a_minor_unit_and_the_rest_carried():
    history = History()
    _played(history, DIAMOND, (150, 30), breakage_micro=200_000)  # 1.5 + 0.3 + 2 × 0.2 cents
    (row,) = history.rows()
    assert row["owed_micro"] == 2_200_000
    assert (row["payable_minor"], row["carried_micro"]) == (2, 200_000)


def test_a_pool_share_carried_in_the_win_call_nets_against_what_is_owed():
    history = History()
    _played(history, DIAMOND, (2000, 2000))
    wager_id = history.bet(DIAMOND, 2000)
    history.contribute(DIAMOND, wager_id, 2000)
    share_minor = history.claim(DIAMOND, wager_id, "green", 2000)
    history.win(DIAMOND, wager_id, jackpot_win_minor=share_minor)

    (row,) = history.rows()

    assert share_minor > 0
    assert (row["jackpot_wins_minor"], row["pools_paid_minor"], row["payouts_difference_minor"]) == (
        share_minor,
        share_minor,
        0,
    )
    assert row["net_minor"] == row["payable_minor"] - share_minor
    assert not differs(row)


def test_a_win_still_retried_owes_nothing_yet_and_its_credited_contribution_is_a_difference():
    history = History()
    _played(history, DIAMOND, (100,))
    pending = history.bet(DIAMOND, 200)  # a claim spin contributes at its bet; its win is not acknowledged yet
    history.contribute(DIAMOND, pending, 200)
    history.win(DIAMOND, pending, acknowledged=False)
    (row,) = history.rows()
    assert row["rounds"] == 1 and row["owed_micro"] == 100 * DIAMOND.contribution_ppm
    assert row["contributions_difference_micro"] == 200 * DIAMOND.contribution_ppm and differs(row)


def test_a_settled_round_the_pools_never_credited_or_credited_at_another_stake_is_a_difference():
    history = History()
    _played(history, DIAMOND, (100,))
    missing = history.bet(DIAMOND, 300)
    history.win(DIAMOND, missing)
    (row,) = history.rows()
    assert row["contributions_difference_micro"] == -300 * DIAMOND.contribution_ppm and differs(row)

    history = History()
    other_stake = history.bet(DIAMOND, 300)
    history.contribute(DIAMOND, other_stake, 200)
    history.win(DIAMOND, other_stake)
    (row,) = history.rows()
    assert row["contributions_difference_micro"] == -100 * DIAMOND.contribution_ppm and differs(row)


def test_a_pool_share_the_win_call_did_not_carry_is_a_difference():
    history = History()
    wager_id = history.bet(DIAMOND, 2000)
    history.contribute(DIAMOND, wager_id, 2000)
    share_minor = history.claim(DIAMOND, wager_id, "green", 2000)
    history.win(DIAMOND, wager_id, jackpot_win_minor=0)
    (row,) = history.rows()
    assert row["payouts_difference_minor"] == share_minor and differs(row)


def _plain(history: History) -> dict[str, dict[str, Any]]:
    """The plain reconciliation report's rows, per network, over no ledger wagers and the history's rounds."""
    pools = fold_pools(history.jackpot_facts(), POOLS)
    rows = reconciliation_rows(fold_ledger([]), pools, POOLS, fold_rounds(history.seamless))
    return {row["network_id"]: row for row in rows}


def test_the_plain_reconciliation_counts_every_operator_s_settled_rounds_beside_the_ledger_s():
    history = History()
    _played(history, DIAMOND, (10, 150, 2000), breakage_micro=333_333)
    _played(history, STJERNE, (50, 600))
    other = history.bet(DIAMOND, 1000, operator_id=OTHER)  # a second seamless operator on the same network
    history.contribute(DIAMOND, other, 1000, operator_id=OTHER)
    history.win(DIAMOND, other)
    won = history.bet(DIAMOND, 2000)
    history.contribute(DIAMOND, won, 2000)
    share_minor = history.claim(DIAMOND, won, "green", 2000)
    history.win(DIAMOND, won, jackpot_win_minor=share_minor)
    rolled = history.bet(DIAMOND, 500)
    history.rolled_back(DIAMOND, rolled, 500)

    rows = _plain(history)

    credited = history.credited()
    assert rows["diamond-mystery"]["seamless_contributions_micro"] == credited["diamond-mystery"] + (
        1000 * DIAMOND.contribution_ppm
    )
    assert rows["stjernestoev"]["seamless_contributions_micro"] == credited["stjernestoev"] > 0
    assert rows["diamond-mystery"]["seamless_jackpot_credits_micro"] == share_minor * MICRO_PER_MINOR > 0
    for row in rows.values():
        assert row["wallet_contributions_micro"] == 0 and row["levels_identity_holds"]
        assert (row["contributions_difference_micro"], row["payouts_difference_micro"]) == (0, 0)


def test_the_plain_reconciliation_names_a_seamless_round_the_pools_never_credited_or_one_not_yet_settled():
    history = History()
    _played(history, DIAMOND, (100,))
    missing = history.bet(DIAMOND, 300)
    history.win(DIAMOND, missing)
    assert _plain(history)["diamond-mystery"]["contributions_difference_micro"] == -300 * DIAMOND.contribution_ppm

    history = History()
    pending = history.bet(DIAMOND, 200)
    history.contribute(DIAMOND, pending, 200)
    history.win(DIAMOND, pending, acknowledged=False)
    assert _plain(history)["diamond-mystery"]["contributions_difference_micro"] == 200 * DIAMOND.contribution_ppm
