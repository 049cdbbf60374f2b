"""The one path from read messages to a transaction's records for every money service: each Decision's facts, commands
and answers encoded once, routed by the service's declared table (logical topic, partition, packed), marked for a
copy; its refusals dead-lettered, a repeat's facts as first written (shared/repeats.py); copies of signed records."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from shared import inbound, observability, packing, records
from shared.decision import Decision
from shared.events import Envelope, broker_time, encode
from shared.inbound import Inbound
from shared.input_position import Copy, Output
from shared.invariant import invariant

# An output's partition: the input's partition number, or its key's (the producer's partitioner).
OWN, KEY = "own", "key"


@dataclass(frozen=True)
class Route:
    """Where an output goes: its logical `topic` (None: the loop's events topic, on the input's partition), its
    partition (OWN or KEY), the service's `tag` for it (what its crash hooks match), whether the service's `copy`
    hook is asked for a copy of it, and whether a transaction's outputs of it that share key go out `packed` as one
    batch-envelope record, in order (only for a type the contract says may be packed, which its reader unpacks)."""

    topic: str | None = None
    partition: str = OWN
    tag: str = ""
    copied: bool = False
    packed: bool = False


@dataclass(frozen=True)
class Emits:
    """What a service writes for a Decision, declared once.

    writer: its writer id; span: the trace span of a message's decision ("{}": the input's logical topic); routes: by
    payload class, every command's and each fact's or answer's that differs from `events`, `answers` (None: the
    service answers with facts) and `rerouted` (answers to another partition's key); journal_first: a batch's facts
    before all its other records (the spin's seeds, one burst with what reveals them); batch_traces: a fact carries
    its request's trace, else the batch's latest (so a packed run of contributions shares its headers), instead of
    its message's; copy: the copy of a `copied` output (the state, the message's Inbound, the fact or answer, None for
    a repeated fact), None when it has none; kept: whether an answer is one a repeat may name (kept in the places as
    written; None: the service's facts are what its repeats name, each one kept); repeats: the route of a repeated
    fact's record (None: `events`).
    """

    writer: str
    span: str
    routes: Mapping[type, Route] = field(default_factory=dict)
    events: Route = Route()
    answers: Route | None = None
    rerouted: Route | None = None
    journal_first: bool = False
    batch_traces: bool = False
    copy: Callable[[Any, Inbound, Envelope[Any] | None], Copy | None] | None = None
    kept: Callable[[Any, Envelope[Any]], bool] | None = None
    repeats: Route | None = None

    def __post_init__(self) -> None:
        for payload, route in self.routes.items():
            if route.packed:
                invariant(payload.PACKABLE, f"{payload.TYPE} is packed only where the contract says it may be")
                invariant(not route.copied, "a packed record is never copied (a copy is of one message)")

    @property
    def packed_types(self) -> frozenset[str]:
        """The types of the packed routes (their outputs' Output.message_type)."""
        return frozenset(payload.TYPE for payload, route in self.routes.items() if route.packed)


class Emitter:
    """A service's path from read messages to records: its declaration, its core, its topics' names (`physical`:
    logical -> the deployment's, None for none) and its loop's commands topic, whose dead letters go to the loop's DLQ
    (None: each names its DLQ, as all outputs of the spin name their topics); `restoring`: the service's
    shared/restoring.Restoring, told each decision's events (what its snapshot policy counts), None for none."""

    def __init__(
        self,
        emits: Emits,
        core: Any,
        physical: Callable[[str], str | None],
        commands: str | None,
        restoring: Any = None,
    ) -> None:
        self.emits, self.core, self.physical, self.commands = emits, core, physical, commands
        self.restoring = restoring
        self.packed_types = emits.packed_types
        self._spans: dict[str, str] = {}

    def _span(self, logical: str) -> str:
        """The trace span of a message read from `logical`, named once per input."""
        span = self._spans[logical] = self.emits.span.format(logical)
        return span

    def batch(
        self, partition: int, state: Any, inbounds: Iterable[Inbound], places: Any = None, decided: Any = None
    ) -> tuple[list[Output], int]:
        """The records of a batch's messages, in order (a packed route's gathered), and how many inputs were read
        (refused ones too: the loop dead-letters those). `places`: where the partition's facts are, for its repeats
        (the wallet's Written); `decided(state, found, decision)`: the service's look at each Decision (alerts,
        counters, crash hooks)."""
        emits = self.emits
        made, read = _Made(emits.batch_traces), 0
        for found in inbounds:
            read += 1
            message = found.message
            if message is None:  # refused (the loop dead-letters or quarantines it) or none of the service's business
                continue
            record = found.record
            span = self._spans.get(found.input.logical) or self._span(found.input.logical)
            with observability.consume_span(span, record.headers, partition, record.value) as traced:
                decision = self.core.decide(state, message, broker_time(message.broker_ms))
            if decided is not None:
                decided(state, found, decision)
            if self.restoring is not None:
                self.restoring.changed(partition, len(decision.events))
            if emits.batch_traces:
                payload = message.payload
                if traced:  # tracing on: each request's trace, for its facts once the batch is read
                    made.traces.add(traced, _request_of(payload))
                traced = ()
            self._emit(made, (partition, state, found, traced), decision, places)
        return packing.gathered(made.done(), self.packed_types), read

    def _emit(self, made: _Made, at: tuple, decision: Decision, places: Any) -> None:
        """`at`: the input's partition, the state, the message's Inbound and its trace headers."""
        emits, routes, out, found = self.emits, self.emits.routes, made.outputs, at[2]
        facts = made.journal if emits.journal_first else out
        for event in decision.events:
            key, value = event.key, encode(event)
            if places is not None and emits.kept is None:
                places.fact(str(event.id), (key, value), found.message.broker_ms)
            facts.append(self._output(routes.get(type(event.data), emits.events), at, event, key, value))
            if emits.batch_traces:
                made.traced.append((facts, len(facts) - 1, event))
        for refusal in decision.dead_letters:
            letter = inbound.dead_letter(found, refusal, emits.writer, self.commands)
            out += [letter] if letter is not None else []
        for command in decision.commands:
            out.append(self._output(routes[type(command.data)], at, command))
        for reply in decision.answers:
            out.append(self._output(routes.get(type(reply.data), emits.answers), at, reply))
            if emits.kept is not None and emits.kept(at[1], reply):
                places.fact(str(reply.id), (out[-1].key, out[-1].value), found.message.broker_ms)
        for reply in decision.rerouted:
            out.append(self._output(emits.rerouted, at, reply))
        for fact_id in decision.repeated:
            invariant(places is not None, "a service that repeats facts keeps where they are")
            key, value = places.again(fact_id) or (None, b"")  # None: read back before it is sent (Written.completed)
            out.append(self._output(emits.repeats or emits.events, at, None, key, value))

    def _output(
        self, route: Route, at: tuple, message: Envelope[Any] | None, key: bytes | None = None, value: Any = None
    ) -> Output:
        """One record of `message` (None: a repeated fact's, `key` and `value` as first written) as `route` says."""
        partition, state, found, traced = at
        if message is not None:
            key = message.key if key is None else key
            value = encode(message) if value is None else value
        topic = target = None
        if route.topic is not None:
            topic = self.physical(route.topic)
            target = partition if route.partition == OWN else None
        copy = self.emits.copy(state, found, message) if route.copied and self.emits.copy is not None else None
        headers = records.headers_for(self.emits.writer, traced)
        type_ = message.type if message is not None else ""
        return Output(False, key, value, headers, topic, target, route.tag, type_, copy)

    def copies(self, sent: list[Output]) -> list[Output]:
        """The copies of a transaction's signed records that name one (Output.copy), the service's records of their
        topics carrying the trace and, for a proof, the record's signature; the loop signs them in turn."""
        made = []
        for out in sent:
            copy = out.copy
            topic = self.physical(copy.topic) if copy is not None and not out.dead_letter else None
            if topic is None:
                continue
            extra = observability.forward_headers(out.headers)
            if copy.proof:
                extra = (*extra, records.proof_header(out))
            key = out.key if copy.key is None else copy.key
            made.append(Output(False, key, out.value, records.headers_for(self.emits.writer, extra), topic))
        return made


class _Made:
    """A batch's records in the making: its journal (with Emits.journal_first), its other records, and (with
    Emits.batch_traces) the traces of its messages and which facts take one once the batch is read. One a batch:
    plain slots, the trace bookkeeping made only for a service that asks for it."""

    __slots__ = ("journal", "outputs", "traces", "traced")

    def __init__(self, batch_traces: bool) -> None:
        self.journal: list[Output] = []
        self.outputs: list[Output] = []
        self.traces = observability.BatchTraces() if batch_traces else None
        self.traced: list[tuple[list[Output], int, Envelope[Any]]] = []

    def done(self) -> list[Output]:
        if self.traces is not None and self.traces.latest:
            for outputs, index, event in self.traced:
                out, headers = outputs[index], self.traces.headers_for(_request_of(event))
                outputs[index] = replace(out, headers=[*out.headers, *headers])
        return [*self.journal, *self.outputs] if self.journal else self.outputs


def _request_of(message: Any) -> Any:
    """The request a message or event answers (None: a packed record of contributions, or none named)."""
    return getattr(getattr(message, "data", None), "request_id", None)
