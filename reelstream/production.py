"""What a service refuses to start without under REELSTREAM_ENV=production: signatures (a readable signing directory
and, for a writer, its own key), a session key ring where tokens are checked, and a kept drop key where must-drop
pools seal their drop points. Locally these gaps are allowed: nothing is signed, the drop key is made on first use."""

from __future__ import annotations

from collections.abc import Mapping

from reelstream.processes import SEAMLESS_SAGA
from shared import signing

ENV = "REELSTREAM_ENV"
# The services whose writes are signed (shared/signing.py WRITERS); the projector only reads.
SIGNING_SERVICES = frozenset({"spin", "wallet", "jackpot", "monitor", SEAMLESS_SAGA})
# The services that issue or check session tokens.
SESSION_SERVICES = frozenset({"spin"})


class ProductionRefused(RuntimeError):
    """A production process lacks something it must not run without (the message names each gap, never a secret)."""


def in_production(environ: Mapping[str, str]) -> bool:
    return environ.get(ENV, "local") == "production"


def signing_problems(environ: Mapping[str, str], service: str) -> list[str]:
    """Why the signing directory would leave this service's records unsigned or unverified ([] when it would not)."""
    directory = signing.signing_dir(dict(environ))
    if directory is None:
        return [f"{signing.SIGNING_DIR_ENV} is not set: nothing would be signed or verified"]
    if not (directory / signing.PUBLIC_FILE).is_file():
        return [f"{signing.SIGNING_DIR_ENV}={directory} holds no readable {signing.PUBLIC_FILE}"]
    try:
        if not signing.load_ring(directory).keys:
            return [f"{directory / signing.PUBLIC_FILE} lists no key"]
        if service in SIGNING_SERVICES:
            signing.load_signer(directory, service)
    except signing.SigningError as error:
        return [str(error)]
    return []


def session_problems(environ: Mapping[str, str], service: str) -> list[str]:
    from shared.config import load_settings
    from shared.session import SessionKeyError, key_ring

    if service not in SESSION_SERVICES:
        return []
    try:
        key_ring(load_settings(dict(environ)).session_secret)
    except SessionKeyError as error:
        return [str(error)]
    return []


def drop_key_problems(environ: Mapping[str, str], service: str) -> list[str]:
    """A drop key made on first use lives in the container's state directory and is lost with it; after that a restore
    cannot open the sealed drop points (SealBroken), so production takes it from a kept secret."""
    from services.jackpot.adapters.drop_key import KEY_ENV, load_drop_key
    from shared.pools import POOLS_VERSION_ENV, load_pools

    if service != "jackpot":
        return []
    pools = load_pools(environ.get(POOLS_VERSION_ENV) or None)
    if not any(network.drop_pools() for network in pools.networks):
        return []
    if not environ.get(KEY_ENV, ""):
        return [f"{KEY_ENV} is not set and the pools have must-drop pools: a key made at start is lost with the pod"]
    try:
        load_drop_key(dict(environ))
    except ValueError as error:
        return [str(error)]
    return []


def problems(environ: Mapping[str, str], service: str) -> list[str]:
    """Every gap that keeps `service` from starting under production ([] elsewhere)."""
    if not in_production(environ):
        return []
    checks = (signing_problems, session_problems, drop_key_problems)
    return [problem for check in checks for problem in check(environ, service)]


def require_ready(environ: Mapping[str, str], service: str) -> None:
    found = problems(environ, service)
    if found:
        raise ProductionRefused(f"refusing to start {service} under {ENV}=production: " + "; ".join(found))
