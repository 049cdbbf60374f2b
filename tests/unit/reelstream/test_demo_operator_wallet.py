"""`make run`'s seamless operator: the operators file `refwallet up` writes names demo-b seamless on the local reference
wallet and demo-a on the ledger (and the loader accepts it), the signing key is made once and readable by its owner
alone, and the demo gives one of its Rising Joker seats to a seamless operator's player (same number of players)."""

from __future__ import annotations

import stat

import orjson

from reelstream.demo import operator_wallet
from reelstream.demo.runner import demo_players
from seamless.signatures import Signer
from shared import operators


def test_the_operators_file_names_demo_b_seamless_on_the_wallet_and_demo_a_on_the_ledger(tmp_path):
    files = operator_wallet.WalletFiles(tmp_path)
    demo = operators.load_file(operators.DEMO_FILE)
    document = operator_wallet.operators_document(demo, "http://127.0.0.1:40001", files.key_file)
    loaded = operators.parse(orjson.dumps(document), "written")
    assert [operator.id for operator in loaded] == [operator.id for operator in demo]
    assert [operator.id for operator in operators.seamless_operators(loaded)] == [operator_wallet.SEAMLESS_OPERATOR]
    wallet = operators.seamless_wallet_of(operator_wallet.SEAMLESS_OPERATOR, loaded)
    assert wallet is not None
    assert (wallet.url, wallet.protocol, wallet.key_id) == ("http://127.0.0.1:40001", "hub88", operator_wallet.KEY_ID)
    assert wallet.private_key_file == str(tmp_path / "refwallet" / "reelstream.pem")
    assert not operators.is_seamless("demo-a", loaded)


def test_the_signing_key_is_made_once_and_only_its_owner_reads_it(tmp_path):
    files = operator_wallet.WalletFiles(tmp_path)
    operator_wallet.ensure_key(files)
    first = files.key_file.read_bytes()
    assert stat.S_IMODE(files.key_file.stat().st_mode) == 0o600
    signer = Signer.from_pem(operator_wallet.KEY_ID, first)
    assert signer.public_pem() == files.public_key_file.read_bytes()
    operator_wallet.ensure_key(files)
    assert files.key_file.read_bytes() == first


def test_the_demo_seats_a_seamless_operators_player_in_place_of_a_ledger_one():
    wallet = operators.SeamlessWallet("http://127.0.0.1:40001", "hub88", "k1", "/k.pem")
    seamless = (operators.Operator("demo-b", operators.SEAMLESS, wallet),)
    ledger_only, with_seamless = demo_players("ab12", 3), demo_players("ab12", 3, seamless)
    assert len(with_seamless) == len(ledger_only) == 6
    assert [p.game for p in with_seamless] == [p.game for p in ledger_only]
    [theirs] = [player for player in with_seamless if player.operator_id is not None]
    assert (theirs.player_id, theirs.game, theirs.wallet) == ("demo-ab12-demo-b-rj3", "rising-joker", wallet)
    assert all(player.wallet is None for player in ledger_only)
