"""The wallet's state format inside a snapshot (shared/snapshots.py): one partition's players and de-duplication
memory (in FIFO order), each remembered fact with where it was first written, one JSON document a line, and reading it
back. The positions travel in the snapshot's manifest."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import partial
from itertools import islice
from typing import Any

import orjson

from shared import snapshots
from shared.events import DecodeError, decode
from shared.events.wallet import WagerDebited

from services.wallet.adapters.state_codec import load_player, load_remembered, player_doc, remembered_doc
from services.wallet.adapters.written import Partition, Written
from services.wallet.core.book import WalletBook
from services.wallet.exceptions import StoreCorrupted

# 1 was the local file format (with its offsets inside); 2 one JSON document keeping each remembered fact's bytes; 3 a
# line of counts, then one JSON line per player and per memory entry, each entry with where its fact is (its
# wallet.events offset, or its bytes while the batch that wrote it was not committed yet: the image is taken right
# after a batch is decided). A repeat is read back from the log, not carried in every snapshot; and a decode is many
# short calls, so a restore decoding on a worker thread gives the event loop the GIL back between them.
VERSION = 3
READS = (2, 3)


def image(book: WalletBook, written: Written, quarantined: tuple[int, ...] = (), lazy: bool = False) -> snapshots.Image:
    """The book's image with where its remembered facts are; `lazy`: carrying the encoder instead of its bytes (the
    loop runs it in a forked child at once: shared/snapshots.take)."""
    encoder = partial(_document, book, written)
    return snapshots.Image(encoder if lazy else encoder(), VERSION, quarantined)


def _document(book: WalletBook, written: Written) -> bytes:
    where = written.repeats.where
    players = [orjson.dumps(player_doc(player)) for player in book.players.values()]
    memory = [
        orjson.dumps(remembered_doc(player_id, entry, where(entry.event_id)))
        for player_id, entry in book.live_entries()
    ]
    counts = orjson.dumps({"players": len(players), "memory": len(memory)})
    return b"\n".join([counts, *players, *memory])  # orjson escapes every newline inside a document


def load(snapshot: snapshots.Snapshot) -> Partition:
    """The partition a snapshot holds; ValueError when it cannot be used."""
    if snapshot.format_version not in READS:
        raise ValueError(f"wallet state format {snapshot.format_version}, this wallet reads {READS}")
    try:
        players, memory = (_lines if snapshot.format_version == 3 else _document_of)(snapshot.state)
        held = Partition(WalletBook(snapshot.partition))
        for doc in players:
            player = load_player(doc)
            held.book.put(player)
        for doc in memory:
            player_id, entry, where = load_remembered(doc)
            held.book.remember(player_id, entry)
            found = where if isinstance(where, int) else (player_id.encode(), where.encode())
            held.written.repeats.kept(entry.event_id, found, entry.recorded_ms)
        _name_games(held)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, DecodeError, StoreCorrupted) as error:
        raise ValueError(f"wallet state unreadable: {error}") from error
    return held


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


def _name_games(held: Partition) -> None:
    """The game of each open wager a snapshot from before wagers named their game holds (game ""), from its debit's
    bytes that snapshot kept: a settlement of it is then bounded by that game's maximum award."""
    for player_id, player in list(held.book.players.items()):
        named = {}
        for wager_id, wager in player.open_wagers.items():
            debit = held.book.memory.get(player_id, {}).get(wager_id)
            if wager.game or debit is None or debit.event_type != WagerDebited.TYPE:
                continue
            where = held.written.repeats.where(debit.event_id)
            if not isinstance(where, int):
                game = getattr(decode(where[1], expect_kind="event").data, "game", None)
                named[wager_id] = replace(wager, game=game or "")
        if named:
            held.book.put(replace(player, open_wagers={**player.open_wagers, **named}))
