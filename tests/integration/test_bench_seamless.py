"""`reelstream bench seamless`, tiny: ledger and seamless spins side by side on one deployment, the reference wallet
at 20 ms a call. Every request is answered exactly once and settled (a player spins once, so none is refused in
progress), the wallet answers a bet and a win per seamless spin of the phase, the path's loops committed, every hop
of both paths is read back, and the result files carry the bound and a verdict; whether it passes is the machine's
load, so the test does not ask."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from reelstream.commands.bench import app

pytestmark = pytest.mark.integration


def test_the_seamless_bench_answers_every_request_once_and_writes_the_bound_and_its_verdict(tmp_path):
    arguments = ["seamless", "--rate", "5", "--seconds", "2", "--warmup-seconds", "0", "--players", "20"]
    result = CliRunner().invoke(app, [*arguments, "--no-check", "--out", str(tmp_path)])

    assert result.exit_code == 0, result.output
    figures = json.loads((tmp_path / "seamless-latency.json").read_text())
    assert figures["answers"] == {"requests": 20, "once": 20, "more": 0, "none": 0}
    for mode in ("ledger", "seamless"):
        assert figures["modes"][mode]["settled"] == figures["modes"][mode]["requests"] == 10, figures["modes"]
        assert figures["modes"][mode]["p99_ms"] > 0
    assert figures["wallet_calls"]["calls"] == 2 * 10  # a bet and a win per seamless spin, nothing else
    assert figures["wallet_calls"]["p50_ms"] >= 20  # the wallet's latency switch holds every call
    assert figures["commits"]["commits"] > 0 and figures["commits"]["p99_ms"] > 0
    assert set(figures["commits"]["by_service"]) == {"spin", "wallet", "seamless-saga"}
    # Every settled spin's records were read back: a hop per record of its path, the client's two ends included.
    assert [hop["samples"] for hop in figures["hops"]["ledger"]] == [10] * 6
    assert [hop["samples"] for hop in figures["hops"]["seamless"]] == [10] * 7
    judged = figures["verdict"]
    assert judged["passed"] is (judged["seamless_p99_ms"] <= judged["bound_ms"])
    page = (tmp_path / "seamless-latency.md").read_text()
    assert ("**PASS**" in page) is judged["passed"] and judged["formula"] in page
