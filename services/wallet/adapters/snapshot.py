"""The wallet's state format inside a snapshot (shared/snapshots.py): one partition's players and de-duplication
memory (in FIFO order), one JSON document a line, and reading it back. The positions travel in the snapshot's manifest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from itertools import islice
from typing import Any

import orjson

from shared import snapshots

from services.wallet.adapters.state_codec import load_player, load_remembered, player_doc, remembered_doc
from services.wallet.core.book import WalletBook
from services.wallet.exceptions import StoreCorrupted

# 1 was the local file format (with its offsets inside); 2 one JSON document; 3 a line of counts, then one JSON line
# per player and per memory entry, so a decode is many short calls: a restore decoding on a worker thread gives the
# event loop the GIL back between them, where one call over the whole image held it throughout.
VERSION = 3
READS = (2, 3)


def image(book: WalletBook, quarantined: tuple[int, ...] = (), lazy: bool = False) -> snapshots.Image:
    """The book's image; `lazy`: carrying the book's encoder instead of its bytes (the loop runs it in a forked child
    at once: shared/snapshots.take)."""
    encoder = partial(_document, book)
    return snapshots.Image(encoder if lazy else encoder(), VERSION, quarantined)


def _document(book: WalletBook) -> bytes:
    players = [orjson.dumps(player_doc(player)) for player in book.players.values()]
    memory = [orjson.dumps(remembered_doc(player_id, entry)) for player_id, entry in book.live_entries()]
    counts = orjson.dumps({"players": len(players), "memory": len(memory)})
    return b"\n".join([counts, *players, *memory])  # orjson escapes every newline inside a document


def load(snapshot: snapshots.Snapshot) -> WalletBook:
    """The book a snapshot holds, at the positions its manifest names; ValueError when it cannot be used."""
    if snapshot.format_version not in READS:
        raise ValueError(f"wallet state format {snapshot.format_version}, this wallet reads {READS}")
    try:
        players, memory = (_lines if snapshot.format_version == 3 else _document_of)(snapshot.state)
        book = WalletBook(snapshot.partition, events_offset=snapshot.output_next)
        book.commands_offset = snapshot.input_next
        for doc in players:
            player = load_player(doc)
            book.players[player.player_id] = player
        for doc in memory:
            player_id, entry = load_remembered(doc)
            book.remember(player_id, entry)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, StoreCorrupted) as error:
        raise ValueError(f"wallet state unreadable: {error}") from error
    return book


def _document_of(state: bytes) -> tuple[Iterable[Any], Iterable[Any]]:
    document = orjson.loads(state)
    return document["players"], document["memory"]


def _lines(state: bytes) -> tuple[Iterator[Any], Iterator[Any]]:
    head, *rest = state.split(b"\n")
    counts = orjson.loads(head)
    players, memory = counts["players"], counts["memory"]
    if not (isinstance(players, int) and isinstance(memory, int)) or len(rest) != players + memory:
        raise ValueError(f"{len(rest)} lines for {players!r} players and {memory!r} memory entries")
    decoded = map(orjson.loads, rest)
    return islice(decoded, players), decoded
