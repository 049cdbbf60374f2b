"""Ed25519 signatures per transaction (defence in depth behind the ACLs): a Merkle tree over the records a writer
commits together, its root signed once (docs/security.md, "Transaction signatures")."""

from __future__ import annotations

import base64
import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from shared import operators
from shared.dead_letters import REDRIVE
from shared.topics import SEAMLESS_SAGA

KEY_ID = "reelstream-sig-kid"
SIGNATURE = "reelstream-sig"
PATH = "reelstream-sig-path"
SIGNATURE_HEADERS = frozenset({KEY_ID, SIGNATURE, PATH})
# Headers no signature covers: the signature's own, and the marker ops adds when it re-drives a dead letter (the
# re-driven record is otherwise byte for byte the signed one, so it verifies as its writer's).
UNCOVERED = SIGNATURE_HEADERS | {REDRIVE}
SIGNING_DIR_ENV = "REELSTREAM_SIGNING_DIR"
PUBLIC_FILE = "public.json"
# The writers that hold a key: the services that own topics, and the outside roles whose commands move money or pools.
# Each operator's cashier (shared/operators.py) has a key of its own, which signs what the cashier's key signs: the
# wallet binds the command to the operator of the key that signed it (never to one the client names).
OPERATOR_CASHIERS = tuple(operators.cashier_role(operator_id) for operator_id in operators.OPERATORS)
WRITERS = ("spin", "wallet", "jackpot", "monitor", SEAMLESS_SAGA, "cashier", "operator", *OPERATOR_CASHIERS)
# Writers whose keys are accepted where another writer's signature is required.
SIGNS_AS: dict[str, str] = {writer: "cashier" for writer in OPERATOR_CASHIERS}
_DOMAIN_RECORD = b"reelstream.record.v1\x00"
_DOMAIN_ROOT = b"reelstream.transaction.v1\x00"
_NONE = b"\xff\xff\xff\xff"
_STEP = 33  # one path step: a side byte (0: the sibling is on the left, 1: on the right) and the sibling's hash
_MAX_PATH_STEPS = 32
_CACHE_ROOTS = 8192
# Inner nodes a batch check keeps (~1 a record, ~250 bytes each); past that, paths are walked whole.
_SHARED_NODES_MAX = 1_000_000
_REREAD_S = 1.0

Headers = Sequence[tuple[str, bytes | None]]
Check = tuple[str, str, bytes | None, bytes | None, Headers | None]  # expected writer, topic, key, value, headers


class SigningError(RuntimeError):
    """A key file is missing or unreadable (the message names the file, never the key)."""


def _field(value: bytes | None) -> bytes:
    return _NONE if value is None else len(value).to_bytes(4, "big") + value


_NAMES: dict[str, bytes] = {}  # a topic's or header's name -> its encoded field (names are few; bounded below)
_NAMES_MAX = 1024


def _name(name: str) -> bytes:
    field = _NAMES.get(name)
    if field is None:
        field = _field(name.encode())
        if len(_NAMES) < _NAMES_MAX:
            _NAMES[name] = field
    return field


def record_digest(logical_topic: str, key: bytes | None, value: bytes | None, headers: Headers | None) -> bytes:
    """SHA-256 over the topic's logical name, key, value and every covered header (sorted, length-prefixed), joined
    and hashed in one call (every record read is hashed: one `update` per field cost more than the hash)."""
    parts = [_DOMAIN_RECORD, _name(logical_topic), _field(key), _field(value)]
    for name, content in sorted((k, v or b"") for k, v in headers or () if k not in UNCOVERED):
        parts += (_name(name), len(content).to_bytes(4, "big"), content)
    return hashlib.sha256(b"".join(parts)).digest()


def _leaf(digest: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + digest).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def merkle(digests: Sequence[bytes]) -> tuple[bytes, list[bytes]]:
    """The root over the digests and each one's inclusion path (encoded steps; an odd last node moves up as is)."""
    level = [_leaf(digest) for digest in digests]
    paths = [bytearray() for _ in digests]
    positions = list(range(len(digests)))
    while len(level) > 1:
        for index, position in enumerate(positions):
            sibling = position ^ 1
            if sibling < len(level):
                paths[index] += (b"\x00" if position & 1 else b"\x01") + level[sibling]
            positions[index] = position // 2
        level = [_node(level[i], level[i + 1]) if i + 1 < len(level) else level[i] for i in range(0, len(level), 2)]
    return level[0], [bytes(path) for path in paths]


