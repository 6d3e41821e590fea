"""The report of every evaluator with a summary, opened in headless Chromium and measured (element
boxes, not screenshots): no console errors; every chart's text (titles, ticks, axis labels,
legend, count labels) inside its SVG and clear of every other text; the legend clear of the plot
area and one colour per legend entry; no table cell clipped, numbers and CIs on one line, no
sideways scrolling of the page; inputs named with the sha256 of their content; the figures of
``--figures`` one PDF and one PNG per chart. These are the bugs of the hand-drawn charts: a
clipped legend ("consensu"), two series in one colour, a count bubble over a tick, CI cells
wrapping."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, FLAGS, sync_playwright_or_skip
from voxjudge.cli.main import main

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HI, BREAKS, PAIRWISE = EXAMPLES / "asr" / "hi", EXAMPLES / "breaks", EXAMPLES / "pairwise"


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


def _run(argv, *, code=0) -> None:
    assert main([str(a) for a in argv]) == code


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Every evaluator's report (and figures), made by the commands as a user would."""
    d = tmp_path_factory.mktemp("reports")
    judged = d / "acoustic.jsonl"
    _run(["pairwise", "judge", "--pairs", PAIRWISE / "pairs.jsonl", "--samples", "2", "--out", judged])
    half = d / "half.jsonl"  # the first judged pairs only: a partial judgments file
    lines = judged.read_text().splitlines()
    keep = {json.loads(line)["pair_id"] for line in lines[:20]}
    half.write_text("".join(line + "\n" for line in lines if json.loads(line)["pair_id"] in keep))
    partial_human = d / "human_part.tsv"
    partial_human.write_text("\n".join((BREAKS / "human.tsv").read_text().splitlines()[:41]) + "\n")
    boot = ["--resamples", "300"]
    commands = {
        "asr score": (["asr", "score", "--ref", HI / "ref.txt", "--hyp", HI / "sys_b.txt", "--ids",
                       "--human", HI / "human_b.tsv", *boot], {"ref": HI / "ref.txt", "human": HI / "human_b.tsv"}),
        "asr compare": (["asr", "compare", "--ref", HI / "ref.txt", "--hyp-a", HI / "sys_a.txt", "--hyp-b",
                         HI / "sys_b.txt", "--ids", "--normalize", "hindi", *boot], {"hyp_b": HI / "sys_b.txt"}),
        "breaks score": (["breaks", "score", "--ref", BREAKS / "table.jsonl", "--hyp", BREAKS / "hypotheses.tsv",
                          "--human", BREAKS / "human.tsv", "--single", BREAKS / "annotator_a.txt",
                          "--metric", "f1,em,consensus", *boot], {"human": BREAKS / "human.tsv"}),
        "breaks score partial": (["breaks", "score", "--ref", BREAKS / "table.jsonl", "--hyp",
                                  BREAKS / "hypotheses.tsv", "--human", partial_human, "--allow-partial", *boot],
                                 {"human": partial_human}),
        "pairwise analyze": (["pairwise", "analyze", half, "--pairs", PAIRWISE / "pairs.jsonl", "--allow-partial",
                              *boot], {"judgments": half}),
        "pairwise compare": (["pairwise", "compare", judged, half, "--pairs", PAIRWISE / "pairs.jsonl",
                              "--allow-partial", *boot], {"judgments_a": judged}),
        "pairwise select": (["pairwise", "select", "--candidates", PAIRWISE / "candidates.jsonl", "--samples", "2"],
                            {"candidates": PAIRWISE / "candidates.jsonl"}),
    }  # fmt: skip
    made = {}
    for name, (argv, inputs) in commands.items():
        slug = name.replace(" ", "-")
        html, figures = d / f"{slug}.html", d / f"{slug}-figures"
        _run([*argv, "--report", html, "--figures", figures])
        made[name] = (html, figures, inputs)
    return made


