"""What a hostile-record campaign found (pure): probe rounds, consumer stops, the audit's word, the bisected record;
as JSON and as a short Markdown page."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field, replace

# What a finding says of its consumer when it counts as a stop: the "no consumer stopped" is about these.
STOP_KINDS = ("stopped", "not back after a restart", "failed")


@dataclass(frozen=True)
class Finding:
    consumer: str  # a service, "sdk answer reader", "audit", or "money" (a balance or pool moved)
    what: str  # one of STOP_KINDS, or "no answer", "behind", "moved", "miscounted"
    detail: str

    def __str__(self) -> str:
        return f"{self.consumer} {self.what}: {self.detail}"

    @property
    def stop(self) -> bool:
        return self.what in STOP_KINDS


@dataclass
class ProbeRound:
    after_batch: int  # -1: the round before the first batch
    restart: str | None  # "SIGTERM" | "SIGKILL": every service was restarted just before it
    timings_s: dict[str, float] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)


@dataclass
class CampaignResult:
    plan: dict
    started_at: str
    records_at: str  # the `now` the records were drawn with (part of what makes them reproducible)
    hypothesis: str
    drawn: int = 0  # records the seed drew (before the plan's skips)
    written: Counter = field(default_factory=Counter)  # topic -> records the broker took
    shapes: dict[str, Counter] = field(default_factory=dict)  # "value" | "key" | "headers" | "codec" -> counts
    refused_by_broker: Counter = field(default_factory=Counter)  # "topic: error" -> records
    batches: int = 0
    restarts: list[dict] = field(default_factory=list)
    rounds: list[ProbeRound] = field(default_factory=list)
    audit: dict = field(default_factory=dict)
    final: list[Finding] = field(default_factory=list)
    bisected: dict | None = None
    duration_s: float = 0.0

    @property
    def findings(self) -> list[Finding]:
        return [finding for round_ in self.rounds for finding in round_.findings] + self.final

    @property
    def stops(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.stop]

    @property
    def passed(self) -> bool:
        audited = self.audit.get("completed", False)
        return audited and not self.findings and not self.audit.get("money_discrepancies")

    def timings(self) -> dict[str, dict[str, float]]:
        """p50 and max of each probe's time over the rounds (seconds)."""
        by_probe: dict[str, list[float]] = {}
        for round_ in self.rounds:
            for probe, seconds in round_.timings_s.items():
                by_probe.setdefault(probe, []).append(seconds)
        return {
            probe: {"p50_s": round(statistics.median(values), 3), "max_s": round(max(values), 3)}
            for probe, values in by_probe.items()
        }


def as_json(result: CampaignResult) -> str:
    # asdict rebuilds a Counter from its items, as counts of (key, count) pairs: plain dicts go in instead.
    counted = replace(
        result,
        written=dict(result.written),
        shapes={name: dict(counts) for name, counts in result.shapes.items()},
        refused_by_broker=dict(result.refused_by_broker),
    )
    document = {
        **asdict(counted),
        "passed": result.passed,
        "consumer_stops": len(result.stops),
        "stops": [str(finding) for finding in result.stops],
        "findings": [str(finding) for finding in result.findings],
        "probe_timings": result.timings(),
        "records_written": sum(result.written.values()),
    }
    return json.dumps(document, indent=2, default=str) + "\n"


def from_json(text: str) -> CampaignResult:
    """A result file read back, so its page can be rendered again from it."""
    document = json.loads(text)
    fields = {name: document[name] for name in CampaignResult.__dataclass_fields__ if name in document}
    for counted in ("written", "refused_by_broker"):
        fields[counted] = Counter(fields.get(counted, {}))
    fields["shapes"] = {name: Counter(counts) for name, counts in fields.get("shapes", {}).items()}
    fields["rounds"] = [
        ProbeRound(**{**round_, "findings": [Finding(**found) for found in round_["findings"]]})
        for round_ in fields.get("rounds", [])
    ]
    fields["final"] = [Finding(**found) for found in fields.get("final", [])]
    return CampaignResult(**fields)