def root_of(digest: bytes, path: bytes) -> bytes | None:
    """The root a digest and its inclusion path lead to; None for a malformed path."""
    if not _well_formed(path):
        return None
    node = _leaf(digest)
    for start in range(0, len(path), _STEP):
        node = _up(node, path, start)
    return node


def _up(node: bytes, path: bytes, start: int) -> bytes:
    """The parent of `node` by the path's step at `start` (side 0: the sibling is on the left)."""
    sibling = path[start + 1 : start + _STEP]
    return _node(sibling, node) if path[start] == 0 else _node(node, sibling)


def _well_formed(path: bytes) -> bool:
    """What `root_of` requires of a path before hashing it: whole steps, not too many, each side byte 0 or 1."""
    return (
        not len(path) % _STEP
        and len(path) // _STEP <= _MAX_PATH_STEPS
        and not path[::_STEP].translate(None, b"\x00\x01")
    )


def key_id_of(writer: str, public: Ed25519PublicKey) -> str:
    raw = public.public_bytes_raw()
    return f"{writer}-{hashlib.sha256(raw).hexdigest()[:12]}"


@dataclass(frozen=True)
class Item:
    """One record to sign: the topic's logical name, key, value and headers (without signature headers)."""

    topic: str
    key: bytes | None
    value: bytes | None
    headers: Headers


class Signer:
    """A writer's private key: signs one transaction's records with one Ed25519 signature."""

    def __init__(self, writer: str, key_id: str, private: Ed25519PrivateKey) -> None:
        self.writer, self.key_id, self._private = writer, key_id, private

    def __repr__(self) -> str:  # never the key
        return f"Signer({self.writer!r}, {self.key_id!r})"

    def sign(self, items: Sequence[Item]) -> list[list[tuple[str, bytes]]]:
        """Each item's headers with the key id, the transaction's signature and the item's inclusion path added."""
        if not items:
            return []
        root, paths = merkle([record_digest(i.topic, i.key, i.value, i.headers) for i in items])
        signature = self._private.sign(_DOMAIN_ROOT + root)
        kid = self.key_id.encode()
        return [
            [
                *((k, v) for k, v in item.headers if k not in SIGNATURE_HEADERS),
                (KEY_ID, kid),
                (SIGNATURE, signature),
                (PATH, path),
            ]
            for item, path in zip(items, paths)
        ]

    def sign_one(self, topic: str, key: bytes | None, value: bytes | None, headers: Headers) -> list[tuple[str, bytes]]:
        return self.sign([Item(topic, key, value, headers)])[0]


