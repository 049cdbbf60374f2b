"""The audit's part of `reelstream bench recovery`: the synthetic history streamed to the topics a round at a time
(with a pause at a cut, where a full audit leaves its checkpoint), the full audit against a raw kafka-python consume of
the same records, and the audit from the checkpoint over the history's last spins (docs/snapshots.md)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from kafka import TopicPartition

from bench.synthetic.spins import history_in_rounds, stand_in_lookup
from services.audit.adapters.topics import AUDITED_TOPICS
from shared import records as record_headers
from shared.config import load_settings
from shared.events import encode
from shared.events.spin import SpinSettled
from shared.kafka import consumer, producer
from shared.partitioning import partition_for
from shared.topics import JACKPOT_EVENTS, NETWORK_PARTITIONS

INCREMENTAL_SPINS = 10_000  # the "last 10k spins"
# The head before the cut is audited in links of this many spins, each from the previous link's checkpoint, so the
# audit's memory stays at one link's records however long the history (1M spins would not fit in one audit).
LINK_SPINS = 100_000
INCREMENTAL_TARGET = 1.5  # × the full audit of a 10k-spin history
RAW_RATE_TARGET = 0.3  # × the raw consume rate of the same records


def cuts_before(spins: int, tail_spins: int) -> list[int]:
    """Where the writer pauses for the head's audit: every LINK_SPINS, and last `tail_spins` before the end."""
    return [*range(LINK_SPINS, spins - tail_spins, LINK_SPINS), spins - tail_spins]


