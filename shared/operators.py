"""The operators of this deployment, as code: each gets its own answer topics and game-client and cashier roles
(shared/topics.py, shared/roles.py), so one operator's backend reads only its own players' answers. Empty: a
single-operator deployment, answered on spin.events and wallet.events alone. Adding an operator is a code change,
reviewed like any ACL."""

from __future__ import annotations

import re

# The ids the session ring binds (`kid@operator:secret`, shared/session.py). Locally two demo operators, so the
# per-operator topics and principals exist to be tried; a real deployment lists its own.
OPERATORS: tuple[str, ...] = ("demo-a", "demo-b")

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


def cashier_operator(writer: str | None, operators: tuple[str, ...] = OPERATORS) -> str | None:
    """The operator whose cashier `writer` is (`cashier.<O>` of a listed O), else None (the plain cashier, anyone)."""
    operator_id = writer.removeprefix(CASHIER_PREFIX) if writer and writer.startswith(CASHIER_PREFIX) else None
    return operator_id if known(operator_id, operators) else None


def known(operator_id: str | None, operators: tuple[str, ...] = OPERATORS) -> bool:
    return operator_id is not None and operator_id in operators


def checked(operators: tuple[str, ...]) -> tuple[str, ...]:
    """The list as given, or ValueError naming the first id no topic or KafkaUser could carry, or a repeat."""
    for operator_id in operators:
        if not _ID.match(operator_id):
            raise ValueError(f"operator id {operator_id!r} is not a lower-case DNS label (a-z, 0-9, '-', ≤ 32)")
    if len(set(operators)) != len(operators):
        raise ValueError(f"operator ids repeat: {operators}")
    return operators


checked(OPERATORS)
