"""Checkpoint files: what the auditor's key signed is what the next audit continues from; an edited body, a header
signed by another key, another prefix's checkpoint or a missing file are refused with a reason, never used."""

from __future__ import annotations

import base64
import zlib

import orjson
import pytest

from services.audit.adapters import checkpoints
from services.audit.adapters.checkpoints import CheckpointError
from services.audit.core.audit import run_audit
from services.audit.core.seam import cut, encode_seam
from bench.synthetic.spins import play_history, stand_in_lookup
from shared import signing


@pytest.fixture(scope="module")
def body() -> bytes:
    history = play_history(seed=4, players=2, spins_per_player=5).records()
    return encode_seam(cut(run_audit(history, lookup=stand_in_lookup), {("wallet.events", 0): 30}))


def written(tmp_path, body: bytes, previous: str | None = None):
    path, keys = tmp_path / "checkpoints" / "p.json", tmp_path / "keys"
    return path, keys, checkpoints.write(path, body, "p-", keys, previous)


def test_a_written_checkpoint_loads_with_its_seam_digest_and_chain(tmp_path, body):
    path, keys, digest = written(tmp_path, body, previous="ab" * 32)
    stored = checkpoints.load(path, "p-", keys)
    assert stored.digest == digest and stored.previous == "ab" * 32
    assert stored.key_id.startswith("auditor-")
    assert encode_seam(stored.seam) == body
    assert (keys / "auditor.key.json").stat().st_mode & 0o077 == 0


def _edit(path, change) -> None:
    document = orjson.loads(path.read_bytes())
    change(document)
    path.write_bytes(orjson.dumps(document))


def test_an_edited_body_is_refused_as_tampered(tmp_path, body):
    path, keys, _ = written(tmp_path, body)
    edited = body.replace(b'"latest_ms":', b'"latest_ms":1')
    _edit(path, lambda d: d.update(body=base64.b64encode(zlib.compress(edited)).decode()))
    with pytest.raises(CheckpointError, match="does not match the signed digest"):
        checkpoints.load(path, "p-", keys)


def test_a_header_signed_with_another_key_is_refused(tmp_path, body):
    path, keys, _ = written(tmp_path, body)
    forger_keys = tmp_path / "forger"
    signing.generate(forger_keys, ("auditor",))
    forged_path = tmp_path / "forged.json"
    checkpoints.write(forged_path, body.replace(b'"latest_ms":', b'"latest_ms":1'), "p-", forger_keys, None)
    path.write_bytes(forged_path.read_bytes())
    with pytest.raises(CheckpointError, match="refused: signed with unknown key id"):
        checkpoints.load(path, "p-", keys)


def test_an_edited_header_is_refused(tmp_path, body):
    path, keys, _ = written(tmp_path, body)
    _edit(path, lambda d: d["header"].update(previous="00" * 32))
    with pytest.raises(CheckpointError, match="signature does not verify"):
        checkpoints.load(path, "p-", keys)


def test_another_prefix_a_missing_file_and_missing_keys_are_refused(tmp_path, body):
    path, keys, _ = written(tmp_path, body)
    with pytest.raises(CheckpointError, match="refused"):
        checkpoints.load(path, "other-", keys)
    with pytest.raises(CheckpointError, match="no checkpoint at"):
        checkpoints.load(tmp_path / "none.json", "p-", keys)
    with pytest.raises(CheckpointError, match="no auditor public key"):
        checkpoints.load(path, "p-", tmp_path / "no-keys")
    path.write_bytes(b"{not json")
    with pytest.raises(CheckpointError, match="unreadable"):
        checkpoints.load(path, "p-", keys)
