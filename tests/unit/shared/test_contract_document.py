"""The committed AsyncAPI document and JSON Schemas are what the models generate now."""

from shared.events import asyncapi, registered_types


def test_the_committed_contract_files_are_current():
    stale = asyncapi.stale()
    assert stale == [], f"run `make contract` and commit: stale {stale}"


def test_every_public_message_of_the_contract_is_documented():
    document = asyncapi.asyncapi_document()
    names = {message["name"] for message in document["components"]["messages"].values()}
    for type_ in (
        "reelstream.spin.requested.v1",
        "reelstream.spin.settled.v1",
        "reelstream.spin.rejected.v1",
        "reelstream.wallet.deposit.v1",
        "reelstream.wallet.withdraw.v1",
        "reelstream.jackpot.meter.v1",
    ):
        assert type_ in names
    assert names == set(registered_types()) | {asyncapi.DEAD_LETTER, asyncapi.SNAPSHOT, asyncapi.BATCH}
    assert document["asyncapi"].startswith("3.")


def test_the_batch_envelope_is_documented_on_the_channels_of_packable_messages_only():
    document = asyncapi.asyncapi_document()
    batch = next(m for m in document["components"]["messages"].values() if m["name"] == asyncapi.BATCH)
    refs = [item["$ref"] for item in batch["payload"]["properties"]["items"]["items"]["oneOf"]]
    assert refs == [
        "#/components/messages/jackpot_contribute_v1/payload",
        "#/components/messages/jackpot_contributions_applied_v1/payload",
    ]
    carrying = sorted(c["address"] for c in document["channels"].values() if "batch_v1" in c["messages"])
    assert carrying == ["jackpot.events", "jackpot.internal"]
