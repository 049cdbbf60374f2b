"""The seamless saga's resources, which follow an overlay's operators file: its pods mount each seamless operator's
call key from that operator's Secret and reach, past DNS and the brokers, each operator's wallet alone (its declared
`egress_cidrs` on its URL's port: a NetworkPolicy names addresses, never hosts)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from deploy.k8s.network import tcp, workload_policy
from deploy.k8s.workloads import WORKLOADS, budget, seamless_key_file, service, workload
from shared.operators import Operator, SeamlessWallet
from shared.topics import SEAMLESS_SAGA

SAGA = next(w for w in WORKLOADS if w.name == SEAMLESS_SAGA)


class SeamlessDeploymentError(ValueError):
    """An operators file a cluster cannot run: a seamless operator's wallet the saga could not reach or sign for."""


def seamless_wallets(configured: tuple[Operator, ...]) -> dict[str, SeamlessWallet]:
    """The seamless operators' wallets by operator id, each with its egress declared and its key where the saga's pods
    mount it; SeamlessDeploymentError naming the first that is not."""
    wallets = {o.id: o.wallet for o in configured if o.wallet is not None}
    for operator_id, wallet in wallets.items():
        if not wallet.egress_cidrs:
            raise SeamlessDeploymentError(
                f"operator {operator_id!r} is seamless but its wallet declares no egress_cidrs: "
                "the saga's NetworkPolicy could not let it reach the wallet"
            )
        if wallet.private_key_file != seamless_key_file(operator_id):
            raise SeamlessDeploymentError(
                f"operator {operator_id!r}'s private_key_file is {wallet.private_key_file!r}, not "
                f"{seamless_key_file(operator_id)!r}, where the saga's pods mount its Secret"
            )
    return wallets


def wallet_egress(wallet: SeamlessWallet) -> dict[str, Any]:
    """The egress rule to one wallet: its CIDRs, on its URL's port."""
    return {"to": [{"ipBlock": {"cidr": cidr}} for cidr in wallet.egress_cidrs], "ports": tcp(wallet.port)}


def seamless_resources(configured: tuple[Operator, ...]) -> list[dict[str, Any]]:
    """The saga's pods, Service, disruption budget and NetworkPolicy for a deployment with these operators; with no
    seamless operator its StatefulSet has no pods (nothing to call, so nothing to spend), and the file regenerated
    with one gives it its replicas."""
    wallets = seamless_wallets(configured)
    egress = tuple(wallet_egress(wallet) for wallet in wallets.values())
    saga = SAGA if wallets else replace(SAGA, replicas=0)
    return [workload(saga, tuple(wallets)), service(SAGA), budget(SAGA), workload_policy(SAGA.name, egress)]
