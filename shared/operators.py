"""The operators of this deployment, from its operators file: each gets its own answer topics and game-client and
cashier roles (shared/topics.py, shared/roles.py), so one operator's backend reads only its own players' answers.
Empty: a single-operator deployment, answered on spin.events and wallet.events alone."""

from __future__ import annotations

import ipaddress
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

FILE_ENV = "REELSTREAM_OPERATORS_FILE"
# Outside production an unset variable means the two demo operators, so the per-operator topics and principals exist
# to be tried locally and in CI; a production process names its file (deploy/operators/production.json lists none).
DEMO_FILE = Path(__file__).resolve().parents[1] / "deploy" / "operators" / "demo.json"
FILE_BYTES_MAX = 64 * 1024
OPERATORS_MAX = 256
# How an operator's players' money is held: on the platform's own ledger (named or not), or in the operator's own
# wallet, which reelstream calls over HTTP (docs/seamless.md).
LEDGER, SEAMLESS = "ledger", "seamless"
WALLET_MODES = (LEDGER, SEAMLESS)
# The protocols behind seamless/port.py, by name (seamless/protocols.py; a unit test holds the two lists equal: the
# ground floor cannot import the seamless package, which imports the event models).
WALLET_PROTOCOLS = ("hub88", "reelstream")
_KEYS = frozenset({"operators"})
_OPERATOR_KEYS = frozenset({"id", "wallet_mode", "wallet"})
_WALLET_REQUIRED = frozenset({"url", "protocol", "key_id", "private_key_file"})
_WALLET_KEYS = _WALLET_REQUIRED | {"call_timeout_ms", "bet_timeout_ms", "win_retry_s", "egress_cidrs"}
# A cluster's network policies cannot name a host, only addresses: the wallet's, as CIDRs (deploy/k8s/seamless.py).
EGRESS_CIDRS_MAX = 16
_KEY_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# Bounds on the saga's clocks: a call never waits longer than its bet may stay open, a win is retried for a minute at
# least and a week at most (the default is the market's 24 h).
CALL_TIMEOUT_MS_MAX = 30_000
BET_TIMEOUT_MS_MAX = 60_000
WIN_RETRY_S_DEFAULT = 24 * 3600
WIN_RETRY_S_RANGE = (60, 7 * 24 * 3600)


@dataclass(frozen=True)
class SeamlessWallet:
    """Where and how to call a seamless operator's wallet. `private_key_file` is a reference (a mounted secret's path),
    read by the process that signs, never by the loader; `key_id` names that key to the operator's wallet."""

    url: str
    protocol: str
    key_id: str
    private_key_file: str
    call_timeout_ms: int = 3_000
    bet_timeout_ms: int = 5_000
    win_retry_s: int = WIN_RETRY_S_DEFAULT
    egress_cidrs: tuple[str, ...] = ()

    @property
    def port(self) -> int:
        """The TCP port the wallet's URL names, or its scheme's."""
        parts = urlsplit(self.url)
        return parts.port or (443 if parts.scheme == "https" else 80)


class OperatorsFileError(ValueError):
    """The operators file is missing, unreadable or malformed (the message names the file and the problem)."""


@dataclass(frozen=True)
class Operator:
    """One operator; `wallet` is given exactly when `wallet_mode` is seamless."""

    id: str
    wallet_mode: str = LEDGER
    wallet: SeamlessWallet | None = None


ANSWERS_PREFIX = "spin.answers."
CLIENT_PREFIX = "game-client."
WALLET_ANSWERS_PREFIX = "wallet.answers."
CASHIER_PREFIX = "cashier."
# Narrower than the ring's operator ids: an id also names a topic and a Kubernetes KafkaUser (lower-case DNS label).
_ID = re.compile(r"^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$")


def answers_topic(operator_id: str) -> str:
    """The logical name of an operator's answer topic: its players' SpinSettled / SpinRejected, copied."""
    return ANSWERS_PREFIX + operator_id


def client_role(operator_id: str) -> str:
    """The role (and SCRAM user) an operator's game front ends connect as."""
    return CLIENT_PREFIX + operator_id


def wallet_answers_topic(operator_id: str) -> str:
    """The logical name of an operator's cashier answer topic: the wallet's results of its cashier's commands."""
    return WALLET_ANSWERS_PREFIX + operator_id


def cashier_role(operator_id: str) -> str:
    """The role (SCRAM user and signing key) an operator's cashier connects and signs as."""
    return CASHIER_PREFIX + operator_id


