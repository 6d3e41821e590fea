"""Every HTML report, opened in headless Chromium: no console errors, every chart drawn, tables
filled, integer ticks for integer human scores, the legend clear of the bars, and a note naming
the font that draws Devanagari."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, FLAGS, sync_playwright_or_skip
from voxjudge.cli.main import main

pytestmark = pytest.mark.slow


def _has_devanagari_font() -> bool:
    if not shutil.which("fc-list"):
        return False
    out = subprocess.run(["fc-list", ":lang=hi"], capture_output=True, text=True).stdout
    return bool(out.strip())


@pytest.fixture(scope="module")
def browser():
    sync_api = sync_playwright_or_skip()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _open(browser, path: Path):
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, errors


def _check_common(page, errors):
    assert errors == []
    for table in page.locator("table").all():
        assert table.locator("tbody tr").count() > 0
    page.wait_for_selector("#fonts-used[data-ready]", state="attached", timeout=10_000)
    fonts = page.locator("#fonts-used").inner_text()
    assert fonts.startswith("Fonts used:")
    return fonts


def _x_ticks(page, chart) -> list[str]:
    return chart.evaluate(
        """svg => Array.from(svg.querySelectorAll('text[text-anchor="middle"][font-size="10"]'))
                    .map(t => t.textContent)"""
    )


@pytest.fixture(scope="module")
def laser_html(tmp_path_factory, examples_root):
    out = tmp_path_factory.mktemp("laser") / "laser.html"
    hi = examples_root / "asr" / "hi"
    argv = [
        "asr",
        "score",
        "--ref",
        hi / "ref.txt",
        "--hyp",
        hi / "sys_b.txt",
        "--ids",
        "--human",
        hi / "human_b.tsv",
        "--report",
        out,
        "--resamples",
        "500",
    ]
    assert main([str(a) for a in argv]) == 0
    return out


@pytest.fixture(scope="module")
def lmre_html(tmp_path_factory, examples_root):
    out = tmp_path_factory.mktemp("lmre") / "lmre.html"
    d = examples_root / "breaks"
    argv = [
        "breaks",
        "score",
        "--refs",
        d / "table.jsonl",
        "--hyps",
        d / "hypotheses.tsv",
        "--human",
        d / "human.tsv",
        "--single",
        d / "annotator_a.txt",
        "--report",
        out,
        "--resamples",
        "500",
    ]
    assert main([str(a) for a in argv]) == 0
    return out


@pytest.fixture(scope="module")
def examples_root() -> Path:
    return Path(__file__).resolve().parents[2] / "examples"


def test_laser_report(browser, laser_html, tmp_path):
    page, errors = _open(browser, laser_html)
    fonts = _check_common(page, errors)
    charts = page.locator("svg.chart")
    assert charts.count() == 2  # LASER and 1 - WER against human scores
    for k in range(2):
        chart = charts.nth(k)
        assert chart.locator("circle").count() > 0
        assert chart.bounding_box()["width"] > 100
        ticks = _x_ticks(page, chart)
        assert ticks and all(t.isdigit() for t in ticks), ticks  # integer human scores, integer ticks
    # Items at the same point are one dot sized by its count: 50 utterances on each chart.
    counts = page.eval_on_selector_all("svg.chart circle", "cs => cs.map(c => +c.dataset.count)")
    assert sum(counts) == 2 * 50 and max(counts) > 1
    assert "Devanagari" in fonts
    if _has_devanagari_font():
        assert "Devanagari: Noto Sans Devanagari" in fonts or "Devanagari: Lohit" in fonts, fonts
    page.screenshot(path=str(tmp_path / "laser.png"), full_page=True)


def test_lmre_report(browser, lmre_html):
    page, errors = _open(browser, lmre_html)
    _check_common(page, errors)
    bars = page.locator('svg.chart[data-chart="bars"]')
    scatter = page.locator('svg.chart[data-chart="scatter"]')
    assert bars.count() == 1 and scatter.count() == 1
    assert bars.locator("rect").count() > 5
    assert _x_ticks(page, scatter.first) == ["1", "2", "3", "4", "5"]
    # The legend sits clear of every bar.
    overlaps = bars.first.evaluate(
        """svg => {
          const boxes = els => Array.from(els).map(e => e.getBoundingClientRect());
          const legend = boxes(svg.querySelectorAll('g.legend'));
          const rects = boxes(svg.querySelectorAll(':scope > rect'));
          const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
          return legend.filter(l => rects.some(r => hit(l, r))).length;
        }"""
    )
    assert overlaps == 0
    sizes = scatter.first.evaluate("svg => Array.from(svg.querySelectorAll('circle')).map(c => +c.dataset.count)")
    assert sum(sizes) == 72 and max(sizes) > 1  # 72 hypotheses, many sharing a point
