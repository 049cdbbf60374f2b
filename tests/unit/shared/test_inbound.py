"""The loop reads each record once: one decoder call per record a service reads (none for one that is none of its
business), its type never peeked again for provenance, and the service decides on the message it was handed.

Scenario: batches of the wallet, the jackpot and the spin go through the loop's decide step (no broker) while the
decoder and the type peek of shared/records.py count their calls.
"""

from __future__ import annotations

import uuid
from collections import Counter
from types import SimpleNamespace

import pytest

from services.jackpot.adapters.runner import JackpotConfig, JackpotService
from services.spin.adapters.runner import SnapshotPolicy, SpinRunner
from services.spin.core.book import SpinBook
from services.wallet.adapters.runner import WalletConfig, WalletService
from services.wallet.adapters.written import Written
from services.wallet.core.book import WalletBook
from shared import records
from shared.config import load_settings
from shared.events import broker_time, encode, envelope
from shared.events.wallet import Deposit, Withdraw
from shared.topics import SPIN_REQUESTS, WALLET_COMMANDS, WALLET_EVENTS
from tests.support.jackpot import DIAMOND, contribute
from tests.support.spin import NO_CLAIM, NOW_MS, Seeds, make_context, placed_for, request_bytes

PLAYER = "p-1"


@pytest.fixture
def calls(monkeypatch) -> Counter:
    counted: Counter = Counter()
    for name in ("decode_one_pass", "peek_type"):
        original = getattr(records, name)

        def counting(*args, _original=original, _name=name, **kwargs):
            counted[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(records, name, counting)
    return counted


def _record(topic: str, offset: int, key: bytes | None, value: bytes, writer: str | None = None, at_ms: int = NOW_MS):
    headers = records.headers_for(writer) if writer is not None else []
    return SimpleNamespace(
        topic=topic, partition=0, offset=offset, key=key, value=value, headers=headers, timestamp=at_ms
    )


def _command(data, at_ms: int = NOW_MS) -> bytes:
    return encode(envelope(data, source="test", time=broker_time(at_ms), id=uuid.uuid4()))


def test_the_wallet_decodes_each_command_once_and_never_peeks_its_type_again(calls):
    service = WalletService(
        WalletConfig(
            bootstrap="unused",
            commands_topic=WALLET_COMMANDS,
            events_topic=WALLET_EVENTS,
            dlq_topic="x.dlq",
            group_id="g",
        )
    )
    book, service.written[0] = WalletBook(0), Written()  # as a restore leaves them
    commands = [
        Deposit(transaction_id=uuid.uuid4(), player_id=PLAYER, amount_minor=500, currency="EUR"),
        Withdraw(transaction_id=uuid.uuid4(), player_id=PLAYER, amount_minor=200, currency="EUR"),
    ]
    batch = [_record(WALLET_COMMANDS, n, PLAYER.encode(), _command(c), "cashier") for n, c in enumerate(commands)]
    outputs = service.loop._decide(0, book, batch)
    assert [out.dead_letter for out in outputs] == [False, False]
    assert book.players[PLAYER].balances_minor == {"EUR": 300}
    assert calls == Counter(decode_one_pass=len(batch))


def test_a_refused_record_is_decoded_once_and_dead_lettered_by_the_loop(calls):
    config = JackpotConfig.on_prefix("unused", "x.")
    service = JackpotService(config, secrets=object())
    forged = _record(config.internal_topic, 0, DIAMOND.network_id.encode(), _command(contribute()), "game-client")
    (letter,) = service.loop._decide(0, {}, [forged])
    assert letter.dead_letter and letter.value == forged.value and letter.topic == "x.jackpot.internal.dlq"
    assert calls == Counter(decode_one_pass=1)


def test_the_jackpot_decodes_each_command_once(calls):
    config = JackpotConfig.on_prefix("unused", "x.")
    service = JackpotService(config, secrets=object())
    key = DIAMOND.network_id.encode()
    batch = [_record(config.internal_topic, n, key, _command(contribute()), "spin") for n in range(3)]
    outputs = service.loop._decide(0, {}, batch)
    assert outputs and not any(out.dead_letter for out in outputs)
    assert calls == Counter(decode_one_pass=len(batch))


def test_the_spin_decodes_each_record_it_reads_once_and_a_combined_spins_debit_never(calls):
    settings = load_settings()
    runner = SpinRunner(settings, make_context(Seeds(NO_CLAIM)), SnapshotPolicy(enabled=False))
    book = SpinBook()
    _, raw = request_bytes()
    asked = [_record(settings.topic(SPIN_REQUESTS), 0, PLAYER.encode(), raw)]
    outputs = runner.loop._decide(0, book, asked)
    assert calls == Counter(decode_one_pass=1)
    place = next(out for out in outputs if out.tag in ("place", "debit"))
    debited, settled = placed_for(SimpleNamespace(value=place.value, key=place.key, kind=place.tag))
    facts = [
        _record(settings.topic(WALLET_EVENTS), n, PLAYER.encode(), encode(fact), "wallet")
        for n, fact in enumerate((debited, settled))
    ]
    answered = runner.loop._decide(0, book, facts)
    assert [out.tag for out in answered if out.tag.startswith("answer")] == ["answer"]
    assert calls == Counter(decode_one_pass=2)  # the request and the settlement; the debit is none of its business


def test_the_wallet_reads_a_settlements_jackpot_wons_once_each_decoded_and_judged():
    from services.wallet.adapters.handler import INPUTS as WALLET_INPUTS
    from shared import inbound
    from shared.events.jackpot import JackpotWon
    from shared.events.wallet import SettleWager
    from tests.support.proofs import jackpot_won, proof_of, proven, written_by

    wager = uuid.uuid4()
    won = jackpot_won(wager, PLAYER, 5_000, 100)
    forged = proof_of(written_by("spin", won))  # by a writer jackpot.events does not trust
    settle = SettleWager(
        transaction_id=uuid.uuid4(),
        player_id=PLAYER,
        wager_id=wager,
        currency="EUR",
        house_win_minor=0,
        jackpot_win_minor=10_000,
        breakage_micro=0,
        contribution_micro=0,
        network_id="net-1",
        jackpot_proofs=(proven(won), forged),
    )
    internal = next(spec for spec in WALLET_INPUTS if spec.logical.endswith("wallet.internal"))
    record = _record("wallet.internal", 0, PLAYER.encode(), _command(settle), writer="spin")
    message = inbound.read(internal, record, 1).message
    assert message is not None
    honest, judged = message.proof
    assert isinstance(honest.won, JackpotWon) and honest.won.claim_id == won.claim_id and honest.problem is None
    assert isinstance(judged.won, JackpotWon) and judged.problem is not None
