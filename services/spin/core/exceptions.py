"""Errors of the spin core: only programmer errors; business refusals are SpinRejected events."""


class UnknownRequest(LookupError):
    """A wallet or jackpot answer names a request this partition's book does not hold."""
