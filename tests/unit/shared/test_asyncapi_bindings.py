"""The AsyncAPI document describes every topic as Kafka sees it, and the official parser accepts it (and refuses a
broken one) when its npm package is installed (tools/asyncapi; CI installs it in the clients phase)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from shared.events import asyncapi, registered_types
from shared.events.json_schemas import DRAFT_2020_12
from shared.partitioning import partition_for
from shared.topics import ALL_TOPICS

TOOLS = Path(__file__).resolve().parents[3] / "tools" / "asyncapi"


def test_every_topic_is_a_channel_with_its_partitions_configs_and_visibility():
    channels = {channel["address"]: channel for channel in asyncapi.asyncapi_document()["channels"].values()}
    # Each operator's spin.answers.<O> is one parametrized channel, spin.answers.{operator}; so is wallet.answers.<O>.
    shown = (*(spec for spec in ALL_TOPICS if spec.kind != "answer"), asyncapi.ANSWERS, asyncapi.WALLET_ANSWERS)
    assert set(channels) == {spec.name for spec in shown}
    for spec in shown:
        binding = channels[spec.name]["bindings"]["kafka"]
        tags = {tag["name"] for tag in channels[spec.name]["tags"]}
        assert binding["partitions"] == spec.partitions and binding["replicas"] == 3
        assert binding["topicConfiguration"]["cleanup.policy"] == spec.configs["cleanup.policy"].split(",")
        assert binding["topicConfiguration"]["min.insync.replicas"] == 2
        if "retention.ms" in spec.configs:
            assert binding["topicConfiguration"]["retention.ms"] == int(spec.configs["retention.ms"])
        expected = "dead-letter" if spec.kind == "dlq" else ("public" if spec.public else "internal")
        assert expected in tags and len(channels[spec.name]["messages"]) >= 1


def test_each_message_names_its_key_and_only_public_channels_have_client_operations():
    document = asyncapi.asyncapi_document()
    for message in document["components"]["messages"].values():
        assert message["bindings"]["kafka"]["key"]["type"] == "string"
    operated = {op["channel"]["$ref"].split("/")[-1] for op in document["operations"].values()}
    public = {name for name, channel in document["channels"].items() if {"name": "public"} in channel["tags"]}
    assert operated == public and "spin_requests" in public and "spin_journal" not in public


def test_the_production_server_is_secured_and_the_local_one_is_the_single_node():
    servers = asyncapi.asyncapi_document()["servers"]
    assert servers["local"]["host"] == "127.0.0.1:9092"
    schemes = asyncapi.asyncapi_document()["components"]["securitySchemes"]
    for ref in servers["production"]["security"]:
        assert ref["$ref"].split("/")[-1] in schemes


def test_standalone_schemas_declare_draft_2020_12_and_an_id_and_the_document_has_no_dangling_defs():
    for type_ in registered_types():
        schema = json.loads((asyncapi.CONTRACT_DIR / "schemas" / f"{type_}.json").read_text())
        assert schema["$schema"] == DRAFT_2020_12 and schema["$id"].endswith(type_)
    text = json.dumps(asyncapi.asyncapi_document())
    assert "#/$defs/" not in text and "prefixItems" not in text


def test_the_murmur2_rule_in_the_key_description_is_the_platforms():
    key = asyncapi.asyncapi_document()["components"]["messages"]["spin_requested_v1"]["bindings"]["kafka"]["key"]
    assert "toPositive(murmur2(key)) % partitions" in key["description"]
    assert partition_for(b"p-1", 6) == 4  # the same rule, as the partitioning vectors publish it


def _validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [shutil.which("node") or "node", "validate.mjs", str(path)],
        cwd=TOOLS,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(
    not (TOOLS / "node_modules" / "@asyncapi" / "parser").is_dir(),
    reason="npm ci in tools/asyncapi first (the clients CI phase does)",
)
def test_the_asyncapi_parser_accepts_the_document_and_refuses_a_broken_one(tmp_path):
    accepted = _validate(asyncapi.CONTRACT_DIR / "asyncapi.json")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "0 errors" in accepted.stdout
    broken = asyncapi.asyncapi_document()
    broken["components"]["messages"]["spin_requested_v1"]["payload"]["properties"]["data"] = {"$ref": "#/nowhere"}
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    refused = _validate(tmp_path / "broken.json")
    assert refused.returncode == 1 and "INVALID" in refused.stderr
