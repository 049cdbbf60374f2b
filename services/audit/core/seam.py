"""The audit's state at a cut, the body of a checkpoint: what its folds carry across the seam, so an audit of the tail
alone finds exactly what an audit of the whole history would. Pure: bytes in, bytes out (docs/audit.md)."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import orjson

from services.audit.core.collect import Fact
from services.audit.core.drops import Drops
from services.audit.core.findings import Discrepancy
from services.audit.core.ledger import Ledger, Wager
from services.audit.core.pools import Pools, PoolState
from services.audit.core.remainders import Outstanding
from services.audit.core.seamless import CHECKS as SEAMLESS_CHECKS
from shared.rtp import RtpSample
from services.audit.core.spins import Spins
from shared.events import decode, encode
from shared.events.jackpot import ContributionsApplied, JackpotWon
from shared.events.spin import BonusRingForfeited, RemainderStranded, SeedDrawn, SpinSettled
from shared.events.wallet import WagerDebited, WagerRefunded, WagerSettled
from shared.topics import WALLET_SEAMLESS

FORMAT = "reelstream.audit.seam.v1"
# Event ids read within this much broker time before the cut stay in the seam, so that a byte-identical redelivery
# of an event read before it still collapses (a service re-sends its last transaction's events when it restarts).
# A redelivery later than that, across a checkpoint, is folded twice and reported: a finding too many, never a miss.
SEEN_FOR_MS = 60_000
# Findings judged on the state at the end of what was read (a later record can make them go away or appear): they
# are evaluated again by every audit over what the seam carries. Every other finding belongs to one record and is
# final once reported, so the seam carries it as it was.
END_STATE_CHECKS = frozenset(
    {
        "wager-open-too-long",
        "seed-mismatch",
        "spin-without-debit",
        "spin-wallet-mismatch",
        "spin-unsettled-in-wallet",
        "contribution-without-wager",
        "contribution-mismatch",
        "jackpot-won-without-claim",
        "jackpot-credit-mismatch",
        "jackpot-liability-mismatch",
        "remainder-mismatch",
        *SEAMLESS_CHECKS,  # judged again over wallet.seamless, which every audit reads whole
    }
)


class SeamError(ValueError):
    """A checkpoint body that is not a seam this code can continue from (format, shape)."""


@dataclass
class Seam:
    """Positions {(contract topic, partition): next offset}, the folds' states (only live wagers and what names them;
    every balance, pool level and state chain), the findings already final, the RTP sums and running totals."""

    positions: dict[tuple[str, int], int]
    latest_ms: int
    ledger: Ledger
    pools: Pools
    spins: Spins
    drops: Drops
    seen: dict[str, tuple[bytes, str, int]]
    findings: list[Discrepancy] = field(default_factory=list)
    rtp: dict[str, RtpSample] = field(default_factory=dict)
    totals: Counter = field(default_factory=Counter)


def related_ids(fact: Fact) -> tuple[str, ...]:
    """The wager (= request) ids one fact is about."""
    data = fact.data
    if isinstance(data, WagerDebited):
        return (str(data.transaction_id),)
    if isinstance(data, (WagerSettled, WagerRefunded)):
        return (str(data.wager_id),)
    if isinstance(data, (SpinSettled, SeedDrawn, BonusRingForfeited, JackpotWon)):
        return (str(data.request_id),)
    if isinstance(data, RemainderStranded) and data.reason == "stake-change":
        return (str(data.request_id),)
    if isinstance(data, ContributionsApplied):
        return tuple(str(c.contribution_id) for c in data.contributions)
    return ()


def cut(
    result: Any, positions: dict[tuple[str, int], int], seen_for_ms: int = SEEN_FOR_MS, retire_after_ms: int = 0
) -> Seam:
    """The seam after an unscoped audit `result` (an AuditResult) that read up to `positions`. A wager that is
    complete (settled with its spin.settled and its contribution applied, or refunded), named by no end-state finding,
    and whose facts are all older than `retire_after_ms` before the cut, is retired: nothing legitimate names it any
    more. Every other wager is carried with every fact about it."""
    live = _live_ids(result, result.latest_ms - retire_after_ms)
    recent_ms = result.latest_ms - seen_for_ms
    ledger, pools, spins = result.ledger, result.pools, result.spins
    kept_ledger = Ledger(
        balances_micro=Counter({k: v for k, v in ledger.balances_micro.items() if v}),
        wagers={k: v for k, v in ledger.wagers.items() if k in live},
        jackpot_credits_minor={k: v for k, v in ledger.jackpot_credits_minor.items() if k in live},
        remainders=dict(ledger.remainders),
    )
    kept_pools = Pools(
        pools={k: replace(v, history=[]) for k, v in pools.pools.items()},
        applied={k: v for k, v in pools.applied.items() if k in live},
        wins={k: f for k, f in pools.wins.items() if str(f.data.request_id) in live},
    )
    kept_spins = Spins(
        settled={k: f for k, f in spins.settled.items() if k in live},
        seeds={k: f for k, f in spins.seeds.items() if k in live},
        forfeits={k: f for k, f in spins.forfeits.items() if k in live},
        strands={k: f for k, f in spins.strands.items() if k in live},
        pending={k: list(v) for k, v in spins.pending.items() if v},
        claims={k: v for k, v in spins.claims.items() if k in live},
        last_state=dict(spins.last_state),
    )
    carried = {f.id for f in _facts_of(kept_ledger, kept_pools, kept_spins, result.drops)}
    return Seam(
        positions=dict(positions),
        latest_ms=result.latest_ms,
        ledger=kept_ledger,
        pools=kept_pools,
        spins=kept_spins,
        drops=result.drops,
        seen={k: v for k, v in result.facts.seen.items() if (v[2] >= recent_ms or k in carried) and _tail_read(v[1])},
        findings=[d for d in result.discrepancies if d.check not in END_STATE_CHECKS],
        rtp=dict(result.rtp),
        totals=Counter(result.totals),
    )


def _tail_read(where: str) -> bool:
    """Whether a fact at `where` is read after the cut only (wallet.seamless is read whole again, never redelivered)."""
    return not where.startswith(f"{WALLET_SEAMLESS}[")


def _live_ids(result: Any, recent_ms: int) -> set[str]:
    """Ids the seam must keep: any fact about them is at or after `recent_ms` or named by an end-state finding, the
    wager is not complete, or it shares a contributions batch with one of those (the batch is checked as a whole)."""
    ledger, pools, spins = result.ledger, result.pools, result.spins
    by_id: dict[str, list[Fact]] = defaultdict(list)
    for wager_id, wager in ledger.wagers.items():
        by_id[wager_id] += [f for f in (wager.debit, wager.settlement, wager.refund) if f is not None]
    for facts in (spins.settled, spins.seeds, spins.forfeits, spins.strands):
        for request_id, fact in facts.items():
            by_id[request_id].append(fact)
    for contribution_id, (_, fact) in pools.applied.items():
        by_id[contribution_id].append(fact)
    for fact in pools.wins.values():
        by_id[str(fact.data.request_id)].append(fact)
    flagged = {d.event_id for d in result.discrepancies if d.check in END_STATE_CHECKS and d.event_id}
    live = {i for i, facts in by_id.items() if any(f.timestamp_ms >= recent_ms or f.id in flagged for f in facts)}
    live |= {i for i, wager in ledger.wagers.items() if not _complete(i, wager, spins, pools)}
    # A seamless operator's wagers are never retired: every audit reads wallet.seamless whole and holds each round to
    # its spin and its pools' movements, and the pools' side of the liability keeps their contributions and payouts.
    live |= set(result.seamless.rounds)
    batches = {id(fact): fact for _, fact in pools.applied.values()}
    grown = True
    while grown:
        grown = False
        for fact in batches.values():
            ids = set(related_ids(fact))
            if ids & live and not ids <= live:
                live |= ids
                grown = True
    return live


def _complete(wager_id: str, wager: Wager, spins: Spins, pools: Pools) -> bool:
    if wager.refund is not None:
        return True
    if wager.settlement is None or wager_id not in spins.settled:
        return False
    settled = wager.settlement.data
    return settled.contribution_micro + settled.breakage_micro == 0 or wager_id in pools.applied


def _facts_of(ledger: Ledger, pools: Pools, spins: Spins, drops: Drops) -> list[Fact]:
    """Every fact the states hold, each once, in partition order (the order the folds read them)."""
    found: dict[int, Fact] = {}
    for wager in ledger.wagers.values():
        for fact in (wager.debit, wager.settlement, wager.refund):
            if fact is not None:
                found[id(fact)] = fact
    for _, fact in pools.applied.values():
        found[id(fact)] = fact
    for facts in (
        pools.wins,
        spins.settled,
        spins.seeds,
        spins.forfeits,
        spins.strands,
        drops.committed,
        drops.revealed,
    ):
        for fact in facts.values():
            found[id(fact)] = fact
    for pending in spins.pending.values():
        for fact in pending:
            found[id(fact)] = fact
    return sorted(found.values(), key=lambda f: (f.topic, f.partition, f.offset))


def encode_seam(seam: Seam) -> bytes:
    """Canonical bytes (sorted keys): equal seams give equal bytes, so their digest names them."""
    facts = _facts_of(seam.ledger, seam.pools, seam.spins, seam.drops)
    index = {id(fact): n for n, fact in enumerate(facts)}

    def at(fact: Fact | None) -> int | None:
        return None if fact is None else index[id(fact)]

    body = {
        "format": FORMAT,
        "positions": sorted([t, p, n] for (t, p), n in seam.positions.items()),
        "latest_ms": seam.latest_ms,
        "facts": [
            {
                "topic": f.topic,
                "where": f.where,
                "ts": f.timestamp_ms,
                "partition": f.partition,
                "offset": f.offset,
                "event": encode(f.envelope).decode(),
            }
            for f in facts
        ],
        "balances": sorted([a, c, v] for (a, c), v in seam.ledger.balances_micro.items()),
        "wagers": [[k, at(w.debit), at(w.settlement), at(w.refund)] for k, w in seam.ledger.wagers.items()],
        "credits": sorted([k, v] for k, v in seam.ledger.jackpot_credits_minor.items()),
        "pools": [asdict(replace(p, history=[])) for _, p in sorted(seam.pools.pools.items())],
        "applied": [[k, at(f)] for k, (_, f) in seam.pools.applied.items()],
        "wins": [[k, at(f)] for k, f in seam.pools.wins.items()],
        **{
            name: [[k, at(f)] for k, f in getattr(seam.spins, name).items()]
            for name in ("settled", "seeds", "forfeits", "strands")
        },
        "pending": sorted([p, g, [at(f) for f in facts]] for (p, g), facts in seam.spins.pending.items()),
        "remainders": sorted([p, g, r.currency, r.micro, r.wager_id] for (p, g), r in seam.ledger.remainders.items()),
        "claims": sorted([k, list(v)] for k, v in seam.spins.claims.items()),
        "last_state": sorted([p, g, s] for (p, g), s in seam.spins.last_state.items()),
        "committed": [[p, c, at(f)] for (p, c), f in seam.drops.committed.items()],
        "revealed": [[p, c, at(f)] for (p, c), f in seam.drops.revealed.items()],
        "seen": sorted([k, d.hex(), w, t] for k, (d, w, t) in seam.seen.items()),
        "findings": [d.as_json() for d in seam.findings],
        "rtp": [asdict(s) for _, s in sorted(seam.rtp.items())],
        "totals": dict(sorted(seam.totals.items())),
    }
    return orjson.dumps(body, option=orjson.OPT_SORT_KEYS)


def digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def decode_seam(body: bytes) -> Seam:
    """The seam `encode_seam` wrote (its facts decoded again); SeamError when it is not one."""
    try:
        raw = orjson.loads(body)
        if raw.get("format") != FORMAT:
            raise SeamError(f"not a {FORMAT} checkpoint (format {raw.get('format')!r})")
        return _seam_of(raw)
    except SeamError:
        raise
    except (orjson.JSONDecodeError, AttributeError, KeyError, IndexError, TypeError, ValueError) as error:
        raise SeamError(f"unreadable checkpoint body: {type(error).__name__}: {error}") from None


def _seam_of(raw: dict) -> Seam:
    facts = [
        Fact(f["topic"], f["where"], f["ts"], decode(f["event"].encode()), f["partition"], f["offset"])
        for f in raw["facts"]
    ]

    def at(n: int | None) -> Fact | None:
        return None if n is None else facts[n]

    ledger = Ledger(
        balances_micro=Counter({(a, c): v for a, c, v in raw["balances"]}),
        wagers={k: Wager(facts[d], at(s), at(r)) for k, d, s, r in raw["wagers"]},
        jackpot_credits_minor={k: v for k, v in raw["credits"]},
        remainders={(p, g): Outstanding(c, m, w) for p, g, c, m, w in raw.get("remainders", [])},  # absent: none
    )
    pool_fields = {f.name for f in fields(PoolState)}
    pools = Pools(
        pools={p["pool_id"]: PoolState(**{k: v for k, v in p.items() if k in pool_fields}) for p in raw["pools"]},
        applied={k: (_applied(facts[n], k), facts[n]) for k, n in raw["applied"]},
        wins={k: facts[n] for k, n in raw["wins"]},
    )
    spins = Spins(
        **{name: {k: facts[n] for k, n in raw[name]} for name in ("settled", "seeds", "forfeits")},
        strands={k: facts[n] for k, n in raw.get("strands", [])},  # absent in a checkpoint from before remainders
        pending={(p, g): [facts[n] for n in ns] for p, g, ns in raw.get("pending", [])},
        claims={k: tuple(v) for k, v in raw["claims"]},
        last_state={(p, g): s for p, g, s in raw["last_state"]},
    )
    return Seam(
        positions={(t, p): n for t, p, n in raw["positions"]},
        latest_ms=raw["latest_ms"],
        ledger=ledger,
        pools=pools,
        spins=spins,
        drops=Drops(
            committed={(p, c): facts[n] for p, c, n in raw["committed"]},
            revealed={(p, c): facts[n] for p, c, n in raw["revealed"]},
        ),
        seen={k: (bytes.fromhex(d), w, t) for k, d, w, t in raw["seen"]},
        findings=[Discrepancy(**d) for d in raw["findings"]],
        rtp={s["game"]: RtpSample(**s) for s in raw["rtp"]},
        totals=Counter(raw["totals"]),
    )


def _applied(fact: Fact, contribution_id: str):
    """The batch's first contribution with that id (the one the pools' fold kept)."""
    return next(c for c in fact.data.contributions if str(c.contribution_id) == contribution_id)
