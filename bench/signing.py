"""What transaction signatures cost (shared/signing.py): per record at a transaction size, signing and verifying,
against one Ed25519 signature per record. `python -m bench.signing` prints the table docs/security.md
keeps."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from shared import records, signing

VALUE = b'{"specversion":"1.0","type":"reelstream.wallet.wager-settled.v1","data":{' + b'"x":"' + b"y" * 600 + b'"}}'


def measure(size: int, rounds: int, folder: Path) -> tuple[float, float]:
    """(µs to sign, µs to verify) per record in transactions of `size` records (fresh roots: nothing cached)."""
    signer, headers = signing.load_signer(folder, "wallet"), records.headers_for("wallet")
    batches = [
        [signing.Item("wallet.events", f"p-{r}-{i}".encode(), VALUE, headers) for i in range(size)]
        for r in range(rounds)
    ]
    started = time.perf_counter()
    signed = [signer.sign(batch) for batch in batches]
    sign_s = time.perf_counter() - started
    ring = signing.load_ring(folder)
    started = time.perf_counter()
    for batch, all_headers in zip(batches, signed):
        for item, done in zip(batch, all_headers):
            assert ring.problem("wallet", item.topic, item.key, item.value, done) is None
    verify_s = time.perf_counter() - started
    count = size * rounds
    return sign_s / count * 1e6, verify_s / count * 1e6


_SERVICES = ("spin", "wallet", "jackpot", "projector", "monitor")
# Commands per spin beside the events (debit, settle, contribution); claims are rare.
_COMMANDS = {"wallet.internal": 2, "jackpot.internal": 1}


def records_per_spin() -> tuple[float, float]:
    """(records signed, verifications) per spin: the events of a synthetic history plus the spin's commands, each
    verified once by every service that reads its topic (shared/topics.py)."""
    from bench.synthetic.spins import play_history
    from shared.topics import spec

    history = play_history(seed=1, players=3, spins_per_player=20)
    spins = sum(1 for item in history.emitted if item.topic == "spin.events")
    per_topic = {topic: n / spins for topic, n in _count(item.topic for item in history.emitted).items()}
    per_topic.update(_COMMANDS)
    readers = {topic: len(set(spec(topic).readers) & set(_SERVICES)) for topic in per_topic}
    return sum(per_topic.values()), sum(n * readers[topic] for topic, n in per_topic.items())


def _count(names) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return counts


def main() -> None:
    signed, verified = records_per_spin()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        signing.generate(folder, ("wallet",))
        print("| records per transaction | sign µs/record | verify µs/record | per spin (µs CPU, all services) |")
        print("|---:|---:|---:|---:|")
        for size, rounds in ((1, 2000), (3, 1000), (10, 300), (100, 40), (1000, 4)):
            sign_us, verify_us = measure(size, rounds, folder)
            spin_us = signed * sign_us + verified * verify_us
            print(f"| {size:,} | {sign_us:.1f} | {verify_us:.1f} | {spin_us:,.0f} |")
    print(f"\na spin: {signed:.1f} records signed, {verified:.1f} verifications")


if __name__ == "__main__":
    main()
