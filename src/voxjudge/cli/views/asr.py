"""``asr metrics`` and ``asr compare``: the classic error rates, their counts and settings."""

from __future__ import annotations

from voxjudge.cli.common import console, fmt_rate
from voxjudge.plural import counted
from voxjudge.summaries import embedder_named, is_figure

_COUNT_KEYS = ("hits", "substitutions", "deletions", "insertions")


def render_metrics(summary, result, unit, ref_path, hyp_path, utterances, speakers) -> str:
    """The ``asr metrics`` tables: the rates of the units counted, and ``unit``'s counts."""
    from voxjudge.cli.tables import Table

    counts = result.corpus_word if unit == "word" else result.corpus_char
    unit_name = {"word": "words", "char": "chars", "grapheme": "graphemes"}[unit]
    rates = [k for k in ("wer", "cer", "mer", "wil", "wip") if k in summary]
    n = counted(summary["utterances_count"], "utterance")
    table = Table(title=f"Corpus level: {n} ({ref_path} vs {hyp_path})")
    for col in rates:
        table.add_column(col.upper(), justify="right")
    for col in ("ref " + unit_name, "hits", "sub", "del", "ins"):
        table.add_column(col, justify="right")
    table.add_row(
        *(fmt_rate(summary[k]) for k in rates),
        *(str(v) for v in (counts.ref_len, counts.hits, counts.substitutions, counts.deletions, counts.insertions)),
    )
    # Plain text, no rich: the tables are laid out already, and importing rich cost more than
    # rendering (asr metrics is timed as a whole process).
    out = [table.render()]
    words = "wer" in summary
    shown = [k for k in ("wer", "cer") if k in summary]
    semdist = "semdist" in summary
    if speakers:
        st = Table(title="Per speaker (corpus level within each speaker)")
        cols = ["speaker", "utts", "ref words" if words else "ref " + unit_name, *(k.upper() for k in shown)]
        for col in (*cols, "sub", "del", "ins", *(("SemDist",) if semdist else ())):
            st.add_column(col, justify="left" if col == "speaker" else "right")
        for name, s in speakers.items():
            prefix = "" if words else "char_"
            st.add_row(
                name,
                str(s["utterances_count"]),
                str(s["ref_words"] if words else s["ref_chars"]),
                *(fmt_rate(s[k]) for k in shown),
                *(str(s[prefix + k]) for k in ("substitutions", "deletions", "insertions")),
                *((_distance(s["semdist"]),) if semdist else ()),
            )
        out.append(st.render())
    if utterances:
        ut = Table(title="Per utterance (input order)")
        cols = ["id", "ref words" if words else "ref " + unit_name, *(k.upper() for k in shown)]
        for col in (*cols, "hits", "sub", "del", "ins"):
            ut.add_column(col, justify="left" if col == "id" else "right")
        if semdist:
            ut.add_column("SemDist", justify="right")
        prefix = "" if words else "char_"
        for u in utterances:
            ut.add_row(
                u["id"],
                str(u["ref_words"] if words else u["ref_chars"]),
                *(fmt_rate(u[k]) for k in shown),
                *(str(u[prefix + k]) for k in _COUNT_KEYS),
                *((_distance(u["semdist"]),) if semdist else ()),
            )
        out.append(ut.render())
    if "semdist" in summary:
        out.append(_semdist_line(summary["semdist"], embedder_named(summary)))
    out.append(_text_settings(summary))
    return "\n".join(out)


SEMDIST_DEFINED = (
    "SemDist = 1 - cosine of the sentence embeddings of reference and hypothesis (0 = same meaning, lower is "
    "better), on the texts as given, not after --normalize"
)


