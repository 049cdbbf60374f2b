"""`reelstream fuzz`: a hostile-record campaign through the real broker against a throwaway platform, probed after
every batch, restarted now and then, a failing batch bisected to its record; exit 0 when no consumer stopped and
nothing moved money, else 1 (reelstream/chaos/campaign_run.py)."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from reelstream import arguments

_KINDS = ("topic", "value", "key", "header", "codec")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def record_class(text: str) -> str:
    """KIND:NAME, as `reelstream.chaos.campaign.classes` names them (e.g. header:name-not-utf8, value:deep)."""
    kind, _, name = text.partition(":")
    if kind not in _KINDS or not name or len(text) > 200:
        raise typer.BadParameter(f"{text!r} is not KIND:NAME with KIND one of {', '.join(_KINDS)}")
    return text


def file_name(text: str) -> str:
    if not _NAME.match(text):
        raise typer.BadParameter(f"{text!r} is not a file name (letters, digits, '.', '_', '-'; at most 64)")
    return text


def app(
    seed: int = typer.Option(..., min=0, max=2**63 - 1, help="The seed the records are drawn from."),
    records: int = typer.Option(2_000, min=1, max=10_000_000, help="Hostile records to draw and write."),
    batch: int = typer.Option(500, min=1, max=500, help="Records per batch; every consumer is probed after each."),
    restart_every: int = typer.Option(
        4,
        min=0,
        max=1_000_000,
        help="Restart every service after this many batches, SIGTERM and SIGKILL in turn (0: never).",
    ),
    skip: list[str] = typer.Option(
        [],
        "--skip",
        parser=record_class,
        metavar="CLASS",
        help="Leave out records of a class already known to fail (KIND:NAME, e.g. header:name-not-utf8); repeatable.",
    ),
    bisect: bool = typer.Option(True, "--bisect/--no-bisect", help="Narrow a failing batch down to its record."),
    bisect_max_s: float = typer.Option(1800.0, min=0.0, max=86_400.0, help="Time the bisection may take."),
    probe_timeout_s: float = typer.Option(60.0, min=5.0, max=3_600.0, help="How long each probe waits."),
    out: Path = typer.Option(
        Path(".reelstream/fuzz"), parser=arguments.output_dir, metavar="DIR", help="Directory for the result."
    ),
    name: str = typer.Option("fuzz", parser=file_name, metavar="NAME", help="The result files: <name>.json, .md."),
) -> None:
    """Hostile records as each topic's least privileged writer; probes, restarts, the audit, bisection."""
    from reelstream.chaos.campaign import CampaignPlan
    from reelstream.chaos.campaign_run import run_campaign

    plan = CampaignPlan(
        seed=seed,
        records=records,
        batch=batch,
        restart_every=restart_every,
        skip=tuple(skip),
        bisect=bisect,
        bisect_max_s=bisect_max_s,
        probe_timeout_s=probe_timeout_s,
    )
    result = run_campaign(plan, out, name, echo=typer.echo)
    typer.echo(
        f"{'passed' if result.passed else 'FAILED'}: {sum(result.written.values()):,} records in {result.batches} "
        f"batches, {len(result.restarts)} restarts, {len(result.stops)} consumer stops, "
        f"{len(result.audit.get('money_discrepancies', []))} money discrepancies; report in {out / (name + '.md')}"
    )
    raise typer.Exit(0 if result.passed else 1)