def as_markdown(result: CampaignResult) -> str:
    plan = result.plan
    lines = [
        f"# Hostile-record campaign, seed {plan['seed']}",
        "",
        f"**{'PASSED' if result.passed else 'FAILED'}** in {result.duration_s} s: "
        f"{sum(result.written.values()):,} records written in {result.batches} batches of at most {plan['batch']}, "
        f"{len(result.restarts)} restarts of every service, {len(result.stops)} consumer stops.",
        "",
        f"Records drawn by hypothesis {result.hypothesis} with seed {plan['seed']} at {result.records_at}"
        + (f", skipping {', '.join(plan['skip'])}" if plan["skip"] else "")
        + f": {result.drawn:,} drawn, {sum(result.refused_by_broker.values()):,} refused by the client or the broker "
        + f"before any consumer could read them ({_refusals(result.refused_by_broker)}).",
        "",
        "| topic | written |",
        "|---|---:|",
        *(f"| {topic} | {count:,} |" for topic, count in sorted(result.written.items())),
        "",
        *(f"{name.capitalize()} shapes: {_shapes(counts)}." for name, counts in sorted(result.shapes.items())),
        "",
        "| probe | p50 (s) | max (s) |",
        "|---|---:|---:|",
        *(f"| {probe} | {t['p50_s']} | {t['max_s']} |" for probe, t in result.timings().items()),
        "",
        f"Audit: {_audit_line(result.audit)}",
        "",
    ]
    if result.findings:
        lines += ["## Findings", "", *(f"- {finding}" for finding in result.findings[:50]), ""]
    if result.bisected:
        lines += _bisected_lines(result.bisected)
    return "\n".join(lines)


def _refusals(refused: Counter) -> str:
    """Refusals by error, most common first ("ValueError": kafka-python takes no record without key and value;
    "InvalidRecordError": the broker takes no keyless record on a compacted topic)."""
    errors: Counter = Counter()
    for where, count in refused.items():
        errors[where.split(": ", 1)[-1]] += count
    return ", ".join(f"{error} {count:,}" for error, count in errors.most_common()) or "none"


def _shapes(counts: Counter) -> str:
    """Counts by the shape's kind (the part before "/"), most common first."""
    kinds: Counter = Counter()
    for shape, count in counts.items():
        kinds[shape.split("/")[0]] += count
    return ", ".join(f"{kind} {count:,}" for kind, count in kinds.most_common())


def _audit_line(audit: dict) -> str:
    if not audit.get("completed"):
        return f"did not complete ({audit.get('error', 'not run')})."
    quarantined = ", ".join(f"{topic} {count:,}" for topic, count in sorted(audit.get("quarantined", {}).items()))
    letters = audit.get("dead_letters", {})
    dead = ", ".join(
        f"{topic} {count:,}"
        + (f" ({seen:,} to the monitor)" if (seen := letters["monitor"].get(topic)) != count else "")
        for topic, count in sorted(letters.get("on_topics", {}).items())
    )
    return (
        f"{len(audit.get('money_discrepancies', []))} money discrepancies; "
        f"{audit.get('untrusted_findings', 0):,} records named as untrusted; quarantined: {quarantined or 'none'}; "
        f"dead letters (records on each dead-letter topic): {dead or 'none'}."
    )


def _bisected_lines(bisected: dict) -> list[str]:
    lines = [
        "## Bisected",
        "",
        f"Batch {bisected['batch']} ({bisected['records_in_batch']} records) narrowed to {len(bisected['records'])} "
        f"record(s) in {bisected['tries']} fresh deployments ({bisected['duration_s']} s); they make fail:",
        "",
        *(f"- {line}" for line in bisected["failures"]),
        "",
    ]
    for record in bisected["records"][:5]:
        lines += ["```", json.dumps(record, indent=1, ensure_ascii=False)[:3000], "```", ""]
    return lines


def shape_counts(items) -> dict[str, Counter]:
    """How many records of each value, key and header shape and codec (for the result)."""
    return {
        "value": Counter(item.shape for item in items),
        "key": Counter(item.key_shape for item in items),
        "headers": Counter(item.header_shape for item in items),
        "codec": Counter(item.codec or "none" for item in items),
    }
