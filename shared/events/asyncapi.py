"""Generate the AsyncAPI 3 document and per-message JSON Schemas from the payload models and the topic definitions
(the contract's one source): every topic a channel with its Kafka bindings, public, internal and dead-letter alike."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from shared import dead_letters
from shared.events.base import Payload, registered_types
from shared.events.batch import BATCH_CONTENT_TYPE, BATCH_TYPE, MAX_ITEMS
from shared.events.jackpot import ClaimRejected, JackpotWon
from shared.events.json_schemas import DRAFT_2020_12, ID_PREFIX, asyncapi_schema, standalone_schema
from shared.events.spin import SpinRejected, SpinSettled
from shared.events.wallet import (
    AccountClosed,
    CommandRejected,
    Deposited,
    LimitSet,
    RemainderCredited,
    SelfExcluded,
    Withdrawn,
)
from shared.operators import OPERATORS
from shared.topics import (
    ALL_TOPICS,
    SPIN_JACKPOT_ANSWERS,
    TopicSpec,
    answers_spec,
    wallet_answers_spec,
    with_min_insync,
)

CONTRACT_DIR = Path(__file__).resolve().parents[2] / "docs" / "contract"
BINDING_VERSION = "0.5.0"
CLUSTER_REPLICAS = 3  # what `reelstream topics create --replication-factor 3` makes; the local single node has 1
DEAD_LETTER = "reelstream.dead-letter"
SNAPSHOT = "reelstream.snapshot"  # a service's own state image (shared/snapshots.py): not for clients
BATCH = BATCH_TYPE  # a record packing several messages (shared/events/batch.py)
_KEY_PATTERN = r"^[A-Za-z0-9._:-]+$"  # player, network and pool ids alike (shared.events.base.Ident)
_CLOUDEVENTS = "application/cloudevents+json"
# Topics that carry copies of messages declared on another topic (re-keyed by the player id, bytes unchanged).
# Each operator's answer topic (shared/operators.py) is one parametrized channel: the spin's answers, copied.
ANSWERS = answers_spec("{operator}")
# And each operator's cashier answer topic: the wallet's results of that operator's cashier commands, copied.
WALLET_ANSWERS = wallet_answers_spec("{operator}")
_FORWARDED: dict[str, tuple[type[Payload], ...]] = {
    SPIN_JACKPOT_ANSWERS: (JackpotWon, ClaimRejected),
    ANSWERS.name: (SpinSettled, SpinRejected),
    WALLET_ANSWERS.name: (
        Deposited,
        Withdrawn,
        LimitSet,
        SelfExcluded,
        AccountClosed,
        RemainderCredited,
        CommandRejected,
    ),
}


def _message_name(type_: str) -> str:
    return type_.removeprefix("reelstream.").replace(".", "_").replace("-", "_")


def _key_schema(spec: TopicSpec) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": 64,
        "pattern": _KEY_PATTERN,
        "description": f"the {spec.key} (UTF-8), equal to the CloudEvents subject; partition = "
        "toPositive(murmur2(key)) % partitions (Kafka's default partitioner)",
    }


def _topic_configuration(configs: dict[str, str]) -> dict[str, Any]:
    """The binding's typed form of the topic configs: cleanup.policy a list, numbers as integers."""
    typed: dict[str, Any] = {}
    for name, value in sorted(configs.items()):
        if name == "cleanup.policy":
            typed[name] = value.split(",")
        else:
            typed[name] = int(value) if value.lstrip("-").isdigit() else value
    return typed


def _visibility(spec: TopicSpec) -> str:
    if spec.kind == "dlq":
        return "dead-letter"
    return "public" if spec.public else "internal"


def _channel(spec: TopicSpec, message_names: list[str]) -> dict[str, Any]:
    visibility = _visibility(spec)
    if spec is ANSWERS or spec is WALLET_ANSWERS:
        return {**_channel(replace(spec, kind="event"), message_names), **_answers_parts(spec)}
    notes = {
        "public": "Game clients and operators read or write it.",
        "internal": "Internal: only the platform's services write it; clients must not depend on it.",
        "dead-letter": "Dead letters: records a consumer could not decode, unchanged, with why in headers.",
    }
    return {
        "address": spec.name,
        "title": spec.name,
        "description": f"{notes[visibility]} Key: {spec.key}. Real deployments may prefix every topic name "
        "(REELSTREAM_TOPIC_PREFIX).",
        "tags": [{"name": name} for name in dict.fromkeys((visibility, spec.kind))],
        "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in message_names},
        "bindings": {
            "kafka": {
                "topic": spec.name,
                "partitions": spec.partitions,
                "replicas": CLUSTER_REPLICAS,
                "topicConfiguration": _topic_configuration(with_min_insync(spec.configs, CLUSTER_REPLICAS)),
                "bindingVersion": BINDING_VERSION,
            }
        },
    }


