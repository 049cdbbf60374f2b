"""The compiled evaluation the spin service plays with equals the pure-Python reference on every stop combination of
a small strip set and on random stops of every released model, whole outcomes of engine.play included; without numba
the engine plays the pure-Python evaluation."""

from __future__ import annotations

import hashlib
import random
from itertools import product

import pytest

from games.rising_joker import engine as engine_module
from games.rising_joker import kernel
from games.rising_joker.engine import RisingJokerEngine
from games.rising_joker.evaluate import evaluate_stops
from games.rising_joker.model import RELEASED_VERSIONS, load_model
from games.rng import SpinRng
from tests.unit.games.rising_joker.test_rising_joker_fullcycle import _small_model


def test_the_compiled_evaluation_equals_the_reference_on_every_combination_of_a_small_strip_set():
    model = _small_model()
    combinations = list(product(*(range(len(strip)) for strip in model.reels)))
    spins = [(stops, kernel.evaluate_compiled(model, stops)) for stops in combinations]
    assert any(spin.expanded_reels for _, spin in spins) and any(spin.scatter_hundredths for _, spin in spins)
    assert [spin for _, spin in spins] == [evaluate_stops(model, stops) for stops in combinations]


@pytest.mark.parametrize("version", RELEASED_VERSIONS)
def test_the_compiled_evaluation_equals_the_reference_on_random_stops(version):
    model, rng = load_model(version), random.Random(version)
    for _ in range(20_000):
        stops = tuple(rng.randrange(len(strip)) for strip in model.reels)
        assert kernel.evaluate_compiled(model, stops) == evaluate_stops(model, stops), stops


@pytest.mark.parametrize("version", RELEASED_VERSIONS)
def test_engine_play_gives_the_same_outcome_with_and_without_the_kernel(version, monkeypatch):
    engine = RisingJokerEngine(load_model(version))
    seeds = [hashlib.sha256(b"kernel-%d" % n).digest() for n in range(3_000)]
    state = engine.initial_state() | ({"remainder_micro": 7} if engine.model.carries_remainder else {})
    compiled = [engine.play(state, engine.stakes_minor[1], SpinRng(seed)) for seed in seeds]
    monkeypatch.setattr(engine_module, "evaluator", lambda: evaluate_stops)
    assert [engine.play(state, engine.stakes_minor[1], SpinRng(seed)) for seed in seeds] == compiled


def test_without_numba_the_engine_plays_the_pure_python_evaluation(monkeypatch):
    assert kernel.evaluator() is kernel.evaluate_compiled  # numba is a pinned dependency
    monkeypatch.setattr(kernel, "njit", None)
    assert kernel.evaluator() is evaluate_stops
