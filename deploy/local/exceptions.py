"""Errors of the local infrastructure: each names what is missing and how to get it."""

from __future__ import annotations


class InfraError(RuntimeError):
    """The local infrastructure cannot start or stop; the message says why and what to do."""
