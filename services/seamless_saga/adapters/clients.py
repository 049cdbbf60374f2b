"""One HTTP client per seamless operator, from its operators-file settings: its protocol, its URL, reelstream's
signing key read from the referenced file, and its per-call timeout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from seamless.client import WalletClient
from seamless.protocols import PROTOCOLS
from seamless.signatures import Signer
from shared.operators import Operator, SeamlessWallet


def wallet_client(wallet: SeamlessWallet) -> WalletClient:
    signer = Signer.from_pem(wallet.key_id, Path(wallet.private_key_file).read_bytes())
    return WalletClient(wallet.url, PROTOCOLS[wallet.protocol], signer, timeout_s=wallet.call_timeout_ms / 1000)


def wallet_clients(configured: Iterable[Operator]) -> dict[str, WalletClient]:
    """A client for each seamless operator, by operator id (ledger operators have none)."""
    return {operator.id: wallet_client(operator.wallet) for operator in configured if operator.wallet is not None}