def _open(browser, path: Path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.wait_for_selector("#fonts-used[data-ready]", state="attached", timeout=10_000)
    return page, errors


# Measured in the page: for each chart, the text boxes that stick out of the SVG, pairs of text
# boxes that overlap, a legend over the plot area, legend entries against their distinct colours.
_CHART_FAULTS = """
() => Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const box = e => e.getBoundingClientRect();
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const outer = box(svg);
  const texts = Array.from(svg.querySelectorAll('g[id*="text_"], g[id*="count-"]'))
    .filter(g => !g.querySelector('g[id*="text_"]'))  // the innermost text groups
    .filter(g => box(g).width > 0);
  const label = g => g.previousSibling && g.previousSibling.nodeType === 8 ? g.previousSibling.data.trim() : '';
  const name = g => g.id + ' "' + label(g) + '"';
  const outside = texts.filter(g => { const b = box(g);
    return b.left < outer.left - 0.5 || b.right > outer.right + 0.5
      || b.top < outer.top - 0.5 || b.bottom > outer.bottom + 0.5; })
    .map(name);
  const overlaps = [];
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++)
    if (hit(box(texts[i]), box(texts[j]))) overlaps.push(name(texts[i]) + ' x ' + name(texts[j]));
  const legend = svg.querySelector('g[id*="legend_"]');
  const plot = svg.querySelector('g[id$="plot-area"]');
  let legendOverPlot = false, entries = 0, colours = [];
  if (legend) {
    legendOverPlot = !!plot && hit(box(legend), box(plot));
    entries = Array.from(legend.querySelectorAll('g[id*="text_"]')).length;
    const seen = new Set();
    legend.querySelectorAll('g[id*="patch_"] > path').forEach(p => seen.add(getComputedStyle(p).fill));
    legend.querySelectorAll('g[id*="line2d_"] > path').forEach(p => seen.add(getComputedStyle(p).stroke));
    seen.delete('none');
    colours = Array.from(seen);
  }
  return {chart: svg.getAttribute('aria-label'), kind: svg.dataset.chart, texts: texts.length,
          outside, overlaps, legendOverPlot, entries, colours, width: outer.width};
})
"""

_TABLE_FAULTS = """
() => {
  const clipped = [], wrapped = [];
  document.querySelectorAll('td, th').forEach(c => {
    if (c.scrollWidth > c.clientWidth + 1) clipped.push(c.textContent.slice(0, 40));
    if (c.classList.contains('num') && c.textContent.trim()) {
      const r = document.createRange(); r.selectNodeContents(c);
      const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
      if (tops.size > 1) wrapped.push(c.textContent.slice(0, 40));
    }
  });
  return {clipped, wrapped, pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
          cells: document.querySelectorAll('td').length};
}
"""

EVALUATORS = [
    "asr score", "asr compare", "breaks score", "breaks score partial",
    "pairwise analyze", "pairwise compare", "pairwise select",
]  # fmt: skip


@pytest.mark.parametrize("name", EVALUATORS)
def test_report_is_drawn_without_clipping_or_overlap(reports, browser, name):
    html, figures, inputs = reports[name]
    page, errors = _open(browser, html)
    assert errors == []
    charts = page.evaluate(_CHART_FAULTS)
    assert charts, "every report has at least one chart"
    for c in charts:
        assert c["texts"] >= 3 and c["width"] > 200, c  # a title, ticks and labels were drawn
        assert c["outside"] == [], f"{name}: {c['chart']}: text outside the chart: {c['outside']}"
        assert c["overlaps"] == [], f"{name}: {c['chart']}: overlapping text: {c['overlaps']}"
        assert not c["legendOverPlot"], f"{name}: {c['chart']}: legend over the plot"
        if c["entries"]:
            assert len(c["colours"]) == c["entries"], f"{name}: {c['chart']}: colours {c['colours']}"
    tables = page.evaluate(_TABLE_FAULTS)
    assert tables["cells"] > 0
    assert tables["clipped"] == [] and tables["wrapped"] == [], tables
    assert tables["pageOverflow"] <= 0, tables
    # the inputs, named with their size and the sha256 of their content
    rows = page.eval_on_selector_all(
        "section:has(#settings) tbody tr", "rs => rs.map(r => Array.from(r.cells).map(c => c.textContent))"
    )
    named = {path: (size, digest) for _, path, size, digest in rows}
    for path in inputs.values():
        data = Path(path).read_bytes()
        assert named[str(path)] == (str(len(data)), hashlib.sha256(data).hexdigest())
    assert "voxjudge 0.1.0" in page.inner_text("section:has(#settings)")
    # --figures: a PDF and a PNG per chart of the page
    files = sorted(p.name for p in figures.iterdir())
    assert len(files) == 2 * len(charts)
    for f in figures.iterdir():
        head = f.read_bytes()[:8]
        assert head.startswith(b"%PDF") if f.suffix == ".pdf" else head == b"\x89PNG\r\n\x1a\n"
    page.close()


def test_a_partial_report_says_so_before_any_number(reports, browser):
    for name in ("breaks score partial", "pairwise analyze", "pairwise compare"):
        page, errors = _open(browser, reports[name][0])
        first = page.evaluate("() => document.querySelector('h1 ~ section').id")
        assert first == "coverage", name
        assert page.inner_text("#coverage").count("partial:") >= 1
        page.close()
    page, _ = _open(browser, reports["breaks score"][0])
    assert page.locator("#coverage").count() == 0  # a complete run has no coverage box
    page.close()


def test_laser_report_keeps_its_scripts_and_counts(reports, browser):
    page, _ = _open(browser, reports["asr score"][0])
    fonts = page.locator("#fonts-used").inner_text()
    assert "Devanagari" in fonts
    if _has_devanagari_font():
        assert "Devanagari: Noto Sans Devanagari" in fonts or "Devanagari: Lohit" in fonts, fonts
    labels = page.eval_on_selector_all("svg.chart", "s => s.map(x => x.getAttribute('aria-label'))")
    assert labels == ["Error types", "LASER vs WER per utterance", "LASER vs human score", "1 - WER vs human score"]
    page.close()
