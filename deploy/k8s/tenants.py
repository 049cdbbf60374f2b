"""What differs between overlays: the operators of a deployment (deploy/operators/<overlay>.json, the file
REELSTREAM_OPERATORS_FILE names) and what follows from them: their answer topics, and every KafkaUser, whose ACLs
name those topics. The base holds the topics every deployment has."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shared import operators
from shared.roles import acl_rules, roles_for
from shared.topics import ALL_TOPICS, ANSWER_TOPICS, TopicSpec, answers_spec, wallet_answers_spec

OPERATORS_DIR = Path(__file__).resolve().parents[1] / "operators"
OVERLAYS = ("demo", "production")


def operators_text(overlay: str) -> str:
    return (OPERATORS_DIR / f"{overlay}.json").read_text()


def configured(overlay: str, text: str | None = None) -> tuple[operators.Operator, ...]:
    """The overlay's operators (or those of `text`, an operators file's), as a process reading the file loads them."""
    body = operators_text(overlay) if text is None else text
    return operators.parse(body.encode(), f"deploy/operators/{overlay}.json")


def operator_ids(overlay: str) -> tuple[str, ...]:
    """The overlay's operator ids, validated as shared.operators validates them (ValueError otherwise)."""
    listed = json.loads(operators_text(overlay))["operators"]
    return operators.checked(tuple(entry["id"] for entry in listed))


def common_topics() -> tuple[TopicSpec, ...]:
    """The topics of every deployment, whatever its operators."""
    return tuple(spec for spec in ALL_TOPICS if spec not in ANSWER_TOPICS)


def operator_topics(ids: tuple[str, ...]) -> tuple[TopicSpec, ...]:
    return tuple(answers_spec(o) for o in ids) + tuple(wallet_answers_spec(o) for o in ids)


def kafka_users(ids: tuple[str, ...]) -> list[dict[str, Any]]:
    """One KafkaUser per role, its ACLs over exactly this deployment's topics."""
    from deploy.k8s.users import kafka_user

    specs = common_topics() + operator_topics(ids)
    return [kafka_user(member, acl_rules(member, "", specs)) for member in roles_for(ids)]
