"""The audit's signature check: a record that claims its trusted writer but lacks that writer's valid signature is an
impersonation (a principal allowed on the topic without the writer's key), and so is a cashier or operator command
without its signature. Both are findings; records openly written by someone else are only quarantined (counted)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from services.audit.core.findings import Discrepancy
from shared.records import SIGNED_COMMANDS, peek_type, provenance_problem, trusted_writer, writer_of

if TYPE_CHECKING:
    from services.audit.core.collect import RawRecord

CHECK = "untrusted-record"


def impersonation(record: RawRecord, problem: str | None) -> Discrepancy | None:
    """The finding for a record whose provenance problem is `problem` (None: trusted), or None when it is not one."""
    if problem is None:
        return None
    claimed, trusted = writer_of(record.headers), trusted_writer(record.topic, record.value)
    if claimed != trusted and (peek_type(record.value) or "") not in SIGNED_COMMANDS:
        return None
    return Discrepancy(
        CHECK,
        record.topic,
        f"claims {trusted!r} but {problem}: quarantined, never applied",
        where=record.where,
        at_ms=record.timestamp_ms,
    )


def untrusted_commands(records: Iterable[RawRecord]) -> list[Discrepancy]:
    """The findings among command records (the services quarantined them; the audit names them)."""
    found = []
    for record in records:
        finding = impersonation(record, provenance_problem(record.topic, record.headers, record.value, record.key))
        if finding is not None:
            found.append(finding)
    return found