_ANSWERS_ABOUT = {
    ANSWERS.name: "the SpinSettled / SpinRejected of that operator's players (the operator the session token bound), "
    "the very bytes of spin.events, written in the same transaction; only the role game-client.{operator} reads it. "
    "Key: player id. A deployment without operators has none (answers on spin.events alone).",
    WALLET_ANSWERS.name: "the wallet's results (Deposited, Withdrawn, LimitSet, SelfExcluded, AccountClosed, "
    "RemainderCredited, CommandRejected) of "
    "that operator's cashier commands (the operator whose cashier key, cashier.{operator}, signed the command), the "
    "very bytes of wallet.events, written in the same transaction; only the role cashier.{operator} reads it. Key: "
    "player id. Commands signed with the plain cashier key are answered on wallet.events alone.",
}


def _answers_parts(spec: TopicSpec) -> dict[str, Any]:
    return {
        "title": spec.name,
        "description": f"Public, one topic per operator of the deployment: {_ANSWERS_ABOUT[spec.name]} Real "
        "deployments may prefix every topic name (REELSTREAM_TOPIC_PREFIX).",
        "tags": [{"name": "public"}, {"name": "answer"}],
        "parameters": {
            "operator": {
                "description": "an operator id of the deployment (shared/operators.py; the id its session keys bind)",
                "examples": list(OPERATORS),
            }
        },
    }


def _message(model: type[Payload], spec: TopicSpec, schemas: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": model.TYPE,
        "title": model.TYPE,
        "summary": (model.__doc__ or model.TYPE).strip().splitlines()[0],
        "contentType": _CLOUDEVENTS,
        "headers": {"type": "object", "properties": {"content-type": {"type": "string", "const": _CLOUDEVENTS}}},
        "payload": asyncapi_schema(model, schemas),
        "bindings": {"kafka": {"key": _key_schema(spec), "bindingVersion": BINDING_VERSION}},
        "tags": [{"name": model.KIND}],
    }


def _dead_letter_message() -> dict[str, Any]:
    headers = {
        name: {"type": "string"}
        for name in (
            dead_letters.REASON,
            dead_letters.FIELD,
            dead_letters.SOURCE_TOPIC,
            dead_letters.SOURCE_PARTITION,
            dead_letters.SOURCE_OFFSET,
            dead_letters.CONSUMER,
        )
    }
    return {
        "name": DEAD_LETTER,
        "title": DEAD_LETTER,
        "summary": "A record that could not be decoded, its bytes unchanged; why and where in the headers.",
        "headers": {"type": "object", "properties": headers, "additionalProperties": True},
        "payload": {"description": "the original record value, any bytes"},
        "bindings": {
            "kafka": {
                "key": {"type": "string", "description": "the original record key"},
                "bindingVersion": BINDING_VERSION,
            }
        },
    }


def _snapshot_message() -> dict[str, Any]:
    return {
        "name": SNAPSHOT,
        "title": SNAPSHOT,
        "summary": "A chunk of a service's partition state, or the manifest (JSON) naming the chunks' SHA-256, the "
        "state-format version and the input and output positions it reflects. Internal: only the service reads it.",
        "payload": {"description": "chunk: zlib-compressed bytes of the state image; manifest: a JSON object"},
        "bindings": {
            "kafka": {
                "key": {"type": "string", "description": "<partition>/<slot>/<chunk index or 'manifest'>"},
                "bindingVersion": BINDING_VERSION,
            }
        },
    }


def _packable() -> list[type[Payload]]:
    return [model for _, model in sorted(registered_types().items()) if model.PACKABLE]


def batch_schema(item_refs: list[str]) -> dict[str, Any]:
    """The batch envelope (shared/events/batch.py): its version and 1 .. MAX_ITEMS messages of one packable type,
    each exactly the message it is (`item_refs`: their schemas)."""
    return {
        "title": BATCH_TYPE,
        "description": "Consecutive messages of one type, key and transaction that the writer's loop packed into one "
        "record, in order; read each item as the message it is. A record that is not a batch envelope is one message.",
        "type": "object",
        "required": ["batch", "items"],
        "additionalProperties": False,
        "properties": {
            "batch": {"type": "string", "const": BATCH_TYPE},
            "items": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_ITEMS,
                "items": {"oneOf": [{"$ref": ref} for ref in item_refs]},
            },
        },
    }


def _batch_message() -> dict[str, Any]:
    refs = [f"#/components/messages/{_message_name(model.TYPE)}/payload" for model in _packable()]
    return {
        "name": BATCH,
        "title": BATCH,
        "summary": (
            "A record packing one transaction's messages of one type (those that say they may be packed) for one key, "
            "in the order they were decided; no other message for that key stands between them."
        ),
        "contentType": BATCH_CONTENT_TYPE,
        "headers": {
            "type": "object",
            "properties": {"content-type": {"type": "string", "const": BATCH_CONTENT_TYPE}},
        },
        "payload": batch_schema(refs),
        "bindings": {
            "kafka": {
                "key": {"type": "string", "description": "the key every packed message has"},
                "bindingVersion": BINDING_VERSION,
            }
        },
        "tags": [{"name": "batch"}],
    }


