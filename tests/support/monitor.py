"""The monitor in integration tests: whether it read everything, and the
fresh fold of the topics it reads (what its tables must equal)."""

from __future__ import annotations

import json

from kafka import TopicPartition

from reelstream.monitor_process import INPUTS
from services.monitor.adapters import records
from services.monitor.adapters.par_sheets import load_par_figures
from services.monitor.core.plan import MonitorFold, plan_jackpot_events, plan_meters, plan_spin_events
from shared.kafka import admin_client, kafka_consumer
from shared.topics import JACKPOT_EVENTS, JACKPOT_METERS, SPIN_EVENTS


def read_inputs(bootstrap: str, prefix: str) -> dict[str, list]:
    """Every record of the monitor's three inputs, in partition order, up to their end offsets now."""
    reader = kafka_consumer(bootstrap, group_id=None, enable_auto_commit=False)
    try:
        out = {}
        for name in INPUTS:
            topic = prefix + name
            tps = [TopicPartition(topic, p) for p in sorted(reader.partitions_for_topic(topic) or ())]
            reader.assign(tps)
            reader.seek_to_beginning(*tps)
            ends, found = reader.end_offsets(tps), []
            while any(reader.position(tp) < ends[tp] for tp in tps):
                for batch in reader.poll(timeout_ms=500).values():
                    found.extend(batch)
            out[name] = sorted(found, key=lambda r: (r.partition, r.offset))
        return out
    finally:
        reader.close(autocommit=False)


def caught_up(bootstrap: str, prefix: str) -> bool:
    """The monitor's group committed the end of every input partition."""
    admin = admin_client(bootstrap, client_id="reelstream-monitor-tests")
    reader = kafka_consumer(bootstrap, group_id=None)
    try:
        group = f"{prefix}reelstream-monitor"
        committed = admin.list_group_offsets({group: None}).get(group, {})
        tps = [
            TopicPartition(prefix + name, p)
            for name in INPUTS
            for p in sorted(reader.partitions_for_topic(prefix + name) or ())
        ]
        ends = reader.end_offsets(tps)
        return all(ends[tp] == 0 or (tp in committed and committed[tp].offset >= ends[tp]) for tp in tps)
    finally:
        reader.close(autocommit=False)
        admin.close()


def fresh_fold(inputs: dict[str, list]) -> dict:
    """The tables a monitor must hold after reading these records, in the JSON shape of its /api/tables."""
    fold, pars = MonitorFold(), load_par_figures()
    fold.apply(plan_spin_events(fold.read, records.spin_facts(inputs[SPIN_EVENTS]), pars))
    fold.apply(plan_jackpot_events(*records.jackpot_facts(inputs[JACKPOT_EVENTS])))
    fold.apply(plan_meters(records.meter_facts(inputs[JACKPOT_METERS])))
    dumped = {
        name: [
            [list(k) if isinstance(k, tuple) else k, v]
            for k, v in sorted(((k, v) for k, v in table.items() if v), key=lambda kv: str(kv[0]))
        ]
        for name, table in fold.tables.items()
    }
    return json.loads(json.dumps(dumped))
