"""`reelstream reports reconciliation --operator O`: reelstream's record of a seamless operator (wallet.seamless)
against its wallet's transaction list, one row per difference; and what it owes the jackpot networks, per network and
currency, against what the pools credited and paid for its rounds."""

from __future__ import annotations

import asyncio
from dataclasses import asdict

import typer

from reelstream.output import View
from seamless.reconcile import Difference

ESSENTIAL = ("kind", "transaction_id", "ours", "theirs")
OWED_ESSENTIAL = ("network_id", "owed", "contributions_difference", "payouts_difference", "net")


def difference_rows(found: list[Difference]) -> list[dict[str, str]]:
    return [asdict(difference) | {"kind": difference.kind.value} for difference in found]


def seamless_reconciliation(operator_id: str) -> tuple[list[View], bool]:
    """The differences, then what the operator owes; and whether either found one (a transaction, or an amount the
    pools and the settled rounds disagree on)."""
    from reelstream.output.money_rows import as_view
    from services.audit.core.owed import differs
    from services.seamless_saga.adapters.reconciliation import owed, read_record
    from shared.config import load_settings
    from shared.operators import CONFIGURED, seamless_wallet_of

    wallet = seamless_wallet_of(operator_id, CONFIGURED)
    if wallet is None:
        raise typer.BadParameter(
            f"{operator_id!r} is not a seamless operator of the operators file", param_hint="--operator"
        )
    settings = load_settings()
    record = read_record(settings.kafka_bootstrap_servers, settings.topic_prefix)  # one reading for both tables
    found = asyncio.run(_reconcile(record, operator_id, wallet))
    view = as_view("seamless_reconciliation", difference_rows(found), ESSENTIAL, f"reconciliation of {operator_id}")
    view.notes.append(f"{len(found)} differences between reelstream's record of {operator_id} and its wallet's list")
    if not found:
        view.title = None  # a table's empty title reads "nothing yet", which would hide that the sides agree
    rows = owed(record, operator_id)
    owes = as_view("seamless_contributions", rows, OWED_ESSENTIAL, f"what {operator_id} owes the jackpot networks")
    differing = [row["network_id"] for row in rows if differs(row)]
    if differing:
        owes.notes.append(f"the pools credited or paid other amounts than the settled rounds on {', '.join(differing)}")
    else:
        owes.notes.append(f"the pools credited and paid exactly what {operator_id}'s settled rounds owe and carried")
    return [view, owes], bool(found or differing)


async def _reconcile(record, operator_id: str, wallet) -> list[Difference]:
    from services.seamless_saga.adapters.clients import wallet_client
    from services.seamless_saga.adapters.reconciliation import reconcile

    async with wallet_client(wallet) as client:
        return await reconcile(record, operator_id, client)
