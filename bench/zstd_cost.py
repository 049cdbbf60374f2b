"""What zstd costs a settled spin in the producers, without a broker: the records a spin writes to the topics only the
platform reads and to the ones clients read, built into batches by aiokafka's own builder uncompressed, with zstd
and with gzip (CPU µs a spin, bytes a spin)."""

# A batch a spin is the worst case (a low load over six partitions); under load a batch carries several spins and
# compresses better. `python -m bench.zstd_cost [--spins N] [--rounds R] [--out FILE]`: medians over the rounds.

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict

from aiokafka.producer.message_accumulator import BatchBuilder
from aiokafka.record.default_records import DefaultRecordBatch

from bench.saga_cpu import _NOW_MS, _unsigned, new_saga, requests
from shared.topics import SPIN_REQUESTS, WALLET_EVENTS, WALLET_INTERNAL, compressed_by_producers

BATCH_BYTES = 512 * 1024  # the loop's batch bound is larger than any one spin's records


def spin_batches(spins: int, players: int) -> dict[str, list[list[tuple]]]:
    """For each spin its records, one (key, value, headers) list a batch per topic, apart for the topics only the
    platform reads (`platform`) and the ones clients read (`clients`)."""
    saga, made = new_saga(players), {"platform": [], "clients": []}
    for n, (key, value) in enumerate(requests(spins, players)):
        at = _NOW_MS + n  # broker time within the tokens' validity, as bench/saga_cpu.py hands it
        outputs = saga.spin_step(SPIN_REQUESTS, key, value, (), at)
        for out in list(outputs):
            if out.tag in {"place", "debit", "settle", "refund"}:
                for fact in saga.wallet_step(WALLET_INTERNAL, out.key, out.value, out.headers, at):
                    outputs.append(fact)
                    outputs += saga.spin_step(WALLET_EVENTS, fact.key, fact.value, fact.headers, at)
        by_topic: dict[str, list[tuple]] = defaultdict(list)
        for out in outputs:
            by_topic[out.topic or WALLET_EVENTS].append((out.key, out.value, out.headers))  # the wallet names none
        for kind in made:
            made[kind].append([r for t, r in by_topic.items() if compressed_by_producers(t) == (kind == "platform")])
    return made


def _build(batches: list[list[tuple]], codec: int) -> tuple[float, int]:
    """CPU seconds and bytes of building every batch as a transactional producer does."""
    clock, size = time.thread_time, 0
    started = clock()
    for spin in batches:
        for records in spin:
            builder = BatchBuilder(BATCH_BYTES, codec, is_transactional=True)
            for key, value, headers in records:
                builder.append(timestamp=None, key=key, value=value, headers=headers)
            size += len(builder._build())  # noqa: SLF001 - what the producer sends: the built batch
    return clock() - started, size


CODECS = {"plain": 0, "zstd": DefaultRecordBatch.CODEC_ZSTD, "gzip": DefaultRecordBatch.CODEC_GZIP}


def measure(spins: int = 2_000, players: int = 1_000, rounds: int = 5) -> dict:
    """µs of CPU and bytes a spin of each codec, on the platform's topics and on the clients', medians of rounds."""
    with _unsigned():
        batches = spin_batches(spins, players)
    figures: dict = {}
    for kind, spun in batches.items():
        taken: dict[str, list] = defaultdict(list)
        for _ in range(rounds):
            for name, codec in CODECS.items():
                taken[name].append(_build(spun, codec))
        figures[kind] = {
            name: {
                "us_per_spin": round(statistics.median(cpu for cpu, _ in runs) / spins * 1e6, 1),
                "bytes_per_spin": round(runs[0][1] / spins),
            }
            for name, runs in taken.items()
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spins", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    figures = measure(args.spins, min(args.spins, 1_000), args.rounds)
    machine = {"cpus": os.cpu_count(), "load_1min_before": round(load_before, 2)}
    machine["load_1min_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps({**figures, "machine": machine}, indent=2))
    if args.out:
        with open(args.out, "w") as handle:
            json.dump({"spins": args.spins, "rounds": args.rounds, **figures, "machine": machine}, handle, indent=2)


if __name__ == "__main__":
    main()
