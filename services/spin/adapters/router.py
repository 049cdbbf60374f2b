"""Route jackpot answers (JackpotWon, ClaimRejected) from the network-keyed jackpot.events to the player's partition.

The spin state machine of a request lives on its player's partition; jackpot.events is keyed by network id. This
agent forwards the answers, byte for byte, to spin.jackpot-answers keyed by player id, and commits about once a
second (at least once: a repeat is harmless, the state machine folds an answer idempotently). A JackpotWon keeps its
jackpot.events key and headers (its signature) in one header, so the settlement can prove its pool share to the wallet.
"""

from __future__ import annotations

import asyncio
import logging
import time

from aiokafka import AIOKafkaProducer
from aiokafka.errors import CommitFailedError, IllegalStateError

from services.spin.core.progress import JACKPOT_TYPES
from shared.config import Settings
from shared import observability, records
from shared.events import DecodeError, decode
from shared.events.jackpot import JackpotWon
from shared.kafka import AIOKAFKA_CONSUMER_SAFETY, aio_consumer, group_membership, service_fetch_options
from shared.topics import JACKPOT_EVENTS, SPIN_JACKPOT_ANSWERS

log = logging.getLogger("reelstream.spin.router")
_ANSWER_TYPES = {cls.TYPE for cls in JACKPOT_TYPES}
# Offsets are committed at most this often (and on stop): a crash forwards at most this much again, which the state
# machine absorbs; the final commit is bounded, since with the broker gone it would retry forever.
COMMIT_INTERVAL_S = 1.0
FINAL_COMMIT_TIMEOUT_S = 5.0


class JackpotAnswerRouter:
    def __init__(self, settings: Settings, producer: AIOKafkaProducer) -> None:
        self.settings, self.producer = settings, producer
        self.consumer = aio_consumer(
            settings.topic(JACKPOT_EVENTS),
            bootstrap=settings.kafka_bootstrap_servers,
            role="spin",
            group_id=settings.group("spin-jackpot-router"),
            client_id="reelstream-spin-router",
            **{**AIOKAFKA_CONSUMER_SAFETY, **group_membership(), **service_fetch_options()},
        )

    async def run(self, started: asyncio.Event) -> None:
        await self.consumer.start()
        started.set()
        forwarded, committed_at = {}, 0.0  # offsets whose answers are acknowledged; committed about once a second
        try:
            while True:
                batch = await self.consumer.getmany(timeout_ms=200, max_records=500)
                futures = []
                for tp, records in batch.items():
                    for record in records:
                        futures.extend(await self._forward(record))
                if futures:
                    await asyncio.gather(*futures)
                forwarded.update({tp: records[-1].offset + 1 for tp, records in batch.items() if records})
                if forwarded and time.monotonic() - committed_at >= COMMIT_INTERVAL_S:
                    await self._commit(forwarded)
                    forwarded, committed_at = {}, time.monotonic()
        finally:
            try:
                # What is acknowledged, so a restart forwards less again (bounded).
                await asyncio.wait_for(self._commit(forwarded), FINAL_COMMIT_TIMEOUT_S)
            except Exception as error:  # noqa: BLE001 - stopping anyway; a repeat is harmless
                log.warning("final offset commit failed: %r", error)
            await self.consumer.stop()

    async def _commit(self, forwarded: dict) -> None:
        """Commit the partitions still assigned (a rebalance may have moved some since they were forwarded: their new
        owner forwards those answers again, which is harmless)."""
        owned = {tp: offset for tp, offset in forwarded.items() if tp in self.consumer.assignment()}
        if not owned:
            return
        try:
            await self.consumer.commit(owned)
        except (CommitFailedError, IllegalStateError) as error:
            log.warning("offset commit failed (%r); those answers will be forwarded again", error)

    async def _forward(self, record) -> list:
        """Only answers (by a guarded peek at the type: any JSON value, or none, passes through it) the jackpot
        service wrote; an untrusted one is quarantined, an undecodable one dead-lettered."""
        if records.peek_type(record.value) not in _ANSWER_TYPES:
            return []
        letter = None
        problem = records.provenance_problem(JACKPOT_EVENTS, record.headers, record.value, record.key)
        if problem is not None:
            log.error(
                "alert: %s/%d/%d quarantined, not forwarded: %s", record.topic, record.partition, record.offset, problem
            )
            letter = records.quarantined(JACKPOT_EVENTS, record.topic, record, problem, consumer="spin")
        else:
            try:
                answer = decode(record.value, expect_kind="event")
            except DecodeError as error:
                letter = records.undecodable(JACKPOT_EVENTS, record.topic, record, error, consumer="spin")
        if letter is not None:
            return [
                await self.producer.send(
                    self.settings.topic(letter.topic), value=letter.value, key=letter.key, headers=letter.headers
                )
            ]
        return [
            await self.producer.send(
                self.settings.topic(SPIN_JACKPOT_ANSWERS),
                value=record.value,
                key=answer.data.player_id.encode(),
                headers=records.signed_headers(
                    "spin",
                    SPIN_JACKPOT_ANSWERS,
                    answer.data.player_id.encode(),
                    record.value,
                    (*observability.forward_headers(record.headers), *_proof(answer, record)),
                ),
            )
        ]


def _proof(answer, record) -> tuple[tuple[str, bytes], ...]:
    """The jackpot's signed record behind a JackpotWon (shared/records.py); a ClaimRejected pays nothing, needs none."""
    return (records.proof_header(record),) if isinstance(answer.data, JackpotWon) else ()
