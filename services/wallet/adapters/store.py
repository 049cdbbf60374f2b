"""The wallet's key-value layout in one table (one changelog, so writes of a player stay ordered on recovery).

Keys: `p|<player>` the player's state; `m|<player>|<transaction id>` what a transaction produced; `l|<player>|<seq>`
the transaction id remembered at `seq`, a FIFO that lets pruning find expired entries in O(1) per command.
Per command the memory entry and the log are written before the player's state: a crash between the writes leaves
an entry whose seq is ahead of the state, which `core.lookup` ignores (the command is decided afresh, identically).
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping

import orjson

from services.wallet.adapters.state_codec import dump_player, dump_remembered, load_player, load_remembered
from services.wallet.core import PlayerState, Remembered
from services.wallet.core.memory import RETENTION_MS

# A limit on everything: at most this many expired entries are deleted per command (two per command keeps up).
PRUNE_MAX = 4
# An entry is deleted only when expired by record time AND written this long ago by the wall clock. Record time alone
# is not enough: catching up a backlog, one second of processing can span hours of record time, and an entry must
# outlive any chance that its command is processed again (offsets are committed every second; 10 min is ample).
PRUNE_GRACE_MS = 10 * 60 * 1000


def _player_key(player_id: str) -> bytes:
    return f"p|{player_id}".encode()


def _memory_key(player_id: str, transaction_id: str) -> bytes:
    return f"m|{player_id}|{transaction_id}".encode()


def _log_key(player_id: str, seq: int) -> bytes:
    return f"l|{player_id}|{seq}".encode()


class MemoryView(Mapping[str, Remembered]):
    """The player's memory as the core sees it: point look-ups into the table, nothing loaded up front."""

    def __init__(self, table: MutableMapping[bytes, bytes], player_id: str) -> None:
        self._table = table
        self._player_id = player_id

    def __getitem__(self, transaction_id: str) -> Remembered:
        raw = self._table.get(_memory_key(self._player_id, transaction_id))
        if raw is None:
            raise KeyError(transaction_id)
        return load_remembered(raw)

    def __iter__(self) -> Iterator[str]:
        raise NotImplementedError("the memory is only looked up by transaction id")

    def __len__(self) -> int:
        raise NotImplementedError("the memory is only looked up by transaction id")


class WalletStore:
    """Load and save one player's state and memory in a bytes -> bytes table (a faust Table in the service)."""

    def __init__(self, table: MutableMapping[bytes, bytes]) -> None:
        self._table = table

    def load(self, player_id: str) -> tuple[PlayerState, int]:
        raw = self._table.get(_player_key(player_id))
        return (PlayerState(player_id), 1) if raw is None else load_player(raw)

    def memory(self, player_id: str) -> MemoryView:
        return MemoryView(self._table, player_id)

    def remember(self, player_id: str, entry: Remembered, wall_ms: int) -> None:
        self._table[_memory_key(player_id, entry.transaction_id)] = dump_remembered(entry)
        self._table[_log_key(player_id, entry.seq)] = orjson.dumps([entry.recorded_ms, entry.transaction_id, wall_ms])

    def save(self, player: PlayerState, log_head: int) -> None:
        self._table[_player_key(player.player_id)] = dump_player(player, log_head)

    def prune(self, player: PlayerState, log_head: int, now_ms: int, wall_ms: int) -> int:
        """Delete up to PRUNE_MAX expired entries from the front of the log; returns the new head."""
        for _ in range(PRUNE_MAX):
            if log_head > player.seq:
                break
            raw = self._table.get(_log_key(player.player_id, log_head))
            if raw is not None:
                recorded_ms, transaction_id, written_wall_ms = orjson.loads(raw)
                if now_ms - recorded_ms <= RETENTION_MS or wall_ms - written_wall_ms <= PRUNE_GRACE_MS:
                    break
                self._delete_entry(player.player_id, transaction_id, log_head)
                self._delete(_log_key(player.player_id, log_head))
            log_head += 1
        return log_head

    def _delete_entry(self, player_id: str, transaction_id: str, seq: int) -> None:
        """Only the entry this log row wrote: an id used anew after expiry has a newer entry under the same key."""
        key = _memory_key(player_id, transaction_id)
        raw = self._table.get(key)
        if raw is not None and load_remembered(raw).seq == seq:
            del self._table[key]

    def _delete(self, key: bytes) -> None:
        if key in self._table:
            del self._table[key]

