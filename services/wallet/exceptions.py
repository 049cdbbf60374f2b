"""Errors of the wallet service's adapters (business refusals are events, never exceptions)."""


class WalletError(Exception):
    """Base of the wallet service's own errors."""


class StoreCorrupted(WalletError):
    """A stored player state or memory entry cannot be read back: the process stops rather than guess."""
