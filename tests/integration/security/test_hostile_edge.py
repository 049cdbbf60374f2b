"""The edge, tried as its least trusted principals through the real broker: one record each, the worst bytes the
principal is allowed to write, and the platform goes on (issue "one record from the least trusted principal").

Scenario: a platform runs on a fresh prefix with every writer's signing key. The game client writes a request whose
`data.request_id` is nested a thousand arrays deep, a request with a header name that is not UTF-8 between two honest
requests of the same partition, a request just under the broker's size limit, and a zstd batch that inflates to
64 MiB. Operator B's cashier signs a withdrawal for operator A's player with its own key and puts A's key id in front
of its own. A cashier's withdrawal carries a deep transaction id. The operator sends a pool command without its
network's key and one off its network's partition. Each is refused with a reason (dead-lettered, quarantined, or
answered), the honest records around them are answered in order, no balance or pool moves, and each service is
restarted and is ready again, meeting what it refused without stopping.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timezone

import pytest

from reelstream.client import Settled
from shared import records, signing
from shared.dead_letters import origin_of
from shared.events import encode, envelope
from shared.events.jackpot import DisablePool, PoolStatusChanged
from shared.events.spin import SpinRejected, SpinRequested, SpinSettled
from shared.events.wallet import Deposited, Withdraw, Withdrawn
from shared.kafka import producer
from shared.operators import OPERATORS, cashier_role
from shared.partitioning import partition_for
from shared.topics import JACKPOT_COMMANDS, NETWORK_PARTITIONS, PLAYER_PARTITIONS, SPIN_REQUESTS, WALLET_COMMANDS
from tests.integration.security.test_cashier_answers import cashier_roles  # noqa: F401 - the fixture
from tests.integration.spin.conftest import client_for, platform_factory, token_for  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration

A, B = OPERATORS[:2]
NETWORK = "diamond-mystery"


class RawName(str):
    """A header name whose bytes are `raw` on the wire: kafka-python's record builder encodes a name with `.encode`,
    so this writes what a non-Python client (librdkafka, franz-go) writes, e.g. a name that is not UTF-8."""

    raw: bytes

    def __new__(cls, raw: bytes) -> "RawName":
        made = super().__new__(cls, raw.decode("latin-1"))
        made.raw = raw
        return made

    def encode(self, *args, **kwargs) -> bytes:  # noqa: ARG002 - the builder asks for UTF-8; the wire gets raw
        return self.raw


@pytest.fixture(scope="module")
def platform(secured, keyed, cashier_roles, platform_factory):  # noqa: F811 - the imported fixtures
    return platform_factory()


def _request(player: str, *, request_id: str | None = None, token: str | None = None) -> bytes:
    data = SpinRequested(
        request_id=request_id or str(uuid.uuid4()),
        player_id=player,
        game="rising-joker",
        stake_minor=10,
        currency="EUR",
        session_token=token or token_for(player),
    )
    return encode(envelope(data, source="edge-test", time=datetime.now(timezone.utc)))


def _send(platform, role: str, topic: str, items, **options) -> list:
    """Each (key, value, headers) of `items` written by `role` to `topic` under the platform's prefix, in one batch
    where they share a partition; their metadata."""
    writer = producer(platform.bootstrap, role=role, client_id=f"edge-{role}", linger_ms=200, **options)
    try:
        futures = [
            writer.send(platform.topic(topic), key=key, value=value, headers=list(headers), partition=partition)
            for key, value, headers, partition in items
        ]
        writer.flush(30)
        return [future.get(timeout=30) for future in futures]
    finally:
        writer.close(10)


def _wait_for(what, within_s: float = 60.0):
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.5)
    return what()


def _letters(platform, topic: str, where) -> list:
    """The dead letters of `topic` whose origin is one of the written records `where` (their metadata)."""
    wanted = {(meta.partition, meta.offset) for meta in where}
    found = []
    for letter in platform.read_raw(f"{topic}.dlq"):
        origin = origin_of(letter.headers)
        if origin is not None and (origin.partition, origin.offset) in wanted:
            found.append((origin, letter))
    return found


def _answers(platform, player: str) -> list:
    from shared.events import decode

    return [decode(r.value).data for r in platform.read_raw("spin.events") if r.key == player.encode()]


def _players_on(partition: int, count: int, tag: str) -> list[str]:
    """`count` fresh player ids whose records all land on `partition` of the player-keyed topics."""
    found: list[str] = []
    while len(found) < count:
        candidate = f"{tag}-{uuid.uuid4().hex[:8]}"
        if partition_for(candidate.encode(), PLAYER_PARTITIONS) == partition:
            found.append(candidate)
    return found


def _spins(platform, player: str) -> None:
    """The platform still answers: a funded player's spin settles."""
    with client_for(platform) as client:
        assert isinstance(client.spin(player, "rising-joker", 10, "EUR", token_for(player), timeout_s=60), Settled)


