"""What one audit run covers: a time window, optionally one player or one network."""

from __future__ import annotations

from dataclasses import dataclass

from services.audit.core.findings import Discrepancy


@dataclass(frozen=True)
class Scope:
    """History is always folded from the start (balances and levels need it); the scope limits what is re-derived
    and reported. `until_ms` also cuts the history: records stored after it are not read into the fold."""

    since_ms: int | None = None
    until_ms: int | None = None
    player_id: str | None = None
    network_id: str | None = None

    def keeps(self, finding: Discrepancy) -> bool:
        if self.since_ms is not None and finding.at_ms is not None and finding.at_ms < self.since_ms:
            return False
        if self.player_id is not None and finding.player_id != self.player_id:
            return finding.player_id is None and finding.network_id is None
        if self.network_id is not None and finding.network_id != self.network_id:
            return finding.network_id is None and finding.player_id is None
        return True

    def covers_spin(self, timestamp_ms: int, player_id: str, network_id: str | None) -> bool:
        if self.since_ms is not None and timestamp_ms < self.since_ms:
            return False
        if self.player_id is not None and player_id != self.player_id:
            return False
        return self.network_id is None or network_id == self.network_id
