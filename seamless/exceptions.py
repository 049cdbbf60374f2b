"""The one exception root of the seamless package."""


class SeamlessError(ValueError):
    """A key that cannot be read, a key ring past its limit, an amount no protocol can carry exactly."""