class KeyRing:
    """The accepted public keys by key id (each bound to its writer), with a cache of verified transaction roots."""

    def __init__(self, keys: dict[str, tuple[str, Ed25519PublicKey]], directory: Path | None = None) -> None:
        self.keys = dict(keys)
        # Where the keys came from: an unknown key id re-reads it (at most once a second), so a writer's rotated key
        # is accepted without restarting every reader.
        self._directory, self._read_at = directory, time.monotonic()
        self._verified: OrderedDict[tuple[str, bytes], None] = OrderedDict()
        self._lock = threading.Lock()
        self.verifies = 0  # Ed25519 verifications done (the rest were cached roots)

    def problem(
        self, expected: str, topic: str, key: bytes | None, value: bytes | None, headers: Headers | None
    ) -> str | None:
        """Why this record is not signed by `expected`'s key, or None."""
        return self.verify(expected, topic, key, value, headers)[1]

    def verify(
        self, expected: str, topic: str, key: bytes | None, value: bytes | None, headers: Headers | None
    ) -> tuple[str | None, str | None]:
        """(the writer whose key signed this record, None) when a key of `expected` (or of a writer signing as it)
        signed it, else (None, why not): whom a record binds comes from the very key that verified it."""
        claim = self._claim(expected, headers)
        if isinstance(claim, str):
            return None, claim
        kid, writer, public, found = claim
        root = root_of(record_digest(topic, key, value, headers), found[PATH])
        if root is None:
            return None, "malformed signature path"
        problem = self._accepted(kid, public, root, found[SIGNATURE])
        return (writer, None) if problem is None else (None, problem)

    def problems(self, checks: Iterable[Check], nodes: dict | None = None) -> list[str | None]:
        """`problem` of each (expected writer, topic, key, value, headers), the same answers, for many records at once
        (an audit's reads). A record's path is hashed upwards only until it meets an inner node of a record already
        accepted here with the same key id, signature and rest of path: a transaction read whole costs ~4 SHA-256 a
        record (its digest, its leaf, each inner node twice over the transaction) instead of ~2 + its path's length,
        and one Ed25519 check. `nodes` carries the accepted nodes from call to call (a history checked as it is read).
        """
        shared = {} if nodes is None else nodes  # accepted inner node -> (kid, signature, path, where its rest starts)
        return [self._problem_sharing(shared, *check) for check in checks]

    def _problem_sharing(
        self, shared: dict, expected: str, topic: str, key: bytes | None, value: bytes | None, headers: Headers | None
    ) -> str | None:
        claim = self._claim(expected, headers)
        if isinstance(claim, str):
            return claim
        kid, _, public, found = claim
        path, signature = found[PATH], found[SIGNATURE]
        if not _well_formed(path):
            return "malformed signature path"
        node, fresh = _leaf(record_digest(topic, key, value, headers)), []
        for start in range(0, len(path), _STEP):
            if start:
                known = shared.get(node)
                if known is not None and known[:2] == (kid, signature) and path[start:] == known[2][known[3] :]:
                    break  # the rest of the way is an accepted record's: the same root, accepted
                fresh.append((node, start))
            node = _up(node, path, start)
        else:
            problem = self._accepted(kid, public, node, signature)
            if problem is not None:
                return problem
        if len(shared) < _SHARED_NODES_MAX:
            for inner, start in fresh:
                shared[inner] = (kid, signature, path, start)
        return None

    def _claim(
        self, expected: str, headers: Headers | None
    ) -> str | tuple[str, str, Ed25519PublicKey, dict[str, bytes]]:
        """Why the record's signature headers cannot be `expected`'s, else (key id, its writer, its public key, the
        headers). Each signature header must be there exactly once: with two key ids, which one verified and which one
        named the signer would depend on who reads first."""
        found: dict[str, bytes] = {}
        for name, content in headers or ():
            if name not in SIGNATURE_HEADERS:
                continue
            if name in found or content is None:
                return f"signature header {name!r} is repeated or empty; only {expected!r} signs this"
            found[name] = content
        if len(found) < len(SIGNATURE_HEADERS):
            return f"unsigned; only {expected!r} signs this"
        kid = found[KEY_ID].decode(errors="replace")
        entry = self.keys.get(kid)
        if entry is None and self._reread():
            entry = self.keys.get(kid)
        if entry is None:
            return f"signed with unknown key id {kid[:40]!r}"
        writer, public = entry
        if writer != expected and SIGNS_AS.get(writer) != expected:
            return f"signed by {writer!r}, only {expected!r} signs this"
        return kid, writer, public, found

    def _accepted(self, kid: str, public: Ed25519PublicKey, root: bytes, signature: bytes) -> str | None:
        """Why `signature` is not `kid`'s over `root`, or None (a root verified before is not verified again)."""
        with self._lock:
            if (kid, root) in self._verified:
                self._verified.move_to_end((kid, root))
                return None
        try:
            self.verifies += 1
            public.verify(signature, _DOMAIN_ROOT + root)
        except InvalidSignature:
            return f"signature does not verify with {kid!r}"
        with self._lock:
            self._verified[(kid, root)] = None
            while len(self._verified) > _CACHE_ROOTS:
                self._verified.popitem(last=False)
        return None

    def _reread(self) -> bool:
        if self._directory is None or time.monotonic() - self._read_at < _REREAD_S:
            return False
        self._read_at = time.monotonic()
        self.keys = _read_public(self._directory)
        return True


def generate(directory: Path, writers: Iterable[str] = WRITERS) -> list[str]:
    """Make a key for each writer that has none (idempotent), keep every public key in `public.json`; returns the new
    key ids. `rotate` replaces a writer's key and keeps the old public key accepted."""
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o700)
    made = []
    for writer in writers:
        if not _private_file(directory, writer).exists():
            made.append(_new_key(directory, writer))
    return made


def rotate(directory: Path, writer: str) -> str:
    """A new key for `writer` (signing from now on); the old public key stays accepted until `retire`d."""
    return _new_key(directory, writer)


def retire(directory: Path, key_id: str) -> bool:
    ring = _read_public(directory)
    if key_id not in ring or any(_private_id(directory, w) == key_id for w in WRITERS):
        return False  # unknown, or still a writer's signing key
    del ring[key_id]
    _write_public(directory, ring)
    return True


def _private_file(directory: Path, writer: str) -> Path:
    return directory / f"{writer}.key.json"


def _private_id(directory: Path, writer: str) -> str | None:
    path = _private_file(directory, writer)
    return orjson.loads(path.read_bytes())["key_id"] if path.exists() else None