def cashier_operator(writer: str | None, operators: tuple[str, ...] | None = None) -> str | None:
    """The operator whose cashier `writer` is (`cashier.<O>` of a listed O, by default of OPERATORS), else None (the
    plain cashier, anyone)."""
    operator_id = writer.removeprefix(CASHIER_PREFIX) if writer and writer.startswith(CASHIER_PREFIX) else None
    return operator_id if known(operator_id, operators) else None


def known(operator_id: str | None, operators: tuple[str, ...] | None = None) -> bool:
    """Whether `operator_id` is one of `operators`, by default of this deployment's."""
    return operator_id is not None and operator_id in (OPERATORS if operators is None else operators)


def checked(operators: tuple[str, ...]) -> tuple[str, ...]:
    """The list as given, or ValueError naming the first id no topic or KafkaUser could carry, or a repeat."""
    for operator_id in operators:
        if not _ID.match(operator_id):
            raise ValueError(f"operator id {operator_id!r} is not a lower-case DNS label (a-z, 0-9, '-', ≤ 32)")
    if len(set(operators)) != len(operators):
        raise ValueError(f"operator ids repeat: {operators}")
    return operators


def parse(text: bytes, source: str) -> tuple[Operator, ...]:
    """The operators of a file's text, exactly `{"operators": [{"id": ...}, ...]}`; OperatorsFileError otherwise."""
    if len(text) > FILE_BYTES_MAX:
        raise OperatorsFileError(f"{source}: larger than {FILE_BYTES_MAX} bytes")
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys)
    except (ValueError, UnicodeDecodeError) as error:
        raise OperatorsFileError(f"{source}: not JSON ({error})") from None
    if not isinstance(document, dict) or set(document) != _KEYS:
        raise OperatorsFileError(f'{source}: must be an object with the one key "operators"')
    entries = document["operators"]
    if not isinstance(entries, list) or len(entries) > OPERATORS_MAX:
        raise OperatorsFileError(f'{source}: "operators" must be a list of at most {OPERATORS_MAX} objects')
    found = tuple(_operator(entry, source) for entry in entries)
    try:
        checked(tuple(operator.id for operator in found))
    except ValueError as error:
        raise OperatorsFileError(f"{source}: {error}") from None
    return found


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"a key repeats in one object: {keys}")
    return dict(pairs)


def _operator(entry: object, source: str) -> Operator:
    if not isinstance(entry, dict) or "id" not in entry:
        raise OperatorsFileError(f'{source}: each operator must be an object with an "id", got {entry!r:.80}')
    unknown = set(entry) - _OPERATOR_KEYS
    if unknown:
        raise OperatorsFileError(f"{source}: operator {entry['id']!r:.40} has unknown keys {sorted(unknown)}")
    if not isinstance(entry["id"], str):
        raise OperatorsFileError(f"{source}: an operator id must be a string, got {entry['id']!r:.40}")
    mode = entry.get("wallet_mode", LEDGER)
    if mode not in WALLET_MODES:
        raise OperatorsFileError(
            f"{source}: operator {entry['id']!r}'s wallet_mode {mode!r:.40} is not one of {WALLET_MODES}"
        )
    if mode == LEDGER:
        if "wallet" in entry:
            raise OperatorsFileError(f'{source}: operator {entry["id"]!r} is on the ledger: "wallet" is for seamless')
        return Operator(entry["id"], mode)
    if "wallet" not in entry:
        raise OperatorsFileError(f'{source}: operator {entry["id"]!r} is seamless: it needs a "wallet" object')
    try:
        wallet = seamless_wallet(entry["wallet"])
    except ValueError as error:
        raise OperatorsFileError(f"{source}: operator {entry['id']!r}'s wallet: {error}") from None
    return Operator(entry["id"], mode, wallet)


