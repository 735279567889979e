"""Headless Chromium for the viewer's tests and benchmark (Playwright driving the system's
``chromium``; Playwright's own browser download is never used)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile

__all__ = ["CHROMIUM_ARGS", "INSTALL_HINT", "find_chromium", "headless_chromium"]

INSTALL_HINT = "apt-get update && apt-get install -y chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    """Path of the Chromium executable: ``$ROBODYN_CHROMIUM``, /usr/bin/chromium or on PATH."""
    for c in (
        os.environ.get("ROBODYN_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


@contextlib.contextmanager
def headless_chromium(width: int = 800, height: int = 600):
    """A Playwright browser context in headless Chromium with a fresh profile.

    Raises
    ------
    RuntimeError
        No Chromium (the message names the install command) or no Playwright.
    """
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise RuntimeError("driving a browser needs Playwright: pip install playwright") from None
    exe = find_chromium()
    if exe is None:
        raise RuntimeError(f"no Chromium browser found; install it with: {INSTALL_HINT}")
    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        ctx = p.chromium.launch_persistent_context(
            profile,
            executable_path=exe,
            args=list(CHROMIUM_ARGS),
            headless=True,
            viewport={"width": width, "height": height},
            device_scale_factor=1,
        )
        try:
            yield ctx
        finally:
            ctx.close()
