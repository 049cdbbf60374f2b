"""The protocols behind the one port, by name: each a set of paths, signature headers and body translations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from seamless import hub88, native
from seamless.port import AnyCall, Answered, Status


@dataclass(frozen=True)
class WireProtocol:
    name: str
    paths: dict[str, str]
    signature_header: str
    key_id_header: str
    request_body: Callable[[AnyCall], dict[str, Any]]
    read_call: Callable[[str, bytes], AnyCall]
    read_answer: Callable[[AnyCall, bytes], Answered]
    answer_body: Callable[[AnyCall, Answered], dict[str, Any]]
    refusal_body: Callable[[dict[str, Any], Status], dict[str, Any]]


def _of(module) -> WireProtocol:
    return WireProtocol(
        module.NAME,
        module.PATHS,
        module.SIGNATURE_HEADER,
        module.KEY_ID_HEADER,
        module.request_body,
        module.read_call,
        module.read_answer,
        module.answer_body,
        module.refusal_body,
    )


HUB88 = _of(hub88)
NATIVE = _of(native)
PROTOCOLS = {HUB88.name: HUB88, NATIVE.name: NATIVE}
