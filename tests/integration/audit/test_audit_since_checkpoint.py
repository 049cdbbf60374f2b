"""The incremental audit through the real broker: a full audit of the first part of a history leaves a signed
checkpoint, the rest is produced, and `--since-checkpoint` reads only the rest and finds what a full audit finds.

Scenario: the stand-in engine plays three players; the history is cut right after a wager's debit (its settlement
comes after the cut), the first part is produced to fresh prefixed topics and audited in full (clean, a checkpoint
written); the rest is produced, then a forged settlement. The audit from the checkpoint reads only the records after
it, matches the wager across the seam, names the forgery exactly as a full audit does, and writes the next
checkpoint; an edited checkpoint is refused, never used.
"""

from __future__ import annotations

import uuid

import orjson
import pytest

from services.audit.adapters.checkpoints import CheckpointError
from services.audit.adapters.runner import Checkpointing, audit_platform
from services.audit.core.scope import Scope
from bench.synthetic.spins import Emitted, play_history, stand_in_lookup
from shared.events import envelope
from shared.events import wallet as wl

from tests.integration.audit.test_audit_raw_topics import prefixed, produce, settings_for  # noqa: F401

pytestmark = pytest.mark.integration


def test_an_audit_since_the_checkpoint_reads_only_the_tail_and_finds_what_a_full_audit_finds(
    kafka_bootstrap,
    prefixed,  # noqa: F811
    make_producer,
    tmp_path,
):
    emitted = play_history(seed=13, players=3, spins_per_player=10).emitted
    debits = [i for i, item in enumerate(emitted) if isinstance(item.envelope.data, wl.WagerDebited)]
    cut_at = debits[len(debits) // 2] + 1  # the wager debited last before the cut settles after it
    settings = settings_for(kafka_bootstrap, prefixed)
    checkpointing = Checkpointing(tmp_path / "checkpoint.json", tmp_path / "keys")

    produce(make_producer, prefixed, emitted[:cut_at])
    first = audit_platform(
        settings, Scope(), with_projection=False, lookup=stand_in_lookup, checkpointing=checkpointing
    )
    assert first.discrepancies == [] and first.checkpoint == checkpointing.path
    open_wager = str(emitted[cut_at - 1].envelope.data.transaction_id)
    assert first.result.ledger.wagers[open_wager].settlement is None

    settled = next(item for item in emitted if isinstance(item.envelope.data, wl.WagerSettled))
    forged = settled.envelope.data.model_copy(update={"wager_id": uuid.uuid4(), "transaction_id": uuid.uuid4()})
    forgery = envelope(forged, source="reelstream/wallet", time=settled.envelope.time)
    produce(make_producer, prefixed, emitted[cut_at:] + [Emitted("wallet.events", forgery, 0)])
    resume = Checkpointing(checkpointing.path, checkpointing.keys, resume=True)
    tail = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup, checkpointing=resume)
    full = audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup)

    assert tail.resumed is not None and tail.resumed.digest == first.checkpoint_digest
    assert tail.result.facts.records == len(emitted) - cut_at + 1, "only the records after the checkpoint"
    assert tail.result.ledger.wagers[open_wager].settlement is not None, "matched across the seam"
    assert [d.as_json() for d in tail.discrepancies] == [d.as_json() for d in full.discrepancies]
    named = [d for d in tail.discrepancies if d.check == "settlement-without-debit"]
    assert [d.event_id for d in named] == [str(forgery.id)]
    assert tail.result.totals["records"] == full.result.totals["records"] == len(emitted) + 1
    following = orjson.loads(checkpointing.path.read_bytes())["header"]
    assert following["previous"] == first.checkpoint_digest, "the checkpoints chain"

    document = orjson.loads(checkpointing.path.read_bytes())
    document["header"]["digest"] = "0" * 64
    checkpointing.path.write_bytes(orjson.dumps(document))
    with pytest.raises(CheckpointError, match="refused: signature does not verify"):
        audit_platform(settings, Scope(), with_projection=False, lookup=stand_in_lookup, checkpointing=resume)
