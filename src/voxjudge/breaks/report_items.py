"""The LMRE report's hypothesis table: one row per scored hypothesis, sortable by any column and
filterable by acceptance and human score with a few lines of inline JavaScript (no external
assets). With the consensus metric, a strip under the words shows the agreement at each juncture
(red: the references disagree with the hypothesis there, green: they agree)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from voxjudge.breaks.labels import LabelSet
from voxjudge.breaks.scorer import ScoredHypothesis

MAX_ROWS = 5000  # a bigger page is slow to sort in a browser; --out has every record

_STYLE = """
.hyps td{vertical-align:top}.hyps td.words{text-align:left;min-width:26rem}.hyps th{cursor:pointer;user-select:none}
.hyps th.asc::after{content:" ▲"}.hyps th.desc::after{content:" ▼"}
.w{display:inline-block;margin:0 1px 2px 0;text-align:left}
.w .t{color:#1f5fa8;font-size:.8em;margin-left:2px}
.w .s{display:block;height:6px;margin-top:1px;border-radius:1px}
.filters label{margin-right:1rem}
"""

_SCRIPT = """
(function(){
  var table=document.getElementById('hyps'), body=table.tBodies[0];
  var acc=document.getElementById('f-acc'), hum=document.getElementById('f-human');
  var shown=document.getElementById('f-shown');
  function filter(){
    var n=0;
    Array.prototype.forEach.call(body.rows, function(r){
      var ok=(acc.value==='' || r.dataset.accepted===acc.value) && (hum.value==='' || r.dataset.human===hum.value);
      r.style.display=ok?'':'none'; if(ok) n++;
    });
    shown.textContent=n;
  }
  acc.addEventListener('change', filter); hum.addEventListener('change', filter);
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th, col){
    th.addEventListener('click', function(){
      var asc=!th.classList.contains('asc');
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function(h){h.classList.remove('asc','desc');});
      th.classList.add(asc?'asc':'desc');
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        var x=a.cells[col].dataset.sort, y=b.cells[col].dataset.sort;
        var nx=parseFloat(x), ny=parseFloat(y), d;
        if(!isNaN(nx) && !isNaN(ny)) d=nx-ny; else d=(x<y?-1:(x>y?1:0));
        return asc?d:-d;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
  filter();
})();
"""


def _colour(agreement: float) -> str:
    return f"hsl({120 * agreement:.0f},65%,45%)"


def words_with_strip(record: ScoredHypothesis) -> str:
    """The hypothesis's words with their boundary tags and, when the record has a consensus
    agreement, a coloured strip under every word for the juncture after it."""
    ann = record.hypothesis
    if ann is None:
        return escape(record.text)
    agreement = None
    for metric, score in zip(record.metrics, record.scores):
        if metric.kind == "consensus" and score is not None:
            agreement = score.agreement
    none_label = (record.labelset or LabelSet()).none
    cells = []
    for j, (word, label) in enumerate(zip(ann.words, ann.labels)):
        tag = "" if label == none_label else f'<span class="t">{escape(label)}</span>'
        strip = ""
        if agreement is not None and j < len(agreement):
            a = float(agreement[j])
            title = escape(f"after {word!r}: {label}; {a:.0%} of the reference mass agrees")
            strip = f'<span class="s" title="{title}" style="background:{_colour(a)}"></span>'
        elif agreement is not None:
            strip = '<span class="s"></span>'
        cells.append(f'<span class="w">{escape(word)}{tag}{strip}</span>')
    return " ".join(cells)


def _td(value: float | str | None, shown: str | None = None) -> str:
    sort = "" if value is None else (f"{value:.6f}" if isinstance(value, float) else str(value))
    text = shown if shown is not None else ("–" if value is None else f"{value:.3f}")
    return f'<td data-sort="{escape(sort)}">{text}</td>'


def hypothesis_table(records: Sequence[ScoredHypothesis], human: dict[str, float] | None) -> str:
    """The sortable, filterable table of scored hypotheses (the first ``MAX_ROWS``)."""
    scored = [r for r in records if r.error is None]
    rows_shown = scored[:MAX_ROWS]
    if not rows_shown:
        return "<p>No hypothesis was scored.</p>"
    metrics = rows_shown[0].metrics
    head = ["id", "human", "hypothesis"]
    for m in metrics:
        head += [f"{m.kind}", f"{m.kind} (single)"]
    head.append(f"accepted ({metrics[0].kind})")
    body = []
    for r in rows_shown:
        h = None if human is None else human.get(r.id)
        cells = [_td(r.id, escape(r.id)), _td(h, "–" if h is None else f"{h:g}")]
        cells.append(f'<td class="words" data-sort="{escape(r.text)}">{words_with_strip(r)}</td>')
        for s in r.scores:
            cells += [_td(s.score), _td(s.single_score)]
        cells.append(_td("yes" if r.accepted else "no", "yes" if r.accepted else "no"))
        human_attr = "" if h is None else f"{h:g}"
        body.append(
            f'<tr data-accepted="{"yes" if r.accepted else "no"}" data-human="{human_attr}">{"".join(cells)}</tr>'
        )
    levels = sorted({human[r.id] for r in rows_shown if r.id in human}) if human else []
    options = "".join(f'<option value="{v:g}">{v:g}</option>' for v in levels)
    filters = (
        '<p class="filters">'
        f'<label>accepted ({escape(metrics[0].kind)}) <select id="f-acc"><option value="">all</option>'
        '<option value="yes">yes</option><option value="no">no</option></select></label>'
        f'<label>human score <select id="f-human"><option value="">all</option>{options}</select></label>'
        f'showing <span id="f-shown">{len(rows_shown)}</span> of {len(rows_shown)}'
        + (f" (the first {MAX_ROWS} of {len(scored)}; the records file has all)" if len(scored) > MAX_ROWS else "")
        + " · click a column to sort</p>"
    )
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    return (
        f"<style>{_STYLE}</style>{filters}"
        f'<table id="hyps" class="hyps"><thead><tr>{header}</tr></thead><tbody>{"".join(body)}</tbody></table>'
        f"<script>{_SCRIPT}</script>"
    )