def test_a_request_id_nested_a_thousand_deep_is_answered_invalid_and_the_spin_service_goes_on(platform):
    player, honest = f"deep-{uuid.uuid4().hex[:8]}", f"honest-{uuid.uuid4().hex[:8]}"
    deep = _request(player).replace(b'"request_id":"', b'"request_id":' + b"[" * 1000 + b"]" * 1000 + b',"x":"', 1)
    [meta] = _send(platform, "game-client", SPIN_REQUESTS, [(player.encode(), deep, (), None)])
    with client_for(platform) as client:
        client.deposit(honest, 1_000, "EUR", timeout_s=60)
        assert isinstance(client.spin(honest, "rising-joker", 10, "EUR", token_for(honest), timeout_s=60), Settled)
    [answer] = _wait_for(lambda: _answers(platform, player))
    assert isinstance(answer, SpinRejected) and answer.code == "INVALID_REQUEST" and answer.request_id is None
    [(origin, _)] = _wait_for(lambda: _letters(platform, SPIN_REQUESTS, [meta]))
    assert "nested deeper" in origin.reason
    _spins(platform, honest)


def test_a_header_name_that_is_not_utf8_is_refused_and_its_neighbours_in_the_batch_are_answered(platform):
    partition = 1
    first, bad, last = _players_on(partition, 3, "hdr")
    with client_for(platform) as client:
        for player in (first, last):
            client.deposit(player, 1_000, "EUR", timeout_s=60)
    hostile = [*records.headers_for("game-client"), (RawName(b"\xff\xfe"), b"v")]
    written = _send(
        platform,
        "game-client",
        SPIN_REQUESTS,
        [
            (first.encode(), _request(first), (), partition),
            (bad.encode(), _request(bad), hostile, partition),
            (last.encode(), _request(last), (), partition),
        ],
    )
    assert [meta.offset for meta in written] == [written[0].offset + i for i in range(3)]  # one batch, in order
    for player in (first, last):
        assert [type(answer) for answer in _wait_for(lambda: _answers(platform, player))] == [SpinSettled]
    [answer] = _wait_for(lambda: _answers(platform, bad))
    assert isinstance(answer, SpinRejected) and answer.code == "INVALID_REQUEST" and "not UTF-8" in answer.message
    [(origin, letter)] = _wait_for(lambda: _letters(platform, SPIN_REQUESTS, [written[1]]))
    assert origin.field == "headers" and "\\xff\\xfe" in origin.reason
    assert letter.value == records.redacted(_sent_value(platform, written[1]))  # the evidence, token hashed
    _spins(platform, first)


def _sent_value(platform, meta) -> bytes:
    [record] = [r for r in platform.read_raw(SPIN_REQUESTS) if (r.partition, r.offset) == (meta.partition, meta.offset)]
    return record.value


def test_bs_cashier_with_as_key_id_in_front_of_its_own_moves_no_money(platform):
    player = f"tenant-{uuid.uuid4().hex[:8]}"
    with _cashier_client(platform, A) as mine:
        assert isinstance(mine.deposit(player, 10_000, "EUR", timeout_s=60), Deposited)
    withdraw = Withdraw(transaction_id=uuid.uuid4(), player_id=player, amount_minor=1_000, currency="EUR")
    value = encode(envelope(withdraw, source="cashier-b", time=datetime.now(timezone.utc)))
    signed = records.signed_headers(cashier_role(B), WALLET_COMMANDS, player.encode(), value)
    as_key = signing.signer(cashier_role(A)).key_id.encode()
    forged = [(signing.KEY_ID, as_key), *signed]  # A's key id first: the one a first-wins reader would bind
    [meta] = _send(platform, cashier_role(B), WALLET_COMMANDS, [(player.encode(), value, forged, None)])
    [(origin, _)] = _wait_for(lambda: _letters(platform, WALLET_COMMANDS, [meta]))
    assert origin.code == records.UNTRUSTED_WRITER and "more than once" in origin.reason
    with _cashier_client(platform, A) as mine:
        again = mine.withdraw(player, 1, "EUR", timeout_s=60)  # the control: A's own withdrawal is taken
    assert isinstance(again, Withdrawn) and again.balance_after_minor == 9_999


