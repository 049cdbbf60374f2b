"""Errors of the jackpot service's adapters (business refusals are events, not exceptions)."""


class JackpotServiceError(RuntimeError):
    """The service cannot go on safely (e.g. a transaction failed): the process stops and a restart restores state."""
