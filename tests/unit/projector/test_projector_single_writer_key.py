"""The single-writer lock's key (services/projector/adapters/single_writer.py): stable, a signed 64-bit integer as
pg_try_advisory_lock takes, and one per deployment prefix."""

from __future__ import annotations

from services.projector.adapters.single_writer import lock_key


def test_the_lock_key_is_a_stable_signed_64_bit_integer_per_prefix():
    keys = {prefix: lock_key(prefix) for prefix in ("", "t1.", "t2.", "pj-0123456789ab.")}
    assert len(set(keys.values())) == len(keys)
    assert all(-(2**63) <= key < 2**63 for key in keys.values())
    assert lock_key("") == lock_key("")
