"""`reelstream reports reconciliation --operator O`: reelstream's record of a seamless operator (wallet.seamless)
against its wallet's transaction list, one row per difference."""

from __future__ import annotations

import asyncio
from dataclasses import asdict

import typer

from reelstream.output import View
from seamless.reconcile import Difference

ESSENTIAL = ("kind", "transaction_id", "ours", "theirs")


def difference_rows(found: list[Difference]) -> list[dict[str, str]]:
    return [asdict(difference) | {"kind": difference.kind.value} for difference in found]


def seamless_reconciliation(operator_id: str) -> View:
    from reelstream.output.money_rows import as_view
    from shared.config import load_settings
    from shared.operators import CONFIGURED, seamless_wallet_of

    wallet = seamless_wallet_of(operator_id, CONFIGURED)
    if wallet is None:
        raise typer.BadParameter(
            f"{operator_id!r} is not a seamless operator of the operators file", param_hint="--operator"
        )
    settings = load_settings()
    found = asyncio.run(_reconcile(settings.kafka_bootstrap_servers, settings.topic_prefix, operator_id, wallet))
    view = as_view("seamless_reconciliation", difference_rows(found), ESSENTIAL, f"reconciliation of {operator_id}")
    view.notes.append(f"{len(found)} differences between reelstream's record of {operator_id} and its wallet's list")
    if not found:
        view.title = None  # a table's empty title reads "nothing yet", which would hide that the sides agree
    return view


async def _reconcile(bootstrap: str, prefix: str, operator_id: str, wallet) -> list[Difference]:
    from services.seamless_saga.adapters.clients import wallet_client
    from services.seamless_saga.adapters.reconciliation import reconcile

    async with wallet_client(wallet) as client:
        return await reconcile(bootstrap, prefix, operator_id, client)
