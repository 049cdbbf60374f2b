"""A deliberately naive game client for the conformance kit's own test: one send, no retry, first answer printed.

NAIVE_PARTITIONER=crc32 in the environment puts the request where librdkafka's default would, whatever
--partitioner says. Speaks the kit's command-line interface.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
import zlib
from datetime import datetime, timezone

from kafka import TopicPartition

from shared.kafka import kafka_consumer, producer
from shared.partitioning import partition_for


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    for name in (
        "properties",
        "topic-prefix",
        "player",
        "game",
        "stake",
        "currency",
        "token",
        "request-id",
        "timeout-ms",
        "attempts",
        "linger-ms",
        "partitioner",
        "answers-topic",
    ):
        parser.add_argument(f"--{name}")
    args = parser.parse_args(argv)
    bootstrap = open(args.properties).read().split("bootstrap.servers=")[1].split()[0]
    requests, events = f"{args.topic_prefix}spin.requests", f"{args.topic_prefix}{args.answers_topic or 'spin.events'}"
    reader = kafka_consumer(bootstrap, group_id=None, enable_auto_commit=False)  # the environment's principal
    tps = [TopicPartition(events, p) for p in sorted(reader.partitions_for_topic(events))]
    reader.assign(tps)
    reader.seek_to_end(*tps)
    for tp in tps:
        reader.position(tp)
    key = args.player.encode()
    crc32 = os.environ.get("NAIVE_PARTITIONER", args.partitioner) == "crc32"
    partition = (zlib.crc32(key) if crc32 else partition_for(key, len(tps))) % len(tps)
    data = {
        "request_id": args.request_id,
        "player_id": args.player,
        "game": args.game,
        "stake_minor": int(args.stake),
        "currency": args.currency,
        "session_token": args.token,
    }
    event = {
        "specversion": "1.0",
        "id": str(uuid.uuid4()),
        "source": "naive-client",
        "type": "reelstream.spin.requested.v1",
        "time": datetime.now(timezone.utc).isoformat(),
        "subject": args.player,
        "datacontenttype": "application/json",
        "data": data,
    }
    sender = producer(bootstrap, acks="all", enable_idempotence=False)
    sender.send(
        requests,
        key=key,
        value=json.dumps(event).encode(),
        partition=partition,
        headers=[("content-type", b"application/cloudevents+json")],
    ).get(timeout=10)
    sender.close()
    deadline = time.monotonic() + int(args.timeout_ms) / 1000  # one attempt only: no retry
    while time.monotonic() < deadline:
        for records in reader.poll(timeout_ms=100).values():
            for record in records:
                answer = json.loads(record.value)
                if answer["data"].get("request_id") == args.request_id:
                    print(json.dumps(_line(answer, args.request_id)))
                    settled = answer["type"].endswith(".settled.v1")
                    return 0 if settled else 2
    return 3


def _line(answer: dict, request_id: str) -> dict:
    data = answer["data"]
    return {
        "outcome": "settled" if answer["type"].endswith(".settled.v1") else "rejected",
        "request_id": request_id,
        "event_id": answer["id"],
        "code": data.get("code"),
        "message": data.get("message"),
        "win_minor": data.get("win_minor"),
        "balance_after_minor": data.get("balance_after_minor"),
        "attempts": 1,
        "duplicates": 0,
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
