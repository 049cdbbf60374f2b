"""Invariants that survive `python -O`: a broken invariant is a programmer error and stops the process."""


class InvariantViolation(AssertionError):
    """Raised when a stated invariant does not hold; never caught by business code."""


def invariant(condition: bool, message: str) -> None:
    """Assert `condition`; unlike `assert`, this is not stripped by `python -O`."""
    if not condition:
        raise InvariantViolation(message)
