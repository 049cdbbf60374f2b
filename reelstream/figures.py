"""The figures, rendered from the result files under docs/results/ (and the par sheets under docs/math/): the README's
headline table, docs/figures.md and its charts. `make figures` rewrites them; a test fails when one is stale."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RESULTS = DOCS / "results"
README = ROOT / "README.md"
FIGURES_PAGE = DOCS / "figures.md"
CHARTS = DOCS / "figures"
START, END = "<!-- figures:start (make figures) -->", "<!-- figures:end -->"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class Figure:
    """One figure: where its results are (a glob under docs/), how to read it from one, and what it aims at."""

    key: str
    title: str
    pattern: str
    read: Callable[[dict], float | None]
    target: str = ""
    digits: int = 2
    headline: str = ""  # the README's short name for it; empty: not a headline figure


@dataclass(frozen=True)
class Point:
    """One figure's value in one result file, with the file's provenance."""

    path: str
    date: str
    commit: str
    machine: str
    value: float


def _at(document: dict, *keys: str) -> float | None:
    for key in keys:
        if not isinstance(document, dict) or key not in document:
            return None
        document = document[key]
    return document if isinstance(document, (int, float)) and not isinstance(document, bool) else None


def _null_saga(read: Callable[[dict], float | None]) -> Callable[[dict], float | None]:
    return lambda document: read(document) if document.get("null_sagas") else None


def _difference(document: dict, left: tuple[str, ...], right: tuple[str, ...]) -> float | None:
    a, b = _at(document, *left), _at(document, *right)
    return None if a is None or b is None else a - b


def _taken_over_by(document: dict, how: str) -> bool:
    """Whether a chaos run's every kill was taken over `how` (warm_spare, cold_start): its takeover figure's kind."""
    standbys = document.get("standbys") or {}
    taken = _at(standbys, f"kills_taken_over_by_{how}")
    return bool(taken) and taken == sum(_at(standbys, key) or 0 for key in standbys if key.startswith("kills_taken"))


def _at_load(document: dict, rows: str, rate: float, key: str) -> float | None:
    """`key` of the row of the list `rows` measured at `rate` spins/s (the bench's `…_by_load` lists)."""
    found = [row for row in document.get(rows) or () if isinstance(row, dict) and row.get("spins_per_s") == rate]
    return _at(found[0], key) if found else None


SPINS = "results/spin/*.json"
# The null-saga runs wherever they are kept: under spin/ the runs for the ratios, under cost/ the ones made for bytes,
# records and idle CPU on a machine too busy for the latency and burst ratios (docs/cost.md).
NULL_SAGA_RUNS = "results/*/spin-null-sagas-*.json"
CHAOS_RUNS = "results/chaos/**/*.json"  # the long run's file and the CI-sized runs' under ci/
FIGURES: tuple[Figure, ...] = (
    Figure(
        "rising-joker-rtp",
        "Rising Joker RTP, exact by full-cycle enumeration (%)",
        "math/rising-joker/parsheet.json",
        lambda d: _at(d, "rtp", "total", "percent"),
        "95.50 ± 0.05",
        6,
        "Rising Joker RTP, exact (%)",
    ),
    Figure(
        "stjernestoev-rtp",
        "Stjernestøv main-game RTP, proven by simulation (%)",
        "math/stjernestoev/parsheet.json",
        lambda d: None if _at(d, "simulation", "rtp_main") is None else 100 * d["simulation"]["rtp_main"],
        "93.50 ± 0.05, 99 % CI half-width ≤ 0.03 pp",
        4,
        "Stjernestøv main-game RTP, proven (%)",
    ),
    Figure(
        "spin-burst",
        "burst of the real spin saga (settled spins/s)",
        SPINS,
        _null_saga(lambda d: _at(d, "burst", "real")),
        digits=1,
        headline="spin burst, settled spins/s",
    ),
    Figure(
        "spin-burst-over-n6",
        "burst, real saga ÷ the six-hop null saga N6",
        SPINS,
        _null_saga(lambda d: _at(d, "ratios", "burst_real_over_null6")),
        "≥ 1.0",
        headline="spin burst ÷ N6",
    ),
    Figure(
        "spin-p99-over-n6-at-50",
        "spin latency p99 at 50 spins/s, real saga ÷ N6",
        SPINS,
        _null_saga(lambda d: _at(d, "ratios", "p99_real_over_null6", "50.0")),
        "≤ 0.6",
        headline="spin p99 at 50 spins/s ÷ N6",
    ),
    Figure(
        "spin-p99-over-n6-at-250",
        "spin latency p99 at 250 spins/s, real saga ÷ N6",
        SPINS,
        _null_saga(lambda d: _at(d, "ratios", "p99_real_over_null6", "250.0")),
        "≤ 0.6",
    ),
    Figure(
        "spin-data-records",
        "data records a settled spin (real saga, 50 spins/s)",
        SPINS,
        _null_saga(lambda d: _at(d, "records_per_spin", "data")),
        "≤ 5",
        headline="data records a spin",
    ),
    Figure(
        "spin-bytes-kept-forever-at-250",
        "bytes kept forever a settled spin (real saga, 250 spins/s; topics with retention.ms=-1, delete)",
        NULL_SAGA_RUNS,
        _null_saga(lambda d: _at_load(d, "bytes_per_spin_by_load", 250.0, "kept_forever")),
        "≤ 2500",
        0,
        "bytes kept forever a spin",
    ),
    Figure(
        "spin-bytes-platform-at-250",
        "bytes over the platform's declared topics a settled spin (real saga, 250 spins/s; snapshots apart)",
        NULL_SAGA_RUNS,
        _null_saga(lambda d: _at_load(d, "bytes_per_spin_by_load", 250.0, "platform")),
        "≤ 4000",
        0,
    ),
    Figure(
        "idle-core-percent",
        "idle platform, no spins, 60 s: wallet, jackpot, spin and broker CPU (% of a core)",
        NULL_SAGA_RUNS,
        _null_saga(lambda d: _at(d, "idle_core_percent")),
        "≤ 5",
        1,
        "idle platform (% of a core)",
    ),
    Figure(
        "idle-core-percent-own-broker",
        "idle platform, no spins, 60 s, on a broker of the platform's topics only: services and broker (% of a core)",
        "results/cost/idle-own-broker-*.json",
        lambda d: _at(d, "default", "idle_core_percent"),
        "≤ 5",
        1,
    ),
    Figure(
        "spin-faults-open-debits",
        "fault run (crash hooks, SIGKILLs): debits left open",
        "results/spin/spin-faults.json",
        lambda d: _difference(d, ("debits",), ("closed",)),
        "0",
        0,
        "fault run: debits left open",
    ),
    Figure(
        "one-broker-spins",
        "one broker: settled spins/s (two instances a service)",
        "results/brokers/*.json",
        lambda d: _at(d, "1", "throughput", "spins_per_s"),
        digits=1,
    ),
    Figure(
        "three-brokers-spins",
        "three brokers (rf 3, acks=all): settled spins/s",
        "results/brokers/*.json",
        lambda d: _at(d, "3", "throughput", "spins_per_s"),
        digits=1,
    ),
    Figure(
        "three-brokers-discrepancies",
        "three brokers, a broker and a spin instance killed: audit discrepancies",
        "results/brokers/*.json",
        lambda d: _at(d, "3", "audit", "discrepancies"),
        "0",
        0,
        "three brokers, kills: audit discrepancies",
    ),
    Figure(
        "monitor-over-bare-loop",
        "monitor msg/s on a backlog ÷ the bare loop",
        "results/monitor/*.json",
        lambda d: _at(d, "throughput", "monitor_to_bare_loop"),
    ),
    Figure(
        "monitor-lag",
        "monitor lag at most while spins run at 50/s (s)",
        "results/monitor/*.json",
        lambda d: _at(d, "lag", "lag_s_max"),
        "< 5",
    ),
    Figure(
        "mustdrop-ks",
        "must-drop: KS p-value, drop levels on the platform vs the par sheet's simulation",
        "results/jackpot/*.json",
        lambda d: _at(d, "ks_drop_levels", "p_value"),
        digits=3,
    ),
    Figure(
        "chaos-long-discrepancies",
        "long chaos run (kills, broker restart, hostile records): audit discrepancies",
        "results/chaos/*.json",
        lambda d: None if not isinstance(d.get("discrepancies"), list) else len(d["discrepancies"]),
        "0",
        0,
        "long chaos run: audit discrepancies",
    ),
    Figure(
        "chaos-long-kill-gap",
        "long chaos run: longest answer gap after a kill (s; deprecated: luck, not the takeover — see chaos-takeover)",
        "results/chaos/*.json",
        lambda d: _at(d, "kill_answer_gap", "max_s"),
        "≤ 5",
        3,
    ),
    Figure(
        "chaos-takeover",
        "chaos run with standbys: longest takeover after a kill (s; the killed service committing again on every "
        "partition; every kill taken over by a warm spare)",
        CHAOS_RUNS,
        lambda d: _at(d, "takeover", "max_s") if _taken_over_by(d, "warm_spare") else None,
        "≤ 1",
        3,
        "chaos run with standbys: longest takeover after a kill (s)",
    ),
    Figure(
        "chaos-takeover-cold",
        "chaos run without standbys: longest takeover after a kill (s; every kill taken over by a cold start under "
        "the killed process's instance id)",
        CHAOS_RUNS,
        lambda d: _at(d, "takeover", "max_s") if _taken_over_by(d, "cold_start") else None,
        "≤ 5",
        3,
    ),
    Figure(
        "chaos-recovery-p99",
        "chaos run: recovery p99 after a kill (s; a probe answered on every player partition)",
        CHAOS_RUNS,
        lambda d: _at(d, "recovery", "p99_s"),
        digits=3,
    ),
    Figure(
        "chaos-in-flight-p99",
        "chaos run: p99 latency of the spins in flight across a fault (s)",
        CHAOS_RUNS,
        lambda d: _at(d, "latency", "in_flight_across_faults", "p99_s"),
        "≤ 3",
        3,
    ),
    Figure(
        "chaos-open-wagers",
        "chaos run: wagers open at the end",
        CHAOS_RUNS,
        lambda d: _at(d, "open_wagers"),
        "0",
        0,
        "chaos run: wagers open at the end",
    ),
    Figure(
        "chaos-linearizable",
        "chaos run: checked players' histories linearizable (porcupine; 1 yes, 0 no)",
        CHAOS_RUNS,
        lambda d: None if not isinstance(d.get("linearizable"), bool) else float(d["linearizable"]),
        "1",
        0,
        "chaos run: history linearizable (1 yes)",
    ),
    Figure(
        "logic-cpu-vs-dda066f",
        "logic CPU per settled spin, bytes to bytes, ÷ dda066f's (alternated pairs, medians)",
        "results/cost/saga-cpu-pairs-*.json",
        lambda d: _at(d, "ratio_this_over_base", "total") or _at(d, "ratio_head_over_dda066f", "total"),
        "≤ 1.00",
        3,
    ),
    Figure(
        "hot-pool-6",
        "hot pool: packed contributions applied on one network partition from 6 spin partitions (spins/s)",
        "results/cost/hot-pool-6-*.json",
        lambda d: _at(d, "spins_per_s"),
        "≥ 100,000",
        0,
    ),
    Figure(
        "hot-pool-60",
        "hot pool: packed contributions applied on one network partition from 60 spin partitions (spins/s)",
        "results/cost/hot-pool-60-*.json",
        lambda d: _at(d, "spins_per_s"),
        "≥ 100,000",
        0,
    ),
    Figure(
        "fuzz-long-consumer-stops",
        "long hostile-records campaign: consumers stopped",
        "results/security/*.json",
        lambda d: _at(d, "consumer_stops"),
        "0",
        0,
        "long hostile-records run: consumers stopped",
    ),
)


def provenance(document: dict) -> tuple[str, str, str]:
    """(date, commit, machine) as the file states them; `unknown` where it does not."""
    stated = document.get("provenance") if isinstance(document.get("provenance"), dict) else {}
    date = stated.get("date") or _started(document) or UNKNOWN
    machine = stated.get("machine", UNKNOWN)
    if isinstance(machine, dict):
        machine = ", ".join(f"{key} {value}" for key, value in sorted(machine.items()))
    return str(date), str(stated.get("commit") or UNKNOWN), str(machine)


def _started(document: dict) -> str | None:
    started = document.get("started_at")
    if not isinstance(started, str) or len(started) < 16:
        return None
    return started[:16] + ("Z" if started.endswith("+00:00") or started.endswith("Z") else "")


def points(figure: Figure, docs: Path = DOCS) -> list[Point]:
    """The figure's value in every result file that has it, oldest first (undated files last, by path)."""
    found = []
    for path in sorted(docs.glob(figure.pattern)):
        document = json.loads(path.read_text())
        value = figure.read(document)
        if value is None:
            continue
        date, commit, machine = provenance(document)
        found.append(Point(path.relative_to(docs).as_posix(), date, commit, machine, float(value)))
    return sorted(found, key=lambda p: (p.date == UNKNOWN, p.date, p.path))


def number(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def sparkline(values: list[float]) -> str:
    bars = "▁▂▃▄▅▆▇█"
    low, high = min(values), max(values)
    if high == low:
        return bars[3] * len(values)
    return "".join(bars[round((v - low) / (high - low) * (len(bars) - 1))] for v in values)


def target_value(target: str) -> float | None:
    """The number of a one-sided target (`≥ 1.0`, `≤ 0.6`, `< 5`), drawn as a dashed line; None for any other."""
    head, _, number_text = target.partition(" ")
    if head not in {"≥", "≤", "<", ">"}:
        return None
    try:
        return float(number_text)
    except ValueError:
        return None


def chart_svg(figure: Figure, series: list[Point]) -> str:
    """A line over the runs, oldest left, and the target dashed. Fixed size, no clock, no randomness."""
    width, height, pad = 480, 160, 36
    values = [p.value for p in series]
    goal = target_value(figure.target)
    low, high = min(values + [goal] * (goal is not None)), max(values + [goal] * (goal is not None))
    span = (high - low) or 1.0
    step = (width - 2 * pad) / max(len(values) - 1, 1)

    def y(value: float) -> float:
        return height - pad - (value - low) / span * (height - 2 * pad)

    line = " ".join(f"{pad + i * step:.1f},{y(v):.1f}" for i, v in enumerate(values))
    dots = "".join(f'<circle cx="{pad + i * step:.1f}" cy="{y(v):.1f}" r="2.5"/>' for i, v in enumerate(values))
    target_line = ""
    if goal is not None:
        target_line = (
            f'<line x1="{pad}" y1="{y(goal):.1f}" x2="{width - pad}" y2="{y(goal):.1f}" stroke="#b03030" '
            f'stroke-dasharray="5,4"/>\n<text x="{width - pad + 2}" y="{y(goal) + 4:.1f}" fill="#b03030">'
            f"{_escape(figure.target)}</text>\n"
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">\n'
        f"<title>{_escape(figure.title)}</title>\n"
        f'<rect width="{width}" height="{height}" fill="white"/>\n'
        f'<text x="{pad}" y="16">{_escape(figure.title)}</text>\n'
        f'<text x="4" y="{height - pad + 4}">{number(low, figure.digits)}</text>\n'
        f'<text x="4" y="{pad + 4}">{number(high, figure.digits)}</text>\n'
        f'<text x="{pad}" y="{height - 8}">{len(values)} runs, oldest left; target {_escape(figure.target or "none")}'
        "</text>\n"
        f"{target_line}"
        f'<polyline fill="none" stroke="#1f5fa8" stroke-width="1.5" points="{line}"/>\n'
        f'<g fill="#1f5fa8">{dots}</g>\n'
        "</svg>\n"
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def headline_table(docs: Path = DOCS) -> str:
    """The README's table: each headline figure's latest value, its target and a link to its history."""
    rows = ["| figure | latest | target | history |", "|---|---:|---|---|"]
    for figure in FIGURES:
        series = points(figure, docs)
        if figure.headline and series:
            latest = number(series[-1].value, figure.digits)
            target = figure.target.split(",")[0]
            rows.append(f"| {figure.headline} | {latest} | {target} | [history](docs/figures.md#{figure.key}) |")
    return "\n".join(rows)


def figures_page(docs: Path = DOCS) -> str:
    lines = [
        "# Figures",
        "",
        "<!-- generated by `make figures` (python -m reelstream.figures) from docs/results/; do not edit -->",
        "Each figure with its history over the result files, oldest run first (undated ones last). A result file",
        "states its date, commit and machine where they were recorded; `unknown` where an older file did not. The",
        "campaigns' narrative, run by run, is in [history/](history/); the bench that writes each file is named on",
        "its service's page.",
        "",
    ]
    for figure in FIGURES:
        lines.append(f"- [{figure.title}](#{figure.key})")
    for figure in FIGURES:
        series = points(figure, docs)
        lines += ["", f'<a id="{figure.key}"></a>', f"## {figure.title}", ""]
        lines.append(f"Target: {figure.target or 'none stated'}. Read from `docs/{figure.pattern}`.")
        if not series:
            lines += ["", "No result file has this figure yet."]
            continue
        if len(series) >= 3:
            lines += ["", f"![{figure.title}](figures/{figure.key}.svg)", ""]
            lines.append(f"`{sparkline([p.value for p in series])}` {len(series)} runs")
        lines += ["", "| run (UTC) | value | commit | machine | result file |", "|---|---:|---|---|---|"]
        for p in series:
            link = f"[{Path(p.path).name}]({p.path})"
            lines.append(f"| {p.date} | {number(p.value, figure.digits)} | {p.commit} | {p.machine} | {link} |")
    return "\n".join(lines) + "\n"


def charts(docs: Path = DOCS) -> dict[str, str]:
    """File name under docs/figures/ -> SVG text, for each figure with three runs or more."""
    drawn = {}
    for figure in FIGURES:
        series = points(figure, docs)
        if len(series) >= 3:
            drawn[f"{figure.key}.svg"] = chart_svg(figure, series)
    return drawn


def with_table(readme: str, table: str) -> str:
    head, rest = readme.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def rendered(root: Path = ROOT) -> dict[Path, str]:
    """Every file `make figures` writes, with the text it would write now (pure: reads, never writes)."""
    docs = root / "docs"
    files = {
        root / "README.md": with_table((root / "README.md").read_text(), headline_table(docs)),
        docs / "figures.md": figures_page(docs),
    }
    files.update({docs / "figures" / name: text for name, text in charts(docs).items()})
    return files


def write(root: Path = ROOT) -> None:
    files = rendered(root)
    (root / "docs" / "figures").mkdir(exist_ok=True)
    for stale in (root / "docs" / "figures").glob("*.svg"):
        if stale not in files:
            stale.unlink()
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def stamp(path: Path) -> None:
    """After a run: add what the run's file does not say itself — the commit, the machine, the date (UTC, minutes)."""
    document = json.loads(path.read_text())
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True)
    document["provenance"] = {
        "commit": (commit + ("-dirty" if dirty.stdout.strip() else "")) or UNKNOWN,
        "machine": {"cpus": os.cpu_count(), "host": platform.node(), "python": platform.python_version()},
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
    }
    path.write_text(json.dumps(document, indent=2) + "\n")


def main(argv: list[str]) -> None:
    if argv[:1] == ["stamp"]:
        for name in argv[1:]:
            stamp(Path(name))
        return
    write()


if __name__ == "__main__":
    main(sys.argv[1:])
