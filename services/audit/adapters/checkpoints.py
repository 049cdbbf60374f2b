"""Audit checkpoints on disk: the seam's bytes, compressed, under a header (topic prefix, digest of the body, digest of
the checkpoint it continued from) signed with the auditor's Ed25519 key; one that does not verify is refused."""

from __future__ import annotations

import base64
import os
import zlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from services.audit.core.seam import Seam, SeamError, decode_seam, digest
from shared import signing
from shared.config import audit_dir

FORMAT = "reelstream.audit.checkpoint.v1"
AUDITOR = "auditor"
# The logical name the signature is bound to (no topic: checkpoints are files), so a record signature of another
# writer or topic can never pass as a checkpoint's.
SIGNED_AS = "audit.checkpoints"
KEY_DIR_ENV = "REELSTREAM_AUDITOR_KEY_DIR"
MAX_FILE_BYTES = 512 * 1024 * 1024


class CheckpointError(RuntimeError):
    """A checkpoint that must not be used: missing, unreadable, not verifying, or not of these topics."""


@dataclass(frozen=True)
class Stored:
    seam: Seam
    digest: str  # of the seam's bytes: the name the next checkpoint's `previous` gives it
    previous: str | None
    key_id: str


def default_path(prefix: str, env: dict[str, str] | None = None) -> Path:
    """One checkpoint per topic prefix under the state directory."""
    return audit_dir(env) / "checkpoints" / f"{prefix.rstrip('-.') or 'default'}.json"


def key_dir(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    return Path(env[KEY_DIR_ENV]) if env.get(KEY_DIR_ENV) else audit_dir(env) / "keys"


def write(path: Path, body: bytes, prefix: str, keys: Path, previous: str | None) -> str:
    """Sign and write the checkpoint atomically (the auditor's key is made on first use); returns the body's digest."""
    signing.generate(keys, (AUDITOR,))
    signer = signing.load_signer(keys, AUDITOR)
    header = {"format": FORMAT, "prefix": prefix, "digest": digest(body), "previous": previous}
    header_bytes = orjson.dumps(header, option=orjson.OPT_SORT_KEYS)
    signed = dict(signer.sign_one(SIGNED_AS, prefix.encode(), header_bytes, []))
    document = {
        "header": header,
        "signature": {name: base64.b64encode(value).decode() for name, value in signed.items()},
        "body": base64.b64encode(zlib.compress(body, 6)).decode(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(orjson.dumps(document))
    os.replace(temporary, path)
    return header["digest"]


def load(path: Path, prefix: str, keys: Path) -> Stored:
    """The verified checkpoint at `path`, or CheckpointError saying why it is refused."""
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}: run a full audit first (it writes one)")
    try:
        raw = orjson.loads(path.read_bytes()[:MAX_FILE_BYTES])
        header, signature = raw["header"], raw["signature"]
        header_bytes = orjson.dumps(header, option=orjson.OPT_SORT_KEYS)
        headers = [(name, base64.b64decode(value)) for name, value in signature.items()]
        body = zlib.decompress(base64.b64decode(raw["body"]))
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError, zlib.error) as error:
        raise CheckpointError(f"checkpoint {path} is unreadable ({type(error).__name__}): refused") from None
    problem = _signature_problem(keys, prefix, header_bytes, headers)
    if problem is not None:
        raise CheckpointError(f"checkpoint {path} is refused: {problem}")
    if header.get("format") != FORMAT or header.get("prefix") != prefix:
        raise CheckpointError(f"checkpoint {path} is of topic prefix {header.get('prefix')!r}, not {prefix!r}: refused")
    if digest(body) != header.get("digest"):
        raise CheckpointError(f"checkpoint {path} is refused: its body does not match the signed digest (tampered)")
    try:
        seam = decode_seam(body)
    except SeamError as error:
        raise CheckpointError(f"checkpoint {path} is refused: {error}") from None
    return Stored(seam, header["digest"], header.get("previous"), signature_key_id(headers))


def _signature_problem(keys: Path, prefix: str, header_bytes: bytes, headers: list) -> str | None:
    if not (keys / signing.PUBLIC_FILE).exists():
        return f"no auditor public key in {keys} to verify it"
    ring = signing.load_ring(keys)
    return ring.problem(AUDITOR, SIGNED_AS, prefix.encode(), header_bytes, headers)


def signature_key_id(headers: list[tuple[str, bytes]]) -> str:
    return next((value.decode(errors="replace") for name, value in headers if name == signing.KEY_ID), "")
