"""The drop key: 256 bits only the jackpot service holds, sealing must-drop points in jackpot.events (which other
roles can read). From REELSTREAM_JACKPOT_DROP_KEY (hex) or $REELSTREAM_STATE_DIR/secrets/jackpot-drop.key (0600,
made on first use); never logged."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from shared import test_only

from services.jackpot.core.commitment import KEY_BYTES, DropSecrets

KEY_ENV = "REELSTREAM_JACKPOT_DROP_KEY"
LOWEST_DROPS_ENV = "REELSTREAM_TEST_LOWEST_DROPS"


def key_path(environ: dict[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("REELSTREAM_STATE_DIR", ".reelstream")) / "secrets" / "jackpot-drop.key"


def load_drop_key(environ: dict[str, str] | None = None) -> bytes:
    env = os.environ if environ is None else environ
    if env.get(KEY_ENV):
        key = bytes.fromhex(env[KEY_ENV])
        if len(key) != KEY_BYTES:
            raise ValueError(f"{KEY_ENV} must hold {KEY_BYTES} bytes as hex")
        return key
    path = key_path(env)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(os.urandom(KEY_BYTES))
    key = path.read_bytes()
    if len(key) != KEY_BYTES:
        raise ValueError(f"{path} does not hold a {KEY_BYTES}-byte key")
    return key


class LowestDrops(DropSecrets):
    """Test-only (REELSTREAM_TEST_LOWEST_DROPS=1 with REELSTREAM_TEST_HOOKS=1, never in production): every drop point
    is the lowest of its range, so an integration test can make a real spin drop a real pool."""

    def draw(self, low: int, high: int) -> tuple[int, bytes]:
        _, salt = super().draw(low, high)
        return low, salt


def live_secrets(environ: dict[str, str] | None = None) -> DropSecrets:
    """The key and the OS CSPRNG, as the core takes them."""
    env = os.environ if environ is None else environ
    if test_only.armed(env, LOWEST_DROPS_ENV):
        sys.stderr.write("reelstream-jackpot: WARNING test hook armed: every drop point is the lowest of its range\n")
        return LowestDrops(load_drop_key(env), os.urandom)
    return DropSecrets(load_drop_key(env), os.urandom)
