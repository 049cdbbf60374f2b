"""The one switch for test-only hooks (forced seeds, crash points): off unless REELSTREAM_TEST_HOOKS=1, and refused
under REELSTREAM_ENV=production even then, so a production process never honours an armed hook."""

from __future__ import annotations

from collections.abc import Mapping

FLAG = "REELSTREAM_TEST_HOOKS"


class HookRefused(RuntimeError):
    """A test-only hook is armed where test hooks are not allowed: the process must not start."""


def armed(environ: Mapping[str, str], variable: str) -> bool:
    """Whether the hook in `variable` is armed; raises HookRefused when it is set without the flag or in production."""
    if not environ.get(variable, ""):
        return False
    if environ.get(FLAG, "") != "1":
        raise HookRefused(f"{variable} is a test-only hook: it is honoured only with {FLAG}=1 (off by default)")
    if environ.get("REELSTREAM_ENV", "local") == "production":
        raise HookRefused(f"{variable} is a test-only hook and is refused when REELSTREAM_ENV=production")
    return True
