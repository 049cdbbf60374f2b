"""JSON Schemas of the contract's messages: standalone draft 2020-12 files (with `$schema` and `$id`) for clients in
other languages, and the same schemas converted to AsyncAPI's draft-07 dialect for the AsyncAPI document."""

from __future__ import annotations

from typing import Any

from shared.events.base import Payload
from shared.events.envelope import CommandEnvelope, Envelope

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
# Schemas are published as files, not at an address: a URN names them without promising a host.
ID_PREFIX = "urn:reelstream:contract:v1:schema:"
COMPONENTS = "#/components/schemas/"


def message_schema(model: type[Payload]) -> dict[str, Any]:
    """The JSON Schema of a whole CloudEvent carrying `model` (validation mode: what a reader accepts)."""
    envelope_class = CommandEnvelope if model.KIND == "command" else Envelope
    schema = envelope_class[model].model_json_schema(mode="validation")
    schema["title"] = model.TYPE
    schema["properties"]["type"] = {"const": model.TYPE, "type": "string"}
    return schema


def standalone_schema(model: type[Payload]) -> dict[str, Any]:
    """The file under docs/contract/schemas/: pydantic writes draft 2020-12, and says so."""
    return {"$schema": DRAFT_2020_12, "$id": f"{ID_PREFIX}{model.TYPE}", **message_schema(model)}


def asyncapi_schema(model: type[Payload], shared_definitions: dict[str, Any]) -> dict[str, Any]:
    """The message schema in AsyncAPI's dialect (a draft-07 superset): `$defs` moved into components.schemas (each
    name must mean one schema everywhere), references rewritten to them, `prefixItems` as draft-07 tuple `items`."""
    schema = message_schema(model)
    for name, definition in schema.pop("$defs", {}).items():
        converted = _draft07(definition)
        assert shared_definitions.setdefault(name, converted) == converted, f"two schemas named {name}"
    return _draft07(schema)


def _draft07(node: Any) -> Any:
    if isinstance(node, list):
        return [_draft07(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _draft07(value) for key, value in node.items()}
    ref = converted.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        converted["$ref"] = COMPONENTS + ref.removeprefix("#/$defs/")
    if "prefixItems" in converted:
        converted["items"] = converted.pop("prefixItems")
        converted.setdefault("additionalItems", False)
    return converted
