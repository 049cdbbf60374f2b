"""RNG evidence: scaled draws pass a chi-square test against the uniform law (and a modulo-biased mapping fails it),
the start-up self-test reproduces RFC 7539's vector and refuses a broken RNG, and the dump holds the raw stream."""

from __future__ import annotations

import hashlib
import struct

import pytest

from games import selftest
from games.rng import SpinRng
from mathtools.rng import binned, chi_square_uniform, dump, seeds_for

DRAWS = 60_000


@pytest.mark.parametrize("n, cells", [(3, 3), (10, 10), (40, 40), (1878, 313), (30_000_000, 300)])
def test_scaled_draws_are_uniform_by_chi_square(n, cells):
    rng = SpinRng(hashlib.sha256(f"chi-square:{n}".encode()).digest())
    result = chi_square_uniform(binned([rng.below(n) for _ in range(DRAWS)], n, cells))
    assert result["p_value"] > 1e-3, result


def test_a_modulo_mapping_fails_the_same_chi_square_test():
    rng = SpinRng(hashlib.sha256(b"chi-square:modulo").digest())
    biased = [(rng.next_u64() & 0xF) % 10 for _ in range(DRAWS)]  # 0..5 twice as likely as 6..9
    assert chi_square_uniform(binned(biased, 10, 10))["p_value"] < 1e-9


def test_the_self_test_reproduces_the_golden_vectors_including_rfc_7539():
    assert selftest.self_test_problems() == []
    selftest.require_self_test("test")


def test_a_service_refuses_to_start_when_the_rng_maps_ranges_differently(monkeypatch, capsys):
    monkeypatch.setattr(SpinRng, "below", lambda self, n: self.next_u64() % n)
    with pytest.raises(SystemExit):
        selftest.require_self_test("spin")
    assert "RNG self-test FAILED" in capsys.readouterr().err


def test_the_numba_cache_of_each_service_is_its_own_and_keyed_by_the_engine_code(tmp_path):
    spin, wallet = selftest.numba_cache_dir(tmp_path, "spin"), selftest.numba_cache_dir(tmp_path, "wallet")
    assert spin != wallet and spin.name == wallet.name == selftest.engine_code_sha256()[:16]


def test_the_dump_holds_the_raw_words_of_its_documented_seeds(tmp_path):
    manifest = dump(tmp_path, label="t", seeds=2, words_per_seed=16, scaled_per_range=3000)
    raw = (tmp_path / "raw.bin").read_bytes()
    assert len(raw) == manifest["raw_bytes"] == 2 * 16 * 8
    second = SpinRng(seeds_for("t", 2)[1])
    assert struct.unpack("<16Q", raw[128:]) == tuple(second.next_u64() for _ in range(16))
    assert len((tmp_path / "scaled-40.txt").read_text().split()) == 3000
    assert manifest["self_test_problems"] == []