def _cashier_client(platform, operator_id: str):
    from reelstream.client import ReelstreamClient

    return ReelstreamClient(
        platform.bootstrap, platform.prefix, role=cashier_role(operator_id), operator_id=operator_id
    )


def test_a_cashiers_withdrawal_with_a_deep_transaction_id_is_refused_and_the_wallet_goes_on(platform):
    player = f"deepw-{uuid.uuid4().hex[:8]}"
    withdraw = Withdraw(transaction_id=uuid.uuid4(), player_id=player, amount_minor=1, currency="EUR")
    value = encode(envelope(withdraw, source="cashier", time=datetime.now(timezone.utc)))
    value = value.replace(b'"transaction_id":"', b'"transaction_id":' + b"[" * 1000 + b"]" * 1000 + b',"x":"', 1)
    headers = records.signed_headers(cashier_role(A), WALLET_COMMANDS, player.encode(), value)
    _send(platform, cashier_role(A), WALLET_COMMANDS, [(player.encode(), value, headers, None)])
    with _cashier_client(platform, A) as mine:
        assert isinstance(mine.deposit(player, 500, "EUR", timeout_s=60), Deposited)
    _spins(platform, _funded(platform))


def _funded(platform) -> str:
    player = f"funded-{uuid.uuid4().hex[:8]}"
    with client_for(platform) as client:
        client.deposit(player, 1_000, "EUR", timeout_s=60)
    return player


def test_a_request_just_under_the_size_limit_is_dead_lettered_whole(platform):
    player = f"big-{uuid.uuid4().hex[:8]}"
    value = b'{"type":"reelstream.spin.requested.v1","pad":"' + b"a" * 1_040_000 + b'"}'
    [meta] = _send(
        platform, "game-client", SPIN_REQUESTS, [(player.encode(), value, (), None)], max_request_size=1_100_000
    )
    [(origin, letter)] = _wait_for(lambda: _letters(platform, SPIN_REQUESTS, [meta]))
    assert origin.code == "UNDECODABLE" and letter.value == value
    _spins(platform, _funded(platform))


def test_a_zstd_batch_that_inflates_past_the_bound_is_one_dead_letter_and_nothing_stops(platform):
    player = f"bomb-{uuid.uuid4().hex[:8]}"
    bomb = b'{"pad":"' + b"0" * (64 * 1024 * 1024) + b'"}'
    [meta] = _send(
        platform,
        "game-client",
        SPIN_REQUESTS,
        [(player.encode(), bomb, (), None)],
        compression_type="zstd",
        max_request_size=80 * 1024 * 1024,
    )
    [(origin, letter)] = _wait_for(lambda: _letters(platform, SPIN_REQUESTS, [meta]))
    assert "inflates past" in origin.reason
    assert len(letter.value) < 1024 * 1024  # the compressed batch as fetched, not its inflation
    _spins(platform, _funded(platform))


def test_a_pool_command_without_its_networks_key_or_off_its_partition_is_applied_nowhere(platform):
    home = partition_for(NETWORK.encode(), NETWORK_PARTITIONS)
    sent = []
    for key, partition in ((None, home), (NETWORK.encode(), 1 - home)):
        command = DisablePool(network_id=NETWORK, command_id=uuid.uuid4(), pool_id="dm-green", reason="edge test")
        value = encode(envelope(command, source="operator", time=datetime.now(timezone.utc)))
        headers = records.signed_headers("operator", JACKPOT_COMMANDS, key, value)
        sent += _send(platform, "operator", JACKPOT_COMMANDS, [(key, value, headers, partition)])
    letters = _wait_for(
        lambda: _letters(platform, JACKPOT_COMMANDS, sent)[1:] and _letters(platform, JACKPOT_COMMANDS, sent)
    )
    codes = sorted(origin.code for origin, _ in letters or ())
    assert codes == sorted(["WRONG_KEY", records.WRONG_PARTITION]), f"dead letters of the two commands: {codes}"
    changed = [r for r in platform.read_raw("jackpot.events") if PoolStatusChanged.TYPE.encode() in (r.value or b"")]
    assert not changed, "a refused pool command changed a pool"
    _spins(platform, _funded(platform))


def test_after_every_refusal_above_each_service_restarts_meets_them_again_and_answers(platform):
    # Last in the module: every hostile record above is in the logs each restore and each consumer reads again.
    platform.restart("wallet", "jackpot", "spin")
    _spins(platform, _funded(platform))