def _new_key(directory: Path, writer: str) -> str:
    private = Ed25519PrivateKey.generate()
    kid = key_id_of(writer, private.public_key())
    secret = {"writer": writer, "key_id": kid, "private_key": base64.b64encode(private.private_bytes_raw()).decode()}
    path = _private_file(directory, writer)
    temporary = path.with_suffix(".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(orjson.dumps(secret))
    os.replace(temporary, path)
    ring = _read_public(directory)
    ring[kid] = (writer, private.public_key())
    _write_public(directory, ring)
    return kid


def _read_public(directory: Path) -> dict[str, tuple[str, Ed25519PublicKey]]:
    path = directory / PUBLIC_FILE
    if not path.exists():
        return {}
    try:
        raw = orjson.loads(path.read_bytes())
        return {
            k["key_id"]: (k["writer"], Ed25519PublicKey.from_public_bytes(base64.b64decode(k["public_key"])))
            for k in raw["keys"]
        }
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SigningError(f"cannot read the public keys in {path}: {error.__class__.__name__}") from None


def _write_public(directory: Path, ring: dict[str, tuple[str, Ed25519PublicKey]]) -> None:
    keys = [
        {"key_id": kid, "writer": writer, "public_key": base64.b64encode(public.public_bytes_raw()).decode()}
        for kid, (writer, public) in sorted(ring.items())
    ]
    path = directory / PUBLIC_FILE
    path.with_suffix(".tmp").write_bytes(orjson.dumps({"keys": keys}, option=orjson.OPT_INDENT_2))
    os.replace(path.with_suffix(".tmp"), path)


def load_ring(directory: Path) -> KeyRing:
    return KeyRing(_read_public(directory), directory)


def load_signer(directory: Path, writer: str) -> Signer:
    path = _private_file(directory, writer)
    try:
        raw = orjson.loads(path.read_bytes())
        private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(raw["private_key"]))
        return Signer(raw["writer"], raw["key_id"], private)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SigningError(f"cannot read {writer!r}'s signing key {path}: {error.__class__.__name__}") from None


def signing_dir(env: dict[str, str] | None = None) -> Path | None:
    value = (os.environ if env is None else env).get(SIGNING_DIR_ENV, "").strip()
    return Path(value) if value else None


_rings: dict[Path, KeyRing] = {}
_ring_by_setting: dict[str, KeyRing | None] = {}
_signers: dict[tuple[Path, str], Signer] = {}


def ring() -> KeyRing | None:
    """The environment's key ring (loaded once per directory), or None: signatures are then not required. Called for
    every record read, so the setting's text is looked up before any path is built (a path per record would be a
    visible share of an audit), and a setting that names no directory is remembered as such too."""
    setting = os.environ.get(SIGNING_DIR_ENV, "")
    if setting in _ring_by_setting:
        return _ring_by_setting[setting]
    directory = signing_dir({SIGNING_DIR_ENV: setting})
    if directory is None:
        _ring_by_setting[setting] = None
        return None
    if directory not in _rings:
        _rings[directory] = load_ring(directory)
    _ring_by_setting[setting] = _rings[directory]
    return _rings[directory]


def signer(writer: str) -> Signer | None:
    """`writer`'s signer from the environment's signing directory, or None without one."""
    directory = signing_dir()
    if directory is None:
        return None
    if (directory, writer) not in _signers:
        _signers[(directory, writer)] = load_signer(directory, writer)
    return _signers[(directory, writer)]


def sign_one(
    writer: str, topic: str, key: bytes | None, value: bytes | None, headers: Headers
) -> list[tuple[str, bytes]]:
    """The headers of one record `writer` writes alone (tools, the cashier, the operator): signed when the environment
    has a signing directory, else as they are."""
    chosen = signer(writer)
    return list(headers) if chosen is None else chosen.sign_one(topic, key, value, headers)


def sign_records(writer: str, topic: str, records: Sequence[Any]) -> list[Any]:
    """Dataclass records (key, value, headers) that `writer` commits together on `topic`, signed once as a whole;
    unchanged without a signing directory."""
    chosen = signer(writer)
    if chosen is None or not records:
        return list(records)
    signed = chosen.sign([Item(topic, r.key, r.value, r.headers) for r in records])
    return [replace(record, headers=headers) for record, headers in zip(records, signed)]


def sign_items(writer: str, items: Sequence[Item]) -> list[list[tuple[str, bytes]]]:
    """Each item's headers, the items signed once as one transaction of `writer` (as they are without a signing
    directory)."""
    chosen = signer(writer)
    return [list(item.headers) for item in items] if chosen is None else chosen.sign(items)
