"""A hostile-record campaign end to end: draw the seed's records, start a throwaway platform, write the records in
batches as each topic's least privileged principal, probe every consumer after each batch, restart every service
now and then, audit at the end; a failing batch stops the campaign and is bisected on fresh deployments."""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, replace
from datetime import datetime, timezone
from pathlib import Path

import hypothesis

from reelstream.chaos import probe_reads
from reelstream.chaos.campaign import CampaignPlan, Narrowed, batches, bisect, describe, draw_records, kept, raw_name
from reelstream.chaos.campaign import restart_after
from reelstream.chaos.campaign_report import CampaignResult, Finding, as_json, as_markdown, shape_counts
from reelstream.chaos.deployment import fresh_deployment, sigterm_unwinds
from reelstream.chaos.fuzz import Hostile
from reelstream.chaos.platform import Platform
from reelstream.chaos.probes import Probes, session_ring
from reelstream.chaos.writers import HostileWriter, Written
from shared.config import state_dir
from shared import signing
from shared.config import Settings, load_settings

Echo = Callable[[str], None]
Failing = tuple[int, list[Hostile], str | None]  # batch index, its records, the restart before the failing round
BISECTED_SHOWN = 20


def run_campaign(
    plan: CampaignPlan, out_dir: Path, name: str = "fuzz", work_dir: Path | None = None, echo: Echo = print
) -> CampaignResult:
    """The campaign; writes `<out_dir>/<name>.json` and `.md` (and `<name>-bisected.jsonl`), the services' logs and
    the audit's checkpoints under `work_dir` (default: the state directory's fuzz/)."""
    started = time.monotonic()
    now = datetime.now(timezone.utc).replace(microsecond=0)
    drawn = draw_records(plan.seed, plan.records, now, signing.sign_one)
    items = kept(drawn, plan.skip)
    result = CampaignResult(
        plan=asdict(plan),
        started_at=now.isoformat(),
        records_at=now.isoformat(),
        hypothesis=hypothesis.__version__,
        drawn=len(drawn),
    )
    echo(f"fuzz: {len(items):,} records drawn with seed {plan.seed} in {time.monotonic() - started:.0f} s")
    out_dir.mkdir(parents=True, exist_ok=True)
    work = work_dir or state_dir() / "fuzz"
    base = load_settings()
    try:  # the result is written whatever happens, a SIGTERM included
        with sigterm_unwinds():
            with running_platform(base, work, plan.probe_timeout_s) as (deployment, platform, probes):
                with HostileWriter(base.kafka_bootstrap_servers, deployment.topic) as writer:
                    failing = _campaign(plan, items, platform, probes, writer, result, echo)
                _final(deployment.settings, platform, probes, result)
            if failing is not None and plan.bisect:
                result.bisected = _bisected(plan, failing, base, work, echo)
                _keep_records(result.bisected.pop("items"), out_dir / f"{name}-bisected.jsonl")
    finally:
        result.duration_s = round(time.monotonic() - started, 1)
        write_result(result, out_dir, name)
    return result


@contextlib.contextmanager
def running_platform(base: Settings, folder: Path, timeout_s: float) -> Iterator[tuple]:
    """A fresh deployment with every service running and one probe round passed before any hostile record."""
    env = {
        "REELSTREAM_SESSION_KEYS": session_ring(),
        "REELSTREAM_KAFKA_SESSION_TIMEOUT_MS": "6000",
        "REELSTREAM_LOG_LEVEL": "WARNING",
        # The money services' group offsets then follow their records closely (the probes read them).
        "REELSTREAM_GROUP_COMMIT_S": "1",
    }
    with fresh_deployment(base, "fz", env) as deployment:
        platform = Platform(deployment, folder / deployment.prefix.rstrip(".") / "logs")
        probes = None
        try:
            startup = platform.start()
            if startup:
                raise RuntimeError(f"the platform did not start: {'; '.join(map(str, startup))}")
            probes = Probes(deployment, platform, timeout_s, folder / deployment.prefix.rstrip(".") / "audit")
            baseline = probes.round(-1)
            if baseline.findings:
                raise RuntimeError(
                    f"the platform fails before any hostile record: {'; '.join(map(str, baseline.findings))}"
                )
            yield deployment, platform, probes
        finally:
            if probes is not None:
                probes.close()
            platform.stop()


def _campaign(plan, items, platform, probes, writer, result, echo) -> Failing | None:
    """Each batch written, then a probe round; every `restart_every` batches every service restarted and probed
    again. Returns the first failing batch (None: none failed)."""
    for index, span in enumerate(batches(len(items), plan.batch)):
        batch = items[span.start : span.stop]
        started = time.monotonic()
        _count(result, writer.write(batch))
        result.batches += 1
        written_s = time.monotonic() - started
        rounds = [probes.round(index)]
        restart = restart_after(plan, index) if not rounds[0].findings else None
        if restart:
            findings = platform.restart(restart)
            result.restarts.append({"after_batch": index, "signal": restart})
            rounds.append(probes.round(index, restart))
            rounds[-1].findings[:0] = findings
        result.rounds += rounds
        echo(_progress(index, len(batch), written_s, rounds))
        if rounds[-1].findings:
            return index, batch, rounds[-1].restart
    return None


