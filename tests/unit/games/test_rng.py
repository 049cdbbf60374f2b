"""The spin RNG: ChaCha20 keystream words, unbiased ranges, reproducible from the seed alone."""

from collections import Counter

import pytest
from cryptography.hazmat.primitives.ciphers import Cipher
from cryptography.hazmat.primitives.ciphers.algorithms import ChaCha20

from games.rng import SpinRng
from shared.invariant import InvariantViolation

SEED = bytes(range(32))


def test_words_are_the_rfc7539_keystream_read_as_little_endian_u64():
    keystream = Cipher(ChaCha20(SEED, bytes(16)), mode=None).encryptor().update(bytes(8 * 200))
    expected = [int.from_bytes(keystream[i : i + 8], "little") for i in range(0, len(keystream), 8)]
    rng = SpinRng(SEED)
    assert [rng.next_u64() for _ in range(200)] == expected
    assert rng.draws == 200


def test_the_same_seed_gives_the_same_draws_and_another_seed_others():
    assert [SpinRng(SEED).below(1000) for _ in range(3)] == [SpinRng(SEED).below(1000) for _ in range(3)]
    first, other = SpinRng(SEED), SpinRng(bytes(32))
    assert [first.below(10**9) for _ in range(5)] != [other.below(10**9) for _ in range(5)]


def test_below_rejects_instead_of_reducing_modulo():
    # n = 5 takes 3 bits: 8 values, of which 5, 6, 7 are rejected and cost another word.
    rng = SpinRng(SEED)
    values = [rng.below(5) for _ in range(2000)]
    assert set(values) == {0, 1, 2, 3, 4}
    assert rng.draws > 2000
    counts = Counter(values)
    assert max(counts.values()) - min(counts.values()) < 150


def test_weighted_draws_follow_integer_weights():
    rng = SpinRng(SEED)
    counts = Counter(rng.weighted((1, 0, 3)) for _ in range(4000))
    assert counts[1] == 0
    assert 2800 < counts[2] < 3200


@pytest.mark.parametrize("seed", [b"", bytes(31), bytes(33)])
def test_a_seed_must_be_256_bits(seed):
    with pytest.raises(InvariantViolation):
        SpinRng(seed)
