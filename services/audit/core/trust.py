"""The audit's signature check: a record that claims its trusted writer, or names none, without that writer's valid
signature is an impersonation; records openly written by someone else are only quarantined and counted."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from services.audit.core.findings import Discrepancy
from shared.records import provenance_problems, trusted_writer, writer_of
from shared.signing import SIGNS_AS

if TYPE_CHECKING:
    from services.audit.core.collect import RawRecord

CHECK = "untrusted-record"


def impersonation(record: RawRecord, problem: str | None) -> Discrepancy | None:
    """The finding for a record whose provenance problem is `problem` (None: trusted), or None when it is not one."""
    if problem is None:
        return None
    claimed, trusted = writer_of(record.headers), trusted_writer(record.topic, record.value)
    if claimed is not None and claimed != trusted and SIGNS_AS.get(claimed) != trusted:
        return None  # an operator's cashier (`cashier.<O>`) claims the cashier: its unsigned deposit is one
    return Discrepancy(
        CHECK,
        record.topic,
        f"{'claims' if claimed else 'names no writer, only'} {trusted!r} but {problem}: quarantined, never applied",
        where=record.where,
        at_ms=record.timestamp_ms,
    )


def untrusted_commands(records: Iterable[RawRecord], problems: list[str | None] | None = None) -> list[Discrepancy]:
    """The findings among command records (the services quarantined them; the audit names them). `problems`: their
    provenance problems when the reader has checked them."""
    records = list(records)
    found = [
        impersonation(r, p)
        for r, p in zip(records, provenance_problems(records) if problems is None else problems, strict=True)
    ]
    return [finding for finding in found if finding is not None]