def _progress(index: int, count: int, written_s: float, rounds) -> str:
    probed = " + ".join(
        f"{sum(r.timings_s.values()):.1f} s" + (f" after {r.restart}" if r.restart else "") for r in rounds
    )
    findings = "; ".join(str(finding) for r in rounds for finding in r.findings)
    return (
        f"fuzz: batch {index}: {count} records in {written_s:.1f} s, probes {probed}: {findings[:2000] or 'all alive'}"
    )


def _count(result: CampaignResult, written: Written) -> None:
    result.written += Counter(item.topic for item in written.taken)
    for name, counts in shape_counts(written.taken).items():
        result.shapes[name] = result.shapes.get(name, Counter()) + counts
    result.refused_by_broker += Counter(f"{item.topic}: {error}" for item, error in written.refused)


def _final(settings: Settings, platform: Platform, probes: Probes, result: CampaignResult) -> None:
    """The full audit over the deployment (the projection compared too), and what it shows beyond the probes."""
    from services.audit.adapters.runner import audit_platform
    from services.audit.core.scope import Scope

    result.final += platform.stopped()
    dead = probe_reads.dead_letters(settings, platform.monitor_port)
    try:
        run = audit_platform(settings, Scope(), at_rest=True)
    except Exception as error:  # noqa: BLE001 - whatever stops the audit is the finding
        result.audit = {"completed": False, "error": f"{type(error).__name__}: {error}"[:600], "dead_letters": dead}
        result.final.append(Finding("audit", "failed", result.audit["error"]))
        return
    judged = probe_reads.judged(run, probes.book)
    result.final += judged
    result.audit = {
        "completed": True,
        "money_discrepancies": [str(f) for f in judged if f.what == "audit"],
        "untrusted_findings": sum(1 for d in run.discrepancies if d.check == probe_reads.UNTRUSTED),
        "quarantined": dict(Counter(item.where.split("[")[0] for item in run.result.facts.quarantined)),
        "dead_letters": dead,
        "projection": run.projection,
        "counts": run.result.counts,
    }


def _bisected(plan: CampaignPlan, failing: Failing, base: Settings, work: Path, echo: Echo) -> dict:
    """The failing batch halved on fresh deployments down to the record (or the smallest set) that still fails."""
    index, batch, restart = failing
    started = time.monotonic()

    def fails(part: list[Hostile]) -> list[Finding]:
        echo(f"fuzz: bisecting batch {index}: {len(part)} records on a fresh deployment")
        try:
            with running_platform(base, work, plan.probe_timeout_s) as (deployment, platform, probes):
                with HostileWriter(base.kafka_bootstrap_servers, deployment.topic) as writer:
                    writer.write(part)
                findings = probes.round(index).findings
                if not findings and restart:
                    findings = platform.restart(restart) + probes.round(index, restart).findings
                return findings
        except RuntimeError as error:  # a deployment that fails before any hostile record tells nothing
            echo(f"fuzz: bisection step not judged: {error}")
            return []

    alone = fails(batch)
    if not alone:  # what failed needed the batches before it: nothing to narrow on a fresh deployment
        narrowed = Narrowed(batch, [], 1)
    else:
        narrowed = bisect(batch, fails, lambda: time.monotonic() - started < plan.bisect_max_s)
        narrowed = replace(narrowed, failures=narrowed.failures or alone, tries=narrowed.tries + 1)
    echo(f"fuzz: batch {index} narrowed to {len(narrowed.items)} record(s): {'; '.join(map(str, narrowed.failures))}")
    return {
        "batch": index,
        "after_restart": restart,
        "records_in_batch": len(batch),
        "fails_alone": bool(alone),  # the batch failed again on a fresh deployment, without the batches before it
        "records": [describe(item) for item in narrowed.items[:BISECTED_SHOWN]],
        "failures": [str(finding) for finding in narrowed.failures],
        "tries": narrowed.tries,
        "reduced_to_one": len(narrowed.items) == 1,
        "duration_s": round(time.monotonic() - started, 1),
        "items": narrowed.items,
    }


def _keep_records(items: list[Hostile], path: Path) -> None:
    """The bisected records byte for byte (base64), to write them again by hand."""
    lines = []
    for item in items[:BISECTED_SHOWN]:
        encoded = {
            "topic": item.topic,
            "codec": item.codec,
            "partition": item.partition,
            "key": None if item.key is None else base64.b64encode(item.key).decode(),
            "value": None if item.value is None else base64.b64encode(item.value).decode(),
            "headers": [
                [base64.b64encode(raw_name(n)).decode(), base64.b64encode(v).decode()] for n, v in item.headers
            ],
        }
        lines.append(json.dumps(encoded))
    path.write_text("\n".join(lines) + "\n")


def write_result(result: CampaignResult, out_dir: Path, name: str = "fuzz") -> None:
    (out_dir / f"{name}.json").write_text(as_json(result))
    (out_dir / f"{name}.md").write_text(as_markdown(result))
