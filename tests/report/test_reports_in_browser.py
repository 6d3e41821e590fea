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
HI, EN = EXAMPLES / "asr" / "hi", EXAMPLES / "asr" / "en"
BREAKS, PAIRWISE = EXAMPLES / "breaks", EXAMPLES / "pairwise"


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
        "asr score en": (["asr", "score", "--ref", EN / "ref.txt", "--hyp", EN / "sys_b.txt", "--ids", "--lang", "en",
                          "--out", d / "laser-en.jsonl"], {"hyp": EN / "sys_b.txt"}),
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
    "asr score", "asr score en", "asr compare", "breaks score", "breaks score partial",
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
    assert labels == [
        "Penalty by error type", "LASER vs WER per utterance", "LASER vs human score", "1 - WER vs human score",
        "laser_calibrated (fitted to people) vs human score",  # the default judge's figure fitted to people
    ]  # fmt: skip
    beside = page.locator("section", has_text="Beside the score").first.inner_text()
    assert "laser_calibrated (mean, fitted to people)" in beside and "case/punctuation only" in beside
    page.close()


# The text of a chart's title, legend and axes, read in the page: matplotlib writes each string as
# a comment in its text group, before its glyphs (text is drawn as paths).
_CHART_TEXT = """
(name) => {
  const svg = document.querySelector('#fig-' + name + ' svg');
  const box = e => { const b = e.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left}; };
  const label = g => { const c = Array.from(g.childNodes).find(n => n.nodeType === 8); return c ? c.data.trim() : ''; };
  const inner = root => Array.from(root.querySelectorAll('g[id*="text_"]'))
    .filter(g => !g.querySelector('g[id*="text_"]'));
  const ticks = axis => {
    const g = svg.querySelector('g[id$="matplotlib.axis_' + axis + '"]');
    return Array.from(g.querySelectorAll('g[id*="tick_"]')).map(t => inner(t)[0]).filter(Boolean)
      .map(t => ({text: label(t), ...box(t)}));
  };
  const title = inner(svg).find(g => label(g) === svg.getAttribute('aria-label'));
  const legend = svg.querySelector('g[id*="legend_"]');
  return {title: title ? box(title) : null, legend: legend ? box(legend) : null, x: ticks(1), y: ticks(2)};
}
"""


def _chart_names(page) -> list[str]:
    return page.eval_on_selector_all("figure.chart", "fs => fs.map(f => f.id.slice(4))")


@pytest.mark.parametrize("name", EVALUATORS)
def test_the_title_is_above_the_legend(reports, browser, name):
    page, _ = _open(browser, reports[name][0])
    for chart in _chart_names(page):
        t = page.evaluate(_CHART_TEXT, chart)
        assert t["title"] is not None, chart
        if t["legend"]:
            assert t["legend"]["top"] >= t["title"]["bottom"] - 0.5, f"{name}: {chart}: legend above the title"
    page.close()


def test_compare_report_counts_captions_tables_and_width(reports, browser):
    page, _ = _open(browser, reports["asr compare"][0])
    # the word-count axis has ticks at whole numbers only
    ticks = [float(t["text"].replace("\u2212", "-")) for t in page.evaluate(_CHART_TEXT, "error-counts")["y"]]
    assert len(ticks) >= 3 and all(v.is_integer() for v in ticks), ticks
    # the diagonal's caption sits under the scatter plot, nowhere else
    captions = page.eval_on_selector_all(
        "figure.chart", "fs => fs.map(f => [f.id, f.querySelector('figcaption')?.textContent || ''])"
    )
    assert [fid for fid, text in captions if "dashed diagonal" in text] == ["fig-wer-per-utterance"]
    notes = page.eval_on_selector_all("section > p.note", "ps => ps.map(p => p.textContent)")
    assert not any("dashed diagonal" in note for note in notes)
    # no table without a row; a kind of error with none says so
    assert page.eval_on_selector_all("table", "ts => ts.filter(t => !t.tBodies[0].rows.length).length") == 0
    # the two charts share a row and the page's width
    boxes = page.eval_on_selector_all(
        "figure.chart", "fs => fs.map(f => { const b = f.getBoundingClientRect(); return [b.left, b.top, b.right]; })"
    )
    (l1, t1, r1), (l2, t2, r2) = boxes
    assert abs(t1 - t2) < 2 and l2 > r1, boxes
    body = page.evaluate(
        "() => { const s = getComputedStyle(document.body), b = document.body.getBoundingClientRect();"
        " return [b.left + parseFloat(s.paddingLeft), b.right - parseFloat(s.paddingRight)]; }"
    )
    assert body[1] - body[0] >= 0.9 * 1280 - 2 * 32, body
    assert (r2 - l1) >= 0.95 * (body[1] - body[0]), (boxes, body)
    page.close()


def test_laser_report_marks_case_and_punctuation_costs_and_lists_every_weight(reports, browser, tmp_path):
    html, _, _ = reports["asr score en"]
    records = [json.loads(line) for line in (html.parent / "laser-en.jsonl").read_text().splitlines()]
    pairs = [p for r in records for p in r["pairs"]]
    formatting = [p for p in pairs if p["label"] == "match" and p["ref"] != p["hyp"]]
    assert formatting, "examples/asr/en has pairs that differ only in case or punctuation"
    assert all(p["penalty"] == 0 for p in formatting)  # a figure of their own, never in the score
    page, _ = _open(browser, html)
    style = """sel => Array.from(document.querySelectorAll(sel)).map(e => [getComputedStyle(e).backgroundColor,
                    e.getAttribute('title') || '', e.textContent])"""
    marked = page.evaluate(f"({style})('span.pair.case_punct')")
    plain = {c for c, _, _ in page.evaluate(f"({style})('span.pair.match')")}
    legend = page.evaluate(f"({style})('span.legend.case_punct')")
    assert len(marked) == sum(1 for p in pairs if p["label"] == "match" and p["ref"] != p["hyp"])
    assert len(legend) == 1 and "case or punctuation" in legend[0][2]
    assert {c for c, _, _ in marked} == {legend[0][0]} and legend[0][0] not in plain
    assert not any("(penalty" in title for _, title, _ in marked)
    # every weight: the tiers, the calibration in use, and laser_calibrated's weights apart
    from dataclasses import asdict

    from voxjudge.asr.laser.calibration_file import load, load_people

    settings = json.loads(page.inner_text("#settings"))
    weights = settings["weights"]
    assert weights["tiers"] == {"no_penalty": 0.0, "minor": 0.5, "major": 1.0}
    for lang, cal in load().items():
        assert weights["calibration"][lang] == asdict(cal)
    fitted = weights["laser_calibrated (fitted to people, beside the score)"]
    assert fitted == {k: m.as_dict() for k, m in load_people().items()}
    # the chart draws what each type cost, largest first; types that cost nothing are named, not drawn
    cost: dict[str, float] = {}
    for p in pairs:
        key = p["error_type"]  # case/punctuation costs nothing in the score: styled in the text, not charted
        if key:
            cost[key] = cost.get(key, 0.0) + p["penalty"]
    expected = sorted((k for k, v in cost.items() if v > 0), key=lambda k: (-cost[k], k))
    bars = sorted(page.evaluate(_CHART_TEXT, "error-types")["y"], key=lambda t: t["top"])
    assert [b["text"] for b in bars] == expected
    caption = page.inner_text("#fig-error-types figcaption")
    for k in (k for k, v in cost.items() if v == 0):
        assert k in caption
    page.close()
