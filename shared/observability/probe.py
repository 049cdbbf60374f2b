"""`python -m shared.observability.probe ready|health [PORT]`: exit 0 when this container's service answers 200 there;
an exec health check for images without curl (default port: REELSTREAM_HTTP_PORT)."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "ready"
    if path not in ("ready", "health"):
        sys.stderr.write("usage: python -m shared.observability.probe ready|health\n")
        return 2
    port = argv[2] if len(argv) > 2 else os.environ.get("REELSTREAM_HTTP_PORT", "9400")
    url = f"http://127.0.0.1:{port}/{path}"
    try:
        with urllib.request.urlopen(url, timeout=3) as answer:
            return 0 if answer.status == 200 else 1
    except (urllib.error.URLError, OSError) as error:
        sys.stderr.write(f"{url}: {error}\n")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
