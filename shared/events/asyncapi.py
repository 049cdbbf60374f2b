"""Generate the AsyncAPI 3 document and per-message JSON Schemas from the payload models (the contract's one source)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from shared.events.base import Payload, registered_types
from shared.events.envelope import CommandEnvelope, Envelope
from shared.topics import CONTRACT_TOPICS, TopicSpec

CONTRACT_DIR = Path(__file__).resolve().parents[2] / "docs" / "contract"


def message_schema(model: type[Payload]) -> dict[str, Any]:
    """The JSON Schema of a whole CloudEvent carrying `model` (validation mode: what a reader accepts)."""
    envelope_class = CommandEnvelope if model.KIND == "command" else Envelope
    schema = envelope_class[model].model_json_schema(mode="validation")
    schema["title"] = model.TYPE
    schema["properties"]["type"] = {"const": model.TYPE, "type": "string"}
    return schema


def _message_name(type_: str) -> str:
    return type_.removeprefix("reelstream.").replace(".", "_").replace("-", "_")


def _channel(spec: TopicSpec, models: list[type[Payload]]) -> dict[str, Any]:
    return {
        "address": spec.name,
        "description": f"Key: {spec.key}. Partitions: {spec.partitions}. Configs: {json.dumps(spec.configs, sort_keys=True)}.",
        "messages": {_message_name(m.TYPE): {"$ref": f"#/components/messages/{_message_name(m.TYPE)}"} for m in models},
    }


def asyncapi_document() -> dict[str, Any]:
    by_topic: dict[str, list[type[Payload]]] = {}
    for type_, model in sorted(registered_types().items()):
        by_topic.setdefault(model.TOPIC, []).append(model)
    channels, operations, messages = {}, {}, {}
    for spec in CONTRACT_TOPICS:
        models = by_topic.get(spec.name, [])
        if not models:
            continue
        channel_id = spec.name.replace(".", "_")
        channels[channel_id] = _channel(spec, models)
        action = "send" if spec.kind == "command" else "receive"
        operations[f"{action}_{channel_id}"] = {
            "action": action,
            "channel": {"$ref": f"#/channels/{channel_id}"},
            "summary": f"Clients {action} on {spec.name}" + (" (public)" if spec.public else " (internal)"),
        }
        for model in models:
            messages[_message_name(model.TYPE)] = {
                "name": model.TYPE,
                "title": model.TYPE,
                "summary": (model.__doc__ or model.TYPE).strip().splitlines()[0],
                "contentType": "application/cloudevents+json",
                "headers": {"type": "object", "properties": {"content-type": {"const": "application/cloudevents+json"}}},
                "payload": message_schema(model),
            }
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "reelstream event contract",
            "version": "1.0.0",
            "description": "CloudEvents 1.0 (structured JSON) on Kafka. Generated from shared/events; do not edit.",
        },
        "defaultContentType": "application/cloudevents+json",
        "servers": {"local": {"host": "127.0.0.1:9092", "protocol": "kafka"}},
        "channels": channels,
        "operations": operations,
        "components": {"messages": messages},
    }


def rendered_files() -> dict[str, str]:
    """Every generated file, relative to docs/contract/, with its exact text."""
    files = {"asyncapi.json": json.dumps(asyncapi_document(), indent=2, sort_keys=True) + "\n"}
    for type_, model in sorted(registered_types().items()):
        files[f"schemas/{type_}.json"] = json.dumps(message_schema(model), indent=2, sort_keys=True) + "\n"
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
    return [rel for rel, text in rendered_files().items() if not (directory / rel).is_file() or (directory / rel).read_text() != text]
