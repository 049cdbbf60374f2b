"""The wallet integration tests' topics: a fresh prefix each, its topics created first and deleted after."""

from __future__ import annotations

import pytest

from wallet_harness import create_topics, drop_topics, fresh_prefix


@pytest.fixture
def prefix(kafka_bootstrap):
    name = fresh_prefix()
    create_topics(kafka_bootstrap, name)
    yield name
    drop_topics(kafka_bootstrap, name)
