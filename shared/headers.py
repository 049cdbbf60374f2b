"""Names of the Kafka headers the platform writes beside the CloudEvents body (one place, read by everyone)."""

from __future__ import annotations

CONTENT_TYPE = "content-type"
# Who wrote a record: the service (or outside role) id; the trust boundary's verify hook reads it (shared/records.py).
WRITER = "reelstream-writer"
# On a dead letter: the writer id the refused record claimed.
ORIGINAL_WRITER = "reelstream-dlq-writer"
# On the copy of a JackpotWon the jackpot writes to spin.jackpot-answers: the key and headers (signature included) it
# has on jackpot.events, so the settlement can carry the jackpot's signed record to the wallet (shared/records.py).
JACKPOT_PROOF = "reelstream-jackpot-proof"
# On the record a consumer reads in place of a batch it refused (shared/record_batches.py): why, in ASCII.
REFUSED_BATCH = "reelstream-refused-batch"
