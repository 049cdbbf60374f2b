"""Generate docs/contract/openapi.json (OpenAPI 3.1) from reelstream's own wallet protocol: the calls' and the answer's
models, the paths and the signature headers; `stale()` says whether the committed file is what they generate now."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import models_json_schema

from seamless import native

CONTRACT_DIR = Path(__file__).resolve().parents[1] / "docs" / "contract"
FILE = "openapi.json"
_SUMMARIES = {
    "balance": "The player's balance (no money moves; answered afresh each time).",
    "bet": "Debit a stake, exactly once per transaction_id.",
    "win": "Credit a round's win (0 for a losing spin) against its bet, exactly once per transaction_id.",
    "rollback": "Undo a bet, whether or not it was ever applied; a later bet under its id is refused.",
}


def _operation(kind: str, model_name: str) -> dict[str, Any]:
    ref = "#/components/schemas/"
    return {
        "post": {
            "operationId": kind,
            "summary": _SUMMARIES[kind],
            "parameters": [
                {"$ref": "#/components/parameters/Signature"},
                {"$ref": "#/components/parameters/KeyId"},
            ],
            "requestBody": {"required": True, "content": {"application/json": {"schema": {"$ref": ref + model_name}}}},
            "responses": {
                "200": {
                    "description": "The wallet's answer; a repeat of the request_id gets the first answer again.",
                    "content": {"application/json": {"schema": {"$ref": ref + "WalletAnswer"}}},
                },
                "5XX": {"description": "No answer: the caller does not know whether the call was applied."},
            },
        }
    }


def openapi_document() -> dict[str, Any]:
    models = [(model, "validation") for model in native.MODELS.values()] + [(native.WalletAnswer, "serialization")]
    _, schemas = models_json_schema(models, ref_template="#/components/schemas/{model}")
    header = {"in": "header", "required": True, "schema": {"type": "string"}}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "reelstream operator wallet",
            "version": "1.0.0",
            "description": "The seamless-wallet protocol an operator's wallet serves for reelstream "
            "(docs/seamless.md). Every body is JSON; money is integers in minor units.",
        },
        "paths": {native.PATHS[kind]: _operation(kind, model.__name__) for kind, model in native.MODELS.items()},
        "components": {
            "schemas": schemas["$defs"],
            "parameters": {
                "Signature": header
                | {
                    "name": native.SIGNATURE_HEADER,
                    "description": "base64 of the RSA-SHA256 (PKCS#1 v1.5) signature of the exact body bytes",
                },
                "KeyId": header
                | {
                    "name": native.KEY_ID_HEADER,
                    "description": "the id of the signing key; the wallet accepts several during a rotation",
                },
            },
        },
    }


def rendered() -> str:
    return json.dumps(openapi_document(), indent=2, sort_keys=True) + "\n"


def write(directory: Path = CONTRACT_DIR) -> Path:
    path = directory / FILE
    path.write_text(rendered())
    return path


def stale(directory: Path = CONTRACT_DIR) -> bool:
    path = directory / FILE
    return not path.is_file() or path.read_text() != rendered()
