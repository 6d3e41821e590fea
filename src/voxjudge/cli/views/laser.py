"""``asr score``: the LASER table, its WER beside it, error types, agreement with people;
``asr classify --eval`` and ``asr train``'s reports."""

from __future__ import annotations

from voxjudge.cli.common import console
from voxjudge.cli.views.shared import pct, penalty, render_join_coverage
from voxjudge.summaries import embedder_named


def render_laser(s: dict) -> str:
    from voxjudge.cli.tables import Table

    con = console()
    with con.capture() as cap:
        from voxjudge.asr.laser.tally import coverage_text

        c = s.get("coverage") or {}
        for note in (
            coverage_text(s),
            c.get("human") and render_join_coverage(c["human"], "scored utterances", "the agreement covers"),
        ):
            if note:
                con.print(note)
        if s.get("lang_decided"):
            how = "given (--lang)" if s["lang_decided"] == "given" else s["lang_decided"]
            con.print(f"language: {s['lang']}, {how}", highlight=False, markup=False)
        scored = f"{c['scored']} of {c['utterances']}" if c.get("unscored") else str(s["n"])
        on = ", on Ray" if s.get("engine") == "ray" else ""
        t = Table(title=f"LASER ({s['judge']}{on}): {scored} utterances scored, {s['ref_words']} reference words")
        for col in ("LASER micro", "LASER macro", "WER (corpus, %)", "no penalty", "minor", "major", "unscored"):
            t.add_column(col, justify="right")
        f = lambda v: "–" if v is None else f"{v:.4f}"  # noqa: E731
        t.add_row(
            f(s["laser_micro"]),
            f(s["laser_macro"]),
            pct(s["wer"]),
            str(s["labels"]["no_penalty"]),
            str(s["labels"]["minor"]),
            str(s["labels"]["major"]),
            str(s["n_unscored"]),
        )
        con.print(t)
        for line in _beside(s):
            con.print(line)
        con.print(
            f"WER: corpus level ({s['wer_errors']} word edits / {s['wer_ref_words']} reference words) on "
            f"{s['wer_tokens']}"
        )
        if s.get("normalize") not in (None, "none"):
            con.print(f"normalize={s['normalize']} (both sides, before alignment)")
        e = Table(title="Error types")
        for col in ("type", "count", "penalty"):
            e.add_column(col, justify="left" if col == "type" else "right")
        for name, cell in s["error_types"].items():
            e.add_row(name, str(cell["count"]), penalty(cell["penalty"]))
        con.print(e)
        if s.get("agreement"):
            from voxjudge.report.html import correlation_text

            level = 100 * (s.get("bootstrap") or {}).get("confidence", 0.95)
            a = Table(title=f"Agreement with human scores ({level:g}% bootstrap CI)")
            for col in ("metric", "pearson", "spearman", "kendall"):
                a.add_column(col, justify="left" if col == "metric" else "right")
            from voxjudge.asr.laser.people import LABEL

            for name, cs in s["agreement"].items():  # the figure fitted to people is named so
                a.add_row(LABEL if name == "laser_calibrated" else name, *(correlation_text(c) for c in cs))
            con.print(a)
        if s.get("disputed"):
            con.print(f"disputed: {s['disputed']} model labels contradict a confident rule or the pair's operation")
        if s.get("llm") and "sent_to_model" in s["llm"]:
            con.print(
                f"pairs sent to the model: {s['llm']['sent_to_model']} of {s['llm']['pairs']} "
                f"({s['llm']['settled_by_rules']} settled by the rules, {s['llm']['unscored']} unscored) in "
                f"{s['llm']['requests']} requests, one utterance each ({s['llm']['requests_if_shared']} if "
                "utterances shared batches)"
            )
    return cap.get().rstrip("\n")


def _beside(s: dict) -> list[str]:
    """The figures beside the rubric score, each under its own name: what is fitted to people, the
    meaning, and case/punctuation (which the rubric score does not count)."""
    lines = []
    if s.get("laser_calibrated_model"):
        value = s.get("laser_calibrated")
        shown = "–" if value is None else f"{value:.4f}"
        source = s.get("calibration", "shipped")
        given = "" if source.startswith("shipped") else f", calibration {source}"
        lines.append(f"laser_calibrated (mean): {shown}, {s['laser_calibrated_model']}{given}")
    if s.get("embedder", "none") == "none":
        lines.append("embedder: none (no SemDist)")
    elif "semdist" in s:
        lines.append(
            f"SemDist (mean over {(s.get('coverage') or {}).get('utterances', s['n'])} utterances, unscored ones "
            f"included): {s['semdist']:.4f} with {embedder_named(s)}; SemDist = 1 - cosine of the sentence embeddings "
            "(0 = same meaning, lower is better), on the texts as given (not after --normalize)"
        )
    if s.get("format_errors") is not None:
        rate = s.get("format_error_rate")
        lines.append(
            f"case/punctuation only: {s['format_errors']} word pairs"
            + ("" if rate is None else f" ({100 * rate:.2f}% of reference words)")
            + ", not in LASER"
        )
    return lines


def render_agreement(r: dict) -> str:
    from rich.table import Table

    ci = lambda c: "" if c[0] is None else f" [{c[0]:.3f}, {c[1]:.3f}]"  # noqa: E731
    con = console()
    with con.capture() as cap:
        con.print(
            f"{r['judge']} judge on {r['n']} labelled pairs ({r['unique_pairs']} unique): accuracy "
            f"{r['accuracy']:.3f}{ci(r['accuracy_ci'])}, Cohen's kappa {r['kappa']:.3f}{ci(r['kappa_ci'])} "
            f"(95% bootstrap CIs over unique pairs)"
            + (f"; {r['unscored']} unscored, left out" if r["unscored"] else "")
        )
        t = Table(title="Accuracy per class (true label)")
        for col in ("class", "correct", "n", "accuracy", "95% CI"):
            t.add_column(col, justify="left" if col == "class" else "right")
        for name, c in r["per_class"].items():
            t.add_row(name, str(c["correct"]), str(c["n"]), f"{c['accuracy']:.3f}", ci(c["ci"]).strip())
        con.print(t)
        labels = r["confusion"]["labels"]
        m = Table(title="Confusion matrix (rows: true, columns: predicted)")
        m.add_column("true \\ predicted")
        for lab in labels:
            m.add_column(lab, justify="right")
        for lab, row in zip(labels, r["confusion"]["rows_true_cols_predicted"]):
            m.add_row(lab, *(str(x) for x in row))
        con.print(m)
    return cap.get().rstrip("\n")


def render_calibration(report: dict) -> str:
    lines = ["tiers' calibration per language (and * for every other):"]
    for lang, cal in report["calibrations"].items():
        lines.append(f"  {lang}: " + ", ".join(f"{k}={v}" for k, v in cal.items()))
    lines.append("laser_calibrated (fitted to people), by embedder:")
    for key, m in report.get("people", {}).items():
        lines.append(
            f"  {key}: clip({m['intercept']:.3f} {m['rubric']:+.3f} sqrt(1 - laser)"
            + (f" {m['meaning']:+.3f} sqrt(semdist)" if key != "none" else "")
            + ", 0, 1)"
        )
    for name, r in report.get("cv", {}).items():
        lines.append(f"{name}, {r['folds']}-fold CV grouped by {r['grouped_by']}, every fit out of fold:")
        for side in ("laser", "laser_calibrated", "laser_calibrated_with_meaning", "semdist", "defaults"):
            if r.get(side):
                lines.append(f"  {side}: " + ", ".join(f"{k} {v:.3f}" for k, v in r[side].items()))
    return "\n".join(lines)
