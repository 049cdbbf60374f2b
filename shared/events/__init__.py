"""The event contract v1: CloudEvents envelope, payload models of every message, and the codec."""

from shared.events import jackpot, monitor, seamless, spin, wallet  # noqa: F401  (importing registers every payload type)
from shared.events.base import CommandData, EventData, payload_class, registered_types
from shared.events.codec import decode, decode_all, encode, may_be
from shared.events.envelope import CONTENT_TYPE, Envelope, broker_time, derived_id, envelope, epoch_ms
from shared.events.errors import DecodeError

__all__ = [
    "CONTENT_TYPE",
    "CommandData",
    "DecodeError",
    "Envelope",
    "EventData",
    "broker_time",
    "decode",
    "decode_all",
    "derived_id",
    "encode",
    "envelope",
    "epoch_ms",
    "may_be",
    "payload_class",
    "registered_types",
]
