"""The committed OpenAPI document of reelstream's own wallet protocol is what the models generate now."""

from seamless import native, openapi


def test_the_committed_openapi_document_is_current():
    assert not openapi.stale(), "run `make contract` and commit: docs/contract/openapi.json is stale"


def test_the_document_is_openapi_3_1_with_every_path_signed():
    document = openapi.openapi_document()
    assert document["openapi"].startswith("3.1")
    assert set(document["paths"]) == set(native.PATHS.values())
    for path in document["paths"].values():
        names = {p["$ref"].rsplit("/", 1)[1] for p in path["post"]["parameters"]}
        assert names == {"Signature", "KeyId"}
    assert document["components"]["schemas"]["BetCall"]["additionalProperties"] is False
