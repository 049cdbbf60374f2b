"""One headless Chromium for the whole test session, driven by selenium through Debian's chromedriver.

Never a browser download: the binaries are Debian's `chromium` and `chromium-driver` (installed by `.ci/run`). The flags
keep Chromium off the network this machine does not have (background networking, component updates, sync, QUIC).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("REELSTREAM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("REELSTREAM_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)


def browser_missing() -> str | None:
    """Why no browser test can run here, or None."""
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not Path(binary).exists():
            return f"{binary} not found (Debian packages chromium and chromium-driver)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A selenium WebDriver on headless Chromium; under CI=true a missing browser fails instead of skipping."""
    missing = browser_missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="reelstream-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
