"""Debian's chromium driven by Playwright's Python package (its own browser download is never used):
the one place the browser tests find it and the flags it needs on this closed network."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("VOXJUDGE_CHROMIUM", "/usr/bin/chromium")
# without the background-networking flags chromium keeps trying hosts a closed network refuses
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def sync_playwright_or_skip():
    """Playwright's sync API, or a skip that says what to install (.ci/run installs both)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed (Debian package 'chromium'; .ci/run installs it)")
    return sync_api
