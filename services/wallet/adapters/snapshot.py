"""The wallet's state format inside a snapshot (shared/snapshots.py): one partition's players and de-duplication
memory (in FIFO order) as a JSON document, and reading it back. The positions travel in the snapshot's manifest.
"""

from __future__ import annotations

from functools import partial

import orjson

from shared import snapshots

from services.wallet.adapters.state_codec import load_player, load_remembered, player_doc, remembered_doc
from services.wallet.core.book import WalletBook
from services.wallet.exceptions import StoreCorrupted

VERSION = 2  # 1 was the local file format (with its offsets inside); 2 keeps only the state


def image(book: WalletBook, quarantined: tuple[int, ...] = (), lazy: bool = False) -> snapshots.Image:
    """The book's image; `lazy`: carrying the book's encoder instead of its bytes (the loop runs it in a forked child
    at once: shared/snapshots.take)."""
    encoder = partial(_document, book)
    return snapshots.Image(encoder if lazy else encoder(), VERSION, quarantined)


def _document(book: WalletBook) -> bytes:
    document = {
        "players": [player_doc(player) for player in book.players.values()],
        "memory": [remembered_doc(player_id, entry) for player_id, entry in book.live_entries()],
    }
    return orjson.dumps(document)


def load(snapshot: snapshots.Snapshot) -> WalletBook:
    """The book a snapshot holds, at the positions its manifest names; ValueError when it cannot be used."""
    if snapshot.format_version != VERSION:
        raise ValueError(f"wallet state format {snapshot.format_version}, this wallet reads {VERSION}")
    try:
        document = orjson.loads(snapshot.state)
        book = WalletBook(snapshot.partition, events_offset=snapshot.output_next)
        book.commands_offset = snapshot.input_next
        for doc in document["players"]:
            player = load_player(doc)
            book.players[player.player_id] = player
        for doc in document["memory"]:
            player_id, entry = load_remembered(doc)
            book.remember(player_id, entry)
    except (orjson.JSONDecodeError, KeyError, TypeError, StoreCorrupted) as error:
        raise ValueError(f"wallet state unreadable: {error}") from error
    return book