def _operations(spec: TopicSpec, channel_id: str, message_names: list[str]) -> dict[str, Any]:
    """What a client does on a public channel (the document is written from a game client's or operator's side)."""
    if not spec.public:
        return {}
    action = "send" if spec.kind == "command" else "receive"
    return {
        f"{action}_{channel_id}": {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel_id}"},
            "summary": f"Clients {action} on {spec.name}",
            "messages": [{"$ref": f"#/channels/{channel_id}/messages/{name}"} for name in message_names],
        }
    }


def _servers() -> dict[str, Any]:
    kafka = {"kafka": {"bindingVersion": BINDING_VERSION}}
    return {
        "local": {
            "host": "127.0.0.1:9092",
            "protocol": "kafka",
            "protocolVersion": "3.9.1",
            "description": "the local single-node KRaft broker of `reelstream infra up` (plaintext)",
            "bindings": kafka,
        },
        "production": {
            "host": "kafka-1.example.com:9093",
            "protocol": "kafka",
            "protocolVersion": "3.9.1",
            "description": "an example cluster: SASL_SSL (TLS with the cluster's CA, SCRAM-SHA-512 per "
            "role); "
            "each role's client settings in a .properties file",
            "security": [
                {"$ref": "#/components/securitySchemes/scramSha512"},
                {"$ref": "#/components/securitySchemes/plain"},
            ],
            "bindings": kafka,
        },
    }


def asyncapi_document() -> dict[str, Any]:
    by_topic: dict[str, list[type[Payload]]] = {}
    for _, model in sorted(registered_types().items()):
        by_topic.setdefault(model.TOPIC, []).append(model)
    channels, operations, messages, schemas = {}, {}, {}, {}
    for spec in (*(spec for spec in ALL_TOPICS if spec.kind != "answer"), ANSWERS, WALLET_ANSWERS):
        models = by_topic.get(spec.name, [])
        carried = models + list(_FORWARDED.get(spec.name, ()))
        names = [_message_name(m.TYPE) for m in carried]
        if any(model.PACKABLE for model in models):
            names.append(_message_name(BATCH))
        if spec.kind in ("dlq", "snapshot"):
            names = [_message_name(DEAD_LETTER if spec.kind == "dlq" else SNAPSHOT)]
        channel_id = spec.name.replace(".", "_").replace("{", "").replace("}", "")
        channels[channel_id] = _channel(spec, names)
        operations.update(_operations(spec, channel_id, names))
        for model in models:
            messages[_message_name(model.TYPE)] = _message(model, spec, schemas)
    messages[_message_name(DEAD_LETTER)] = _dead_letter_message()
    messages[_message_name(SNAPSHOT)] = _snapshot_message()
    messages[_message_name(BATCH)] = _batch_message()
    unplaced = set(registered_types()) - {m["name"] for m in messages.values()}
    assert not unplaced, f"messages on no declared topic: {sorted(unplaced)}"
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "reelstream event contract",
            "version": "1.0.0",
            "description": "CloudEvents 1.0 (structured JSON) on Kafka. Generated from shared/events and "
            "shared/topics; "
            "do not edit. Message payloads are AsyncAPI schemas (draft-07); the same schemas as "
            "standalone JSON Schema draft 2020-12 files are in docs/contract/schemas/.",
        },
        "defaultContentType": _CLOUDEVENTS,
        "servers": _servers(),
        "channels": channels,
        "operations": operations,
        "components": {
            "messages": messages,
            "schemas": dict(sorted(schemas.items())),
            "securitySchemes": {
                "scramSha512": {"type": "scramSha512", "description": "SASL/SCRAM-SHA-512 over TLS, one user per role"},
                "plain": {"type": "plain", "description": "SASL/PLAIN over TLS (where the cluster offers it)"},
            },
        },
    }


def rendered_files() -> dict[str, str]:
    """Every generated file, relative to docs/contract/, with its exact text."""
    files = {"asyncapi.json": json.dumps(asyncapi_document(), indent=2, sort_keys=True) + "\n"}
    for type_, model in sorted(registered_types().items()):
        files[f"schemas/{type_}.json"] = json.dumps(standalone_schema(model), indent=2, sort_keys=True) + "\n"
    batch = {
        "$schema": DRAFT_2020_12,
        "$id": f"{ID_PREFIX}{BATCH}",
        **batch_schema([f"{ID_PREFIX}{model.TYPE}" for model in _packable()]),
    }
    files[f"schemas/{BATCH}.json"] = json.dumps(batch, indent=2, sort_keys=True) + "\n"
    return files


def write(directory: Path = CONTRACT_DIR) -> list[Path]:
    written = []
    for relative, text in rendered_files().items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        written.append(path)
    return written


def stale(directory: Path = CONTRACT_DIR) -> list[str]:
    """Generated files that are missing or differ from what the models generate now."""
    return [
        rel
        for rel, text in rendered_files().items()
        if not (directory / rel).is_file() or (directory / rel).read_text() != text
    ]
