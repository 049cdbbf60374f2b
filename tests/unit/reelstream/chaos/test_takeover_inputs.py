"""A chaos kill of the spin is measured on every topic the spin's loop consumes (wallet.seamless included): the
takeover watches the inputs the loop is configured with, not a list of its own."""

from __future__ import annotations

from reelstream.chaos.takeover import INPUTS
from services.spin.adapters.runner import loop_config
from shared.config import load_settings
from shared.topics import WALLET_SEAMLESS


def test_the_takeover_watches_every_topic_the_spins_loop_reads():
    settings = load_settings({"REELSTREAM_TOPIC_PREFIX": "p."})
    config = loop_config(settings)
    consumed = {config.commands_topic, *config.extra_inputs}
    assert {settings.topic(name) for name in INPUTS["spin"]} == consumed
    assert WALLET_SEAMLESS in INPUTS["spin"]
