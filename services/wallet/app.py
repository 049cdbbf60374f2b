"""The wallet service process: `reelstream services run wallet` runs main() until SIGTERM."""
from __future__ import annotations

import time


def main() -> None:
    started = time.monotonic()
    from shared.config import load_settings
    from services.wallet.adapters.service import build_app, data_dir

    settings = load_settings()
    directory = data_dir(settings)
    directory.mkdir(parents=True, exist_ok=True)
    app = build_app(settings, directory, started)
    worker = app.Worker(loglevel="WARNING", quiet=True, redirect_stdouts=False)
    worker.execute_from_commandline()


if __name__ == "__main__":
    main()
