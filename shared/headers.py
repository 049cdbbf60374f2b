"""Names of the Kafka headers the platform writes beside the CloudEvents body (one place, read by everyone)."""

from __future__ import annotations

CONTENT_TYPE = "content-type"
# Who wrote a record: the service (or outside role) id; the trust boundary's verify hook reads it (shared/records.py).
WRITER = "reelstream-writer"
# On a dead letter: the writer id the refused record claimed.
ORIGINAL_WRITER = "reelstream-dlq-writer"