def write_history(
    bootstrap: str, prefix: str, spins: int, players: int, cuts: list[int] = (), at_cut=lambda: None
) -> dict:
    """Produce the history a round at a time, signed as its owners sign it (the services verify); when as many spins
    as a cut in `cuts` are written (and acknowledged), `at_cut()` runs before the rest is produced."""
    started, generated_s, records, settled = time.perf_counter(), 0.0, 0, 0
    kafka = producer(bootstrap, client_id="bench-recovery", linger_ms=20, batch_size=512 * 1024)
    try:
        rounds = history_in_rounds(seed=spins, players=players, spins_per_player=max(1, spins // players))
        while True:
            generating = time.perf_counter()
            emitted = next(rounds, None)
            generated_s += time.perf_counter() - generating
            if emitted is None:
                break
            items = [(item.topic, item.envelope.key, encode(item.envelope)) for item in emitted]
            signed = record_headers.stand_in_batch(items, "synthetic")
            for item, (topic, key, value), headers in zip(emitted, items, signed):
                kafka.send(prefix + topic, key=key, value=value, headers=headers, partition=_partition_of(item))
            records += len(emitted)
            before, settled = settled, settled + sum(isinstance(item.envelope.data, SpinSettled) for item in emitted)
            if any(before < cut <= settled for cut in cuts):
                kafka.flush(timeout=300)
                at_cut()
        kafka.flush(timeout=300)
    finally:
        kafka.close(timeout=10)
    return {"records": records, "generate_s": generated_s, "write_s": time.perf_counter() - started}


def _partition_of(item) -> int | None:
    """Where the service would have written it: jackpot events on their network's command partition (a pool's events
    are keyed by pool id but live with their network); everything else by its key."""
    if item.topic == JACKPOT_EVENTS:
        return partition_for(item.envelope.data.network_id.encode(), NETWORK_PARTITIONS)
    return None


def raw_consume_rate(bootstrap: str, prefix: str, topics: tuple[str, ...] = AUDITED_TOPICS) -> tuple[int, float]:
    """Records read per second by a plain kafka-python consumer over the same topics (no decoding)."""
    reader = consumer(bootstrap, group_id=None, max_poll_records=10_000, fetch_max_bytes=64 * 1024 * 1024)
    try:
        tps = [TopicPartition(prefix + t, p) for t in topics for p in reader.partitions_for_topic(prefix + t) or ()]
        reader.assign(tps)
        reader.seek_to_beginning(*tps)
        ends = reader.end_offsets(tps)
        started, count = time.perf_counter(), 0
        while any(reader.position(tp) < ends[tp] for tp in tps):
            for batch in reader.poll(timeout_ms=500).values():
                count += len(batch)
        return count, count / max(1e-9, time.perf_counter() - started)
    finally:
        reader.close(autocommit=False)


def _timed_audit(bootstrap: str, prefix: str, checkpointing=None) -> tuple[float, object]:
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope

    settings = load_settings({"KAFKA_BOOTSTRAP_SERVERS": bootstrap, "REELSTREAM_TOPIC_PREFIX": prefix})
    started = time.perf_counter()
    run = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup, checkpointing=checkpointing)
    return time.perf_counter() - started, run


def checkpointing_in(folder: Path, resume: bool = False):
    from services.audit.adapters.runner import Checkpointing

    return Checkpointing(folder / "checkpoint.json", folder / "keys", resume=resume)


def checkpoint_at_cut(bootstrap: str, prefix: str, folder: Path, figures: dict) -> Callable[[], None]:
    """What runs at each cut: the audit of the history so far, a full one first, then each from the checkpoint the
    previous cut left; each leaves the next checkpoint (their time is recorded)."""

    def audit_the_head() -> None:
        resume = (folder / "checkpoint.json").exists()
        seconds, run = _timed_audit(bootstrap, prefix, checkpointing_in(folder, resume=resume))
        figures["checkpoint_audit_s"] = round(figures.get("checkpoint_audit_s", 0) + seconds, 3)
        figures["checkpoint_records"] = run.result.totals["records"]
        figures["checkpoint_links"] = figures.get("checkpoint_links", 0) + 1
        figures["checkpoint_discrepancies"] = len(run.discrepancies)

    return audit_the_head


def full_audit(bootstrap: str, prefix: str, rounds: int = 3) -> dict:
    """The full audit's time, its rate and the raw consume rate of the same records: `rounds` of each, interleaved (the
    machine's load drifts by the minute), medians reported with every round."""
    audit_s, raw_rates = [], []
    for _ in range(rounds):
        seconds, run = _timed_audit(bootstrap, prefix)
        audit_s.append(seconds)
        raw_records, raw_rate = raw_consume_rate(bootstrap, prefix)
        raw_rates.append(raw_rate)
    records = run.result.counts["records"]
    full_s, raw_rate = statistics.median(audit_s), statistics.median(raw_rates)
    rate = records / max(1e-9, full_s)
    return {
        "full_s": round(full_s, 3),
        "records": records,
        "records_per_s": round(rate),
        "raw_consume_records": raw_records,
        "raw_consume_records_per_s": round(raw_rate),
        "rate_over_raw": round(rate / max(1e-9, raw_rate), 3),
        "full_s_rounds": [round(s, 3) for s in audit_s],
        "raw_consume_records_per_s_rounds": [round(r) for r in raw_rates],
        "discrepancies": len(run.discrepancies),
    }


def incremental_audit(bootstrap: str, prefix: str, folder: Path, spins: int, tail_spins: int, figures: dict) -> dict:
    """The audit from the checkpoint left at the cut, over the history's last `tail_spins` spins."""
    seconds, run = _timed_audit(bootstrap, prefix, checkpointing_in(folder, resume=True))
    return {
        **figures,
        "incremental_s": round(seconds, 3),
        "incremental_records": run.result.counts["records"],
        "incremental_history_spins": spins,
        "incremental_tail_spins": tail_spins,
        "incremental_discrepancies": len(run.discrepancies),
    }


def summary(sizes: list[dict]) -> dict:
    """The `audit` object: the first size's full audit, the last size's incremental one, and their ratio."""
    full = next((size["audit"] for size in sizes if size["audit"] and "full_s" in size["audit"]), {})
    incremental = next((s["audit"] for s in reversed(sizes) if s["audit"] and "incremental_s" in s["audit"]), {})
    result = {"incremental_s": None, **full, **incremental}
    if full and incremental:
        result["full_history_spins"] = next(s["history"]["spins"] for s in sizes if s["audit"] is not None)
        result["incremental_over_full"] = round(incremental["incremental_s"] / max(1e-9, full["full_s"]), 3)
    return result


def describe(audit: dict) -> list[str]:
    """The lines the bench prints for the audit, each Done-when check as a ratio against its target."""
    lines = []
    if "full_s" in audit:
        lines.append(
            f"full audit (medians of its rounds): {audit['full_s']:.1f} s for {audit['records']:,} records "
            f"({audit['records_per_s']:,}/s); "
            f"raw consume {audit['raw_consume_records_per_s']:,}/s: {audit['rate_over_raw']:.2f}× "
            f"(target ≥ {RAW_RATE_TARGET}×), {audit['discrepancies']} discrepancies"
        )
    if audit.get("incremental_over_full") is not None:
        lines.append(
            f"audit since the checkpoint over the last {audit['incremental_tail_spins']:,} spins of "
            f"{audit['incremental_history_spins']:,}: {audit['incremental_s']:.1f} s "
            f"({audit['incremental_records']:,} records) = {audit['incremental_over_full']:.2f}× the full audit of "
            f"{audit['full_history_spins']:,} spins (target ≤ {INCREMENTAL_TARGET}×), "
            f"{audit['incremental_discrepancies']} discrepancies"
        )
    return lines