def seamless_wallet(entry: object) -> SeamlessWallet:
    """A seamless operator's wallet settings, every key checked; ValueError naming the first problem."""
    if not isinstance(entry, dict):
        raise ValueError(f"must be an object, got {entry!r:.80}")
    missing, unknown = _WALLET_REQUIRED - set(entry), set(entry) - _WALLET_KEYS
    if missing or unknown:
        raise ValueError(f"missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")
    if entry["protocol"] not in WALLET_PROTOCOLS:
        raise ValueError(f"protocol {entry['protocol']!r:.40} is not one of {WALLET_PROTOCOLS}")
    if not isinstance(entry["key_id"], str) or not _KEY_ID.match(entry["key_id"]):
        raise ValueError(f"key_id {entry['key_id']!r:.80} is not 1-64 of A-Z a-z 0-9 . _ : -")
    key_file = entry["private_key_file"]
    if not isinstance(key_file, str) or not key_file.strip() or len(key_file) > 1024:
        raise ValueError("private_key_file must name a file (a mounted secret's path)")
    call_ms = _bounded(entry, "call_timeout_ms", 3_000, (1, CALL_TIMEOUT_MS_MAX))
    bet_ms = _bounded(entry, "bet_timeout_ms", 5_000, (call_ms, BET_TIMEOUT_MS_MAX))
    retry_s = _bounded(entry, "win_retry_s", WIN_RETRY_S_DEFAULT, WIN_RETRY_S_RANGE)
    cidrs = _cidrs(entry.get("egress_cidrs", []))
    url = _url(entry["url"])
    return SeamlessWallet(url, entry["protocol"], entry["key_id"], key_file, call_ms, bet_ms, retry_s, cidrs)


def _cidrs(value: object) -> tuple[str, ...]:
    """Network addresses in CIDR form, none of them every address (/0: that is open egress, not a wallet's)."""
    if not isinstance(value, list) or len(value) > EGRESS_CIDRS_MAX:
        raise ValueError(f"egress_cidrs must be a list of at most {EGRESS_CIDRS_MAX} CIDRs, got {value!r:.80}")
    for cidr in value:
        try:
            network = ipaddress.ip_network(cidr, strict=True) if isinstance(cidr, str) else None
        except ValueError:
            network = None
        if network is None or network.prefixlen == 0:
            raise ValueError(f"egress_cidrs: {cidr!r:.60} is not a network's CIDR (host bits clear, not /0)")
    return tuple(value)


def _url(url: object) -> str:
    parts = urlsplit(url) if isinstance(url, str) and len(url) <= 512 else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"url {url!r:.80} is not an http(s) URL with a host")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(f"url {url!r:.80} carries credentials, a query or a fragment")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError:
        raise ValueError(f"url {url!r:.80} names no valid port") from None
    return url


def _bounded(entry: dict, key: str, default: int, bounds: tuple[int, int]) -> int:
    value = entry.get(key, default)
    low, high = bounds
    # A bool is an int to Python, never a duration here.
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{key} must be an integer from {low} to {high}, got {value!r:.40}")
    return value


def load_file(path: Path) -> tuple[Operator, ...]:
    try:
        with open(path, "rb") as handle:
            text = handle.read(FILE_BYTES_MAX + 1)
    except OSError as error:
        raise OperatorsFileError(f"{path}: cannot read the operators file ({error.strerror})") from None
    return parse(text, str(path))


def file_of(environ: Mapping[str, str]) -> Path:
    """The operators file this process reads: $REELSTREAM_OPERATORS_FILE; unset, the demo file outside production."""
    named = environ.get(FILE_ENV, "").strip()
    if named:
        return Path(named)
    if environ.get("REELSTREAM_ENV", "local") == "production":
        raise OperatorsFileError(
            f"{FILE_ENV} is not set: under REELSTREAM_ENV=production the operators come from a file "
            "(deploy/operators/production.json for none)"
        )
    return DEMO_FILE


# Read once at import: topics, roles, ACLs and signing writers are derived from the list when their modules load.
CONFIGURED: tuple[Operator, ...] = load_file(file_of(os.environ))
# The ids the session ring binds (`kid@operator:secret`, shared/session.py).
OPERATORS: tuple[str, ...] = tuple(operator.id for operator in CONFIGURED)


def seamless_wallet_of(
    operator_id: str | None, configured: tuple[Operator, ...] | None = None
) -> SeamlessWallet | None:
    """The wallet of `operator_id` when it is seamless (of CONFIGURED by default), else None: the ledger holds it."""
    for operator in CONFIGURED if configured is None else configured:
        if operator.id == operator_id:
            return operator.wallet
    return None


def seamless_operators(configured: tuple[Operator, ...] | None = None) -> tuple[Operator, ...]:
    """The operators (of CONFIGURED by default) whose players' money is in their own wallet."""
    listed = CONFIGURED if configured is None else configured
    return tuple(operator for operator in listed if operator.wallet is not None)


def is_seamless(operator_id: str | None, configured: tuple[Operator, ...] | None = None) -> bool:
    """Whether `operator_id`'s players' money is in its own wallet (its wagers go to the seamless saga)."""
    return seamless_wallet_of(operator_id, configured) is not None
