"""A local snapshot of one partition's folded state with the wallet.events offset it covers (a cache, never truth).

One file per partition, written whole to a temporary name, fsynced and renamed, so a crash leaves the old snapshot
or the new one. A snapshot that is unreadable, of another topic, or ahead of the topic's end is ignored: recovery
then folds wallet.events from the start, which is always correct, only slower.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import orjson

from services.wallet.core.book import WalletBook
from services.wallet.adapters.state_codec import load_player, load_remembered, player_doc, remembered_doc
from services.wallet.exceptions import StoreCorrupted

log = logging.getLogger("reelstream.wallet.snapshot")
VERSION = 1


def path_of(directory: Path, partition: int) -> Path:
    return directory / f"partition-{partition}.snapshot.json"


def write(directory: Path, topic: str, state: WalletBook) -> int:
    """Write the snapshot of `state`; returns its size in bytes."""
    document = {
        "v": VERSION,
        "topic": topic,
        "partition": state.partition,
        "offset": state.events_offset,
        "commands_offset": state.commands_offset,
        "players": [player_doc(player) for player in state.players.values()],
        "memory": [remembered_doc(player_id, entry) for player_id, entry in state.live_entries()],
    }
    raw = orjson.dumps(document)
    directory.mkdir(parents=True, exist_ok=True)
    final = path_of(directory, state.partition)
    temporary = final.with_suffix(".tmp")
    with open(temporary, "wb") as handle:
        handle.write(raw)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, final)
    state.unsnapshotted = 0
    return len(raw)


def load(directory: Path, topic: str, partition: int) -> WalletBook | None:
    """The snapshot of `partition`, or None when there is none usable."""
    path = path_of(directory, partition)
    if not path.exists():
        return None
    try:
        document = orjson.loads(path.read_bytes())
        if document.get("v") != VERSION or document.get("topic") != topic or document.get("partition") != partition:
            log.warning("ignoring snapshot %s: written for another topic, partition or version", path)
            return None
        state = WalletBook(partition, events_offset=int(document["offset"]))
        if document.get("commands_offset") is not None:  # absent in snapshots written before it was recorded
            state.commands_offset = int(document["commands_offset"])
        for doc in document["players"]:
            player = load_player(doc)
            state.players[player.player_id] = player
        for doc in document["memory"]:
            player_id, entry = load_remembered(doc)
            state.remember(player_id, entry)
        return state
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError, StoreCorrupted) as error:
        log.warning("ignoring unreadable snapshot %s: %s", path, error)
        return None