def _distance(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _semdist_line(value: float | None, embedder: str) -> str:
    return f"SemDist (mean over utterances): {_distance(value)} with {embedder}; {SEMDIST_DEFINED}"


def _text_settings(summary: dict) -> str:
    """The normalisation, word split and CER unit every error rate of a table was computed on."""
    cer_unit = f"  CER unit={summary['cer_unit']}" if "cer_unit" in summary else ""
    return (
        f"normalize={summary['normalize']}  split={summary['split']}{cer_unit}  "
        "(corpus level = errors summed over utterances / reference units)"
    )


def _bootstrap_p(p: float, resamples: int) -> str:
    from voxjudge.stats.bootstrap import p_text

    return p_text(p, resamples, equals="=")


def _mapsswe_line(m: dict) -> str:
    """MAPSSWE's figures. When every segment differs by the same amount the normal approximation has
    no spread to divide by (z is infinite, None in --json): the p-value is then the exact sign test's,
    and the line says so instead of printing z=-inf beside p=1."""
    head = f"MAPSSWE: {counted(m['segments'], 'segment')}, mean error difference {m['mean_difference']:+.3f}"
    if is_figure(m["z"]):
        return f"{head}, z={m['z']:+.3f}, p={m['p_value']:.4g}"
    return (
        f"{head}, every segment differs alike (no spread: no z); exact sign test over "
        f"{counted(m['segments'], 'segment')}: p={m['p_value']:.4g}"
    )


def render_compare(s: dict, names: list[str]) -> str:
    from voxjudge.cli.tables import Table

    a, b = names
    con = console()
    with con.capture() as cap:
        t = Table(title=f"{a} vs {b} on {counted(s['utterances']['count'], 'utterance')} (delta = {a} - {b})")
        for col in ("measure", a, b, "delta"):
            t.add_column(col, justify="left" if col == "measure" else "right")
        for k in ("wer", "cer", "mer", "wil", "wip"):
            t.add_row(k.upper(), fmt_rate(s["a"][k]), fmt_rate(s["b"][k]), f"{100 * s['delta'][k]:+.2f} pts")
        for k in _COUNT_KEYS:
            t.add_row(k, str(s["a"][k]), str(s["b"][k]), f"{s['a'][k] - s['b'][k]:+d}")
        if "semdist" in s:
            sd = s["semdist"]
            t.add_row("SemDist (mean)", f"{sd['a']:.4f}", f"{sd['b']:.4f}", f"{sd['delta']:+.4f}")
        con.print(t)
        if "semdist" in s:
            con.print(f"{SEMDIST_DEFINED}; mean over utterances, with {embedder_named(s['semdist'])}")
        if "normalize" in s:
            con.print(_text_settings(s))
        u = s["utterances"]
        con.print(f"utterances: {a} better {u['a_better']}, {b} better {u['b_better']}, ties {u['ties']}")
        m = s["significance"]["mapsswe"]
        bs = s["significance"]["paired_bootstrap_wer"]
        if "caution" in s["significance"]:
            con.print(f"caution: {s['significance']['caution']}")
        con.print(_mapsswe_line(m))
        if is_figure(bs["difference"]):
            con.print(
                f"paired bootstrap of WER difference: {100 * bs['difference']:+.2f} pts, "
                f"{100 * bs['confidence']:.0f}% CI [{100 * bs['ci_low']:+.2f}, {100 * bs['ci_high']:+.2f}], "
                f"{_bootstrap_p(bs['p_value'], bs['n_resamples'])} ({counted(bs['n_resamples'], 'resample')}, "
                f"seed {bs['seed']})"
            )
        else:  # a corpus WER is errors / reference words: with no reference word there is none to resample
            con.print(
                "paired bootstrap of WER difference: none (the references have no words: the WER above counts "
                "inserted words, as jiwer does, a count with no ratio to resample)"
            )
        if "semdist" in s:
            bs = s["significance_semdist"]["paired_bootstrap_semdist"]
            con.print(
                f"paired bootstrap of SemDist difference ({embedder_named(s['semdist'])}): {bs['difference']:+.4f}, "
                f"{100 * bs['confidence']:.0f}% CI [{bs['ci_low']:+.4f}, {bs['ci_high']:+.4f}], "
                f"{_bootstrap_p(bs['p_value'], bs['n_resamples'])}"
            )
        for key, name in (("a", a), ("b", b)):
            conf = s["confusions"][key]
            ct = Table(title=f"{name}: most frequent errors")
            ct.add_column("substitution (ref → hyp)")
            ct.add_column("n", justify="right")
            ct.add_column("deleted")
            ct.add_column("n", justify="right")
            ct.add_column("inserted")
            ct.add_column("n", justify="right")
            rows = max(len(conf["substitutions"]), len(conf["deletions"]), len(conf["insertions"]))
            for i in range(rows):
                sub = conf["substitutions"][i] if i < len(conf["substitutions"]) else None
                de = conf["deletions"][i] if i < len(conf["deletions"]) else None
                ins = conf["insertions"][i] if i < len(conf["insertions"]) else None
                ct.add_row(
                    f"{sub['ref']} → {sub['hyp']}" if sub else "",
                    str(sub["count"]) if sub else "",
                    de["ref"] if de else "",
                    str(de["count"]) if de else "",
                    ins["hyp"] if ins else "",
                    str(ins["count"]) if ins else "",
                )
            con.print(ct)
    return cap.get().rstrip("\n")
