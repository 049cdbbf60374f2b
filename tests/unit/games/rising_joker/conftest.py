"""Shared helpers for the Rising Joker tests: the released model, and models that show a hand-built window."""

from __future__ import annotations

import json
from typing import Callable

import pytest

from games.rising_joker.evaluate import SpinEvaluation, evaluate_stops
from games.rising_joker.model import CURRENT_VERSION, RisingJokerModel, load_model, model_bytes, model_from_data

FILLER = ["grape", "bell", "melon"]  # never visible at stops (0, 0, 0, 0, 0)


def model_showing(rows: list[list[str]], version: str = CURRENT_VERSION) -> RisingJokerModel:
    """A released model with strips replaced so that stops (0, 0, 0, 0, 0) show `rows` (top, middle, bottom)."""
    data = json.loads(model_bytes(version))
    data["reels"] = [list(column) + FILLER for column in zip(*rows)]
    return model_from_data(data)


@pytest.fixture(scope="session")
def released() -> RisingJokerModel:
    return load_model()


@pytest.fixture
def showing() -> Callable[[list[list[str]]], RisingJokerModel]:
    return model_showing


@pytest.fixture
def showing_v1() -> Callable[[list[list[str]]], RisingJokerModel]:
    """The v1 model (sub-cent remainders to the pools as breakage), kept for replays of v1 spins."""
    return lambda rows: model_showing(rows, "rising-joker-v1")


@pytest.fixture
def spin_of() -> Callable[[list[list[str]]], SpinEvaluation]:
    def evaluate(rows: list[list[str]]) -> SpinEvaluation:
        return evaluate_stops(model_showing(rows), (0, 0, 0, 0, 0))

    return evaluate
