"""The deployed jackpot and every test or benchmark on a fresh prefix name the same topics and group."""

from services.jackpot.adapters.runner import JackpotConfig
from services.jackpot.app import live_config
from shared.config import load_settings
from shared.topics import JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS, JACKPOT_SNAPSHOTS, dlq_name


def test_the_live_config_names_the_prefixed_contract_topics_and_the_services_group():
    env = {"REELSTREAM_TOPIC_PREFIX": "t1.", "REELSTREAM_SESSION_SECRET": "a-secret-of-sixteen-chars"}
    config, settings = live_config(env), load_settings(env)
    assert (config.commands_topic, config.events_topic, config.meters_topic, config.dlq_topic) == tuple(
        settings.topic(name) for name in (JACKPOT_COMMANDS, JACKPOT_EVENTS, JACKPOT_METERS, dlq_name(JACKPOT_COMMANDS))
    )
    assert config.group_id == settings.group("jackpot") and config.snapshots_topic == settings.topic(JACKPOT_SNAPSHOTS)
    assert config == JackpotConfig.on_prefix(
        settings.kafka_bootstrap_servers, "t1.", batch_max=2000, snapshots_topic="t1." + JACKPOT_SNAPSHOTS
    )
