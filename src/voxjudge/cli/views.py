"""Renderers shared by the commands and ``voxjudge demo``: summaries in, text out.

Each command renders its result with one of these, and the demo calls the same library
functions and the same renderers, so the demo shows exactly what the commands print (a test
holds them to it). Nothing here reads files or computes numbers.
"""

from __future__ import annotations

from voxjudge.cli.common import console, fmt_rate
from voxjudge.plural import counted

_COUNT_KEYS = ("hits", "substitutions", "deletions", "insertions")


def _pct(v) -> str:
    return "–" if v is None else fmt_rate(v)


def _num(v) -> str:
    return "–" if v is None else f"{v:+.3f}"


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
    if speakers:
        st = Table(title="Per speaker (corpus level within each speaker)")
        cols = ["speaker", "utts", "ref words" if words else "ref " + unit_name, *(k.upper() for k in shown)]
        for col in (*cols, "sub", "del", "ins"):
            st.add_column(col, justify="left" if col == "speaker" else "right")
        for name, s in speakers.items():
            prefix = "" if words else "char_"
            st.add_row(
                name,
                str(s["utterances_count"]),
                str(s["ref_words"] if words else s["ref_chars"]),
                *(fmt_rate(s[k]) for k in shown),
                *(str(s[prefix + k]) for k in ("substitutions", "deletions", "insertions")),
            )
        out.append(st.render())
    if utterances:
        ut = Table(title="Per utterance (input order)")
        cols = ["id", "ref words" if words else "ref " + unit_name, *(k.upper() for k in shown)]
        for col in (*cols, "hits", "sub", "del", "ins"):
            ut.add_column(col, justify="left" if col == "id" else "right")
        prefix = "" if words else "char_"
        for u in utterances:
            ut.add_row(
                u["id"],
                str(u["ref_words"] if words else u["ref_chars"]),
                *(fmt_rate(u[k]) for k in shown),
                *(str(u[prefix + k]) for k in _COUNT_KEYS),
            )
        out.append(ut.render())
    out.append(_text_settings(summary))
    return "\n".join(out)


def _text_settings(summary: dict) -> str:
    """The normalisation, word split and CER unit every error rate of a table was computed on."""
    cer_unit = f"  CER unit={summary['cer_unit']}" if "cer_unit" in summary else ""
    return (
        f"normalize={summary['normalize']}  split={summary['split']}{cer_unit}  "
        "(corpus level = errors summed over utterances / reference units)"
    )


def _bootstrap_p(p: float, resamples: int) -> str:
    """A bootstrap p-value of 0 only says that no resample crossed zero: p < 1/B."""
    return f"p < {1 / resamples:.2g}" if p == 0 else f"p={p:.4g}"


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
        con.print(t)
        if "normalize" in s:
            con.print(_text_settings(s))
        u = s["utterances"]
        con.print(f"utterances: {a} better {u['a_better']}, {b} better {u['b_better']}, ties {u['ties']}")
        m = s["significance"]["mapsswe"]
        bs = s["significance"]["paired_bootstrap_wer"]
        con.print(
            f"MAPSSWE: {m['segments']} segments, mean error difference {m['mean_difference']:+.3f}, "
            f"z={m['z']:+.3f}, p={m['p_value']:.4g}"
        )
        con.print(
            f"paired bootstrap of WER difference: {100 * bs['difference']:+.2f} pts, "
            f"{100 * bs['confidence']:.0f}% CI [{100 * bs['ci_low']:+.2f}, {100 * bs['ci_high']:+.2f}], "
            f"{_bootstrap_p(bs['p_value'], bs['n_resamples'])} ({bs['n_resamples']} resamples, seed {bs['seed']})"
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
        scored = f"{c['scored']} of {c['utterances']}" if c.get("unscored") else str(s["n"])
        t = Table(title=f"LASER ({s['judge']}): {scored} utterances scored, {s['ref_words']} reference words")
        for col in ("LASER micro", "LASER macro", "WER (corpus, %)", "no penalty", "minor", "major", "unscored"):
            t.add_column(col, justify="right")
        f = lambda v: "–" if v is None else f"{v:.4f}"  # noqa: E731
        t.add_row(
            f(s["laser_micro"]),
            f(s["laser_macro"]),
            _pct(s["wer"]),
            str(s["labels"]["no_penalty"]),
            str(s["labels"]["minor"]),
            str(s["labels"]["major"]),
            str(s["n_unscored"]),
        )
        con.print(t)
        con.print(
            f"WER: corpus level ({s['wer_errors']} word edits / {s['wer_ref_words']} reference words) on "
            f"{s['wer_tokens']}"
        )
        e = Table(title="Error types")
        for col in ("type", "count", "penalty"):
            e.add_column(col, justify="left" if col == "type" else "right")
        for name, cell in s["error_types"].items():
            e.add_row(name, str(cell["count"]), f"{cell['penalty']:g}")
        con.print(e)
        if s.get("agreement"):
            from voxjudge.report.html import correlation_text

            level = 100 * (s.get("bootstrap") or {}).get("confidence", 0.95)
            a = Table(title=f"Agreement with human scores ({level:g}% bootstrap CI)")
            for col in ("metric", "pearson", "spearman", "kendall"):
                a.add_column(col, justify="left" if col == "metric" else "right")
            for name, cs in s["agreement"].items():
                a.add_row(name, *(correlation_text(c) for c in cs))
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


def render_breaks_summary(s: dict) -> str:
    """Every metric, multi-reference beside its single-reference baseline, one row each."""
    from voxjudge.cli.tables import Table

    def corr(c: dict | None) -> str:
        return f"{c['estimate']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]" if c else "–"

    def rate(value: float | None) -> str:
        return "–" if value is None else fmt_rate(value)

    con = console()
    with con.capture() as cap:
        cover = s.get("coverage") or {}
        from voxjudge.breaks.summary import coverage_lines

        for line in coverage_lines(cover):
            con.print(line, markup=False)
        partial = "PARTIAL, " if cover.get("partial") else ""
        t = Table(
            title=f"LMRE ({partial}{s['n']} of {cover.get('hypotheses', s['n'])} hypotheses scored; the single "
            f"reference covers {s['single_n']})"
        )
        level = f"{100 * (s.get('bootstrap') or {}).get('confidence', 0.95):g}% CI"
        if cover.get("human") and cover["human"]["partial"]:
            level += f", n={cover['rated']}"  # the correlations cover fewer hypotheses than the acceptance
        for col in ("metric", "references", "n", "theta", "acceptance", f"Pearson ({level})", f"Spearman ({level})"):
            t.add_column(col, justify="left" if col in ("metric", "references") else "right")
        for m in s["metrics"].values():
            t.add_row(
                m["similarity"], "multi", str(s["n"]), f"> {m['theta']:g}", rate(m["acceptance"]),
                corr(m["pearson"]), corr(m["spearman"]),
            )  # fmt: skip
            t.add_row(
                "", "single", str(s["single_n"]), "", rate(m["single_acceptance"]),
                corr(m["single_pearson"]), corr(m["single_spearman"]),
            )  # fmt: skip
        con.print(t)
        first = next(iter(s["metrics"].values()), None)
        if first and first.get("acceptance_by_group"):
            g = Table(title="Acceptance by human score (multi / single reference)")
            for col in ("human score", "n", "n single", *s["metrics"]):
                g.add_column(col, justify="right")
            by_metric = [m["acceptance_by_group"] for m in s["metrics"].values()]
            for k, row in enumerate(first["acceptance_by_group"]):
                cells = [f"{rate(rows[k]['rate'])} / {rate(rows[k]['single_rate'])}" for rows in by_metric]
                g.add_row(str(row["group"]), str(row["n"]), str(row["single_n"]), *cells)
            con.print(g)
    return cap.get().rstrip("\n")


def render_pairwise_analysis(report: dict, source: str = "the judgments") -> str:
    from voxjudge.cli.tables import Table
    from voxjudge.pairwise.result import coverage_lines

    ci = report.get("accuracy_ci") or {"low": None, "high": None, "confidence": None}
    con = console()
    with con.capture() as cap:
        lines = coverage_lines(report, source)
        for line in lines:
            con.print(line, markup=False)
        t = Table(
            title=f"{'PARTIAL: ' if lines else ''}{report['n_pairs']} pairs, {report['n_judgments']} judgments, "
            f"{report['n_labelled']} with human labels"
        )
        t.add_column("measure")
        t.add_column("value", justify="right")
        rows = [
            ("accuracy (aggregated, ties are errors)", _pct(report["accuracy"])),
            (f"accuracy, {_level(ci)} bootstrap CI over pairs", f"[{_pct(ci['low'])}, {_pct(ci['high'])}]"),
            ("accuracy, one call in presented order", _pct(report["single_sample_accuracy"])),
            ("agreement on confident pair-dimensions", _pct(report["confident_agreement"])),
            ("pairs with non-unanimous core verdicts", str(report["non_unanimous_pairs"])),
            ("Δpos (second slot - first slot)", _num(report["delta_pos"])),
            ("judgments favouring the second slot", _pct(report["second_slot_rate"])),
            ("t statistic (pair-level slot difference)", _num(report["t_stat"])),
            ("abstained (judgment, dimension) cells", str(report["n_abstained"])),
        ]
        for r in rows:
            t.add_row(*r)
        con.print(t)
        d = Table(title="Accuracy by dimension")
        for dim in report["accuracy_by_dimension"]:
            d.add_column(dim, justify="right")
        d.add_row(*(_pct(v) for v in report["accuracy_by_dimension"].values()))
        con.print(d)
        if report.get("weight_selection"):
            w = report["weight_selection"]
            con.print(
                f"selected weights {w['weights']}: validation {_pct(w['validation_accuracy'])}, "
                f"test {_pct(w['test_accuracy'])} (uniform: {_pct(w['test_accuracy_uniform'])})"
            )
    return cap.get().rstrip("\n")


def _level(ci: dict) -> str:
    return "–" if ci.get("confidence") is None else f"{100 * ci['confidence']:g}%"


def render_comparison(result) -> str:
    """``pairwise compare``: coverage of each judgments file first, then the paired bootstrap."""
    from voxjudge.pairwise.result import coverage_lines

    res = result.summary
    lines = []
    for name, key in (("judgments_a", "coverage_a"), ("judgments_b", "coverage_b")):
        lines += coverage_lines(res[key], result.settings[name])
    lines.append(
        f"{counted(res['n_pairs'], 'pair')}: accuracy A {_pct(res['accuracy_a'])}, B {_pct(res['accuracy_b'])}; "
        f"difference {100 * res['difference']:+.2f} pts, "
        f"{100 * res['confidence']:g}% CI [{100 * res['ci_low']:+.2f}, {100 * res['ci_high']:+.2f}] "
        f"({res['n_resamples']} paired resamples of pair indices, seed {res['seed']})"
    )
    return "\n".join(lines)


def render_selection(result) -> str:
    """``pairwise select``: failed judgments first, then one line per set and Hit@k."""
    from voxjudge.report.pairwise import failure_lines

    summary = result.summary
    lines = failure_lines(summary) + [render_winner(r) for r in summary["selections"]]
    if summary["n_rated"]:
        lines.append(render_hit_rates(summary))
    return "\n".join(lines)


def render_winner(row: dict) -> str:
    """One line of ``pairwise select``: the winning candidate of a set."""
    return f"{row['set_id']}: winner {row['winner']} ({row['winner_path']}), wins {row['wins']}"


def render_hit_rates(summary: dict) -> str:
    """Hit@k of ``pairwise select`` against the human top-k, beside random choice, for each k that
    some set labels k candidates for (with the number of such sets when not all are)."""
    parts = []
    for k in (1, 2, 3):
        if summary.get(f"hit@{k}") is None:
            continue
        n = summary.get(f"n_rated@{k}", summary["n_rated"])
        over = "" if n == summary["n_sets"] else f", over {counted(n, 'set')} with a top {k}"
        parts.append(f"Hit@{k} {_pct(summary[f'hit@{k}'])} (random {_pct(summary[f'random@{k}'])}{over})")
    missing = [k for k in (1, 2, 3) if summary.get(f"hit@{k}") is None]
    if missing and parts:
        parts.append(f"(no Hit@{'/'.join(map(str, missing))}: no set labels a top {missing[0]})")
    return " ".join(parts)


def render_join_coverage(cov: dict, what: str = "items", covered: str = "every number below covers") -> str:
    """The coverage line of a join (``voxjudge.io.join``), or "" when both sides matched fully.
    Printed before any number, so a partial join is never read as the whole."""
    from voxjudge.io.join import coverage_text

    return coverage_text(cov, what, covered)


def render_stats_agree(result) -> str:
    """``stats agree``: coverage first when partial, then the correlations."""
    from voxjudge.cli.tables import Table

    s = result.settings
    level = f"{100 * s['bootstrap']['confidence']:g}%"
    t = Table(title=f"Agreement of {s['metric']} with {s['human']} on {result.n} items")
    for col in ("method", "estimate", f"{level} CI", "p-value"):
        t.add_column(col, justify="left" if col == "method" else "right")
    for r in result.correlations:
        t.add_row(r.method, f"{r.estimate:+.4f}", f"[{r.ci_low:+.4f}, {r.ci_high:+.4f}]", f"{r.p_value:.3g}")
    con = console()
    with con.capture() as cap:
        note = render_join_coverage(result.coverage)
        if note:
            con.print(note, markup=False)
        con.print(t)
        boot = s["bootstrap"]
        con.print(f"percentile bootstrap, {boot['resamples']} resamples, seed {boot['seed']}")
    return cap.get().rstrip("\n")


def render_judge_card(s: dict) -> str:
    """``asr judge-card``: one row per metric, preference agreement per certitude and correlation with
    ratings side by side; coverage comes before the figures, partial rows are marked."""
    from voxjudge.cli.tables import Table
    from voxjudge.report.html import correlation_text

    prefs, ratings = s.get("preferences"), s.get("ratings")
    names = [m["name"] for m in s["metrics"]]
    partial = {n for n in names if s["coverage"][n]["scored"] < s["coverage"][n]["total"]}
    level = f"{100 * s['bootstrap']['confidence']:g}%"
    lines = []
    for n in sorted(partial, key=names.index):
        c = s["coverage"][n]
        lines.append(
            f"partial: {n} scored {c['scored']} of {c['total']} hypotheses ({c['total'] - c['scored']} unscored); "
            "its figures (*) are over what it scored only"
        )

    def pct(cell: dict, mark: str) -> str:
        if cell["agreement"] is None:
            return "–"
        ci = "" if cell["ci_low"] is None else f" [{100 * cell['ci_low']:.1f}, {100 * cell['ci_high']:.1f}]"
        return f"{100 * cell['agreement']:.1f}{mark}{ci}"

    method = ratings["methods"][0] if ratings else "pearson"

    def corr(cell: dict, mark: str) -> str:
        return correlation_text(cell[method]) + mark if method in cell else correlation_text(cell)

    subsets = list(ratings["by_subset"]) if ratings else []
    t = Table(title=f"Judge card: agreement with people ({level} bootstrap CI)")
    t.add_column("metric")
    t.add_column("coverage", justify="right")
    if prefs:
        for name, n in prefs["levels"].items():
            t.add_column(f"prefer {name} (n={n})", justify="right")
    if ratings:
        t.add_column(f"ratings {method.title()} (n={ratings['by_subset']['all']['items']})", justify="right")
    for n in names:
        c = s["coverage"][n]
        mark = "*" if n in partial else ""
        row = [n, fmt_cover(c["scored"], c["total"])]
        if prefs:
            row += [pct(cell, mark) for cell in prefs["by_metric"][n]]
        if ratings:
            row.append(corr(ratings["by_subset"]["all"]["by_metric"][n], mark))
        t.add_row(*row)
    raters = (ratings or {}).get("by_subset", {}).get("all", {}).get("raters")
    if raters and "ceiling" in raters:
        t.add_row("raters' ceiling", "", *([""] * len(prefs["levels"]) if prefs else []), f"{raters['ceiling']:.3f}")
    join = (ratings or {}).get("join")
    if join and (cover := render_join_coverage(join, "hypotheses", "the ratings figures cover")):
        lines.insert(0, cover)
    con = console()
    with con.capture() as cap:
        for line in lines:
            con.print(line)
        con.print(t)
        if len(subsets) > 1:
            by = Table(title=f"Ratings by language: {method.title()} ({level} bootstrap CI)")
            by.add_column("metric")
            for sub in subsets[1:]:
                by.add_column(f"{sub} (n={ratings['by_subset'][sub]['items']})", justify="right")
            for n in names:
                mark = "*" if n in partial else ""
                by.add_row(n, *(corr(ratings["by_subset"][sub]["by_metric"][n], mark) for sub in subsets[1:]))
            ceilings = [ratings["by_subset"][sub].get("raters") or {} for sub in subsets[1:]]
            if any("ceiling" in c for c in ceilings):
                by.add_row("raters' ceiling", *(f"{c['ceiling']:.3f}" if "ceiling" in c else "" for c in ceilings))
            con.print(by)
        diffs = _card_differences(prefs, ratings, method, subsets, level)
        for table in diffs:
            con.print(table)
        if prefs:
            splits = prefs["human_ties"]
            con.print(
                f"preferences: {prefs['source'] or 'given'}, {prefs['triplets']} triplets of {prefs['groups']} "
                f"references, {prefs['votes']} votes. prefer = % of triplets where the metric prefers the "
                "hypothesis most people chose, among those whose winning side got 100% of the votes "
                "(unanimous), at least 70%, or any share (all); a tie counts as disagreement (the metric "
                f"scores both alike, or people split evenly: {splits} triplet{'' if splits == 1 else 's'} here)"
            )
        if ratings:
            note = f"ratings: {ratings['source'] or 'given'}, {ratings['items']} rated hypotheses"
            if method != "pearson" or len(ratings["methods"]) > 1:
                note += f" ({', '.join(ratings['methods'])} in --json)"
            if raters and "ceiling" in raters:
                note += (
                    f"; raters' ceiling (for Pearson) = sqrt(split-half reliability) ({raters['raters_per_item'][1]} "
                    f"raters, halves agree at r = {raters['half_r']:.3f} over {raters['splits']} splits)"
                )
            con.print(note + f"; CIs resample whole utterances ({ratings['by_subset']['all']['groups']} references)")
        if diffs:
            con.print(
                "differences: the row's metric minus the other, on the items both scored, with a paired CI from "
                "the same resamples; one that excludes 0 (marked !) says the row's metric really agrees more "
                "(or less) with people here"
            )
        con.print(f"WER and CER after '{s['normalization']}' normalization; LASER = 1 - penalty / reference words")
    return cap.get().rstrip("\n")


def _card_differences(prefs: dict | None, ratings: dict | None, method: str, subsets: list[str], level: str):
    """The judge card's paired differences, one row per pair of metrics: a table with a column per
    preference level, one with a column per ratings subset (the headline correlation)."""
    from voxjudge.cli.tables import Table

    def text(d: dict, scale: float, digits: int) -> str:
        if d["difference"] is None:
            return "–"
        low, high = d["ci_low"], d["ci_high"]
        sure = low is not None and (low > 0 or high < 0)
        ci = "" if low is None else f" [{scale * low:+.{digits}f}, {scale * high:+.{digits}f}]"
        return f"{scale * d['difference']:+.{digits}f}{ci}{' !' if sure else ''}"

    parts: list[tuple[str, dict[str, list[dict]], float, int]] = []
    if prefs and prefs.get("differences"):
        parts.append(("preferences, agreement in points", {"prefer": prefs["differences"]}, 100, 1))
    if ratings:
        by = {
            sub: [d for d in ratings["by_subset"][sub].get("differences", []) if d["method"] == method]
            for sub in subsets
        }
        if any(by.values()):
            parts.append((f"ratings, {method.title()}", by, 1, 3))
    tables = []
    for title, by_column, scale, digits in parts:
        cells: dict[tuple[str, str], dict[str, str]] = {}
        columns: list[str] = []
        for name, found in by_column.items():
            for d in found:
                column = f"{name} {d['level']}" if "level" in d else name
                columns += [column] if column not in columns else []
                cells.setdefault((d["a"], d["b"]), {})[column] = text(d, scale, digits)
        t = Table(title=f"Differences, {title} ({level} paired bootstrap CI)")
        t.add_column("metric pair")
        for column in columns:
            t.add_column(column, justify="right")
        for (a, b), row in cells.items():
            t.add_row(f"{a} - {b}", *(row.get(c, "–") for c in columns))
        tables.append(t)
    return tables


def fmt_cover(scored: int, total: int) -> str:
    return "100%" if scored == total else f"{100 * scored / total:.1f}%"


def render_written(report_path: str | None, figures_dir: str | None, report) -> str:
    """Where ``--report`` and ``--figures`` went."""
    if report is None:
        return ""
    parts = []
    if report_path:
        parts.append(f"report -> {report_path}")
    if figures_dir:
        n = len(report.charts)
        parts.append(f"{n} figure{'' if n == 1 else 's'} (PDF and PNG) -> {figures_dir}")
    return "; ".join(parts)


def render_studio_export(s: dict, out: str, systems: str | None = None) -> str:
    """``studio export``: how much of the study the file covers (partial mid-study), who was dropped, MOS."""
    lines = [
        f"wrote {s['written']} of {s['items']} items to {out} ({s['answered']} of {s['items']} items had answers"
        + (
            "; the study is not complete: evaluators read it as partial human data)"
            if s["answered"] < s["items"]
            else ")"
        )
    ]
    if s["unresolved"]:
        lines.append(f"{len(s['unresolved'])} without agreement: {', '.join(s['unresolved'][:5])}")
    for name, reason in (s.get("dropped") or {}).items():
        lines.append(f"dropped rater {name}: {reason}")
    if s.get("systems"):
        lines.append("MOS per system (95% CI, ratings):")
        for name, m in s["systems"].items():
            ci = "" if m["ci_low"] is None else f" [{m['ci_low']:.2f}, {m['ci_high']:.2f}]"
            lines.append(f"  {name or '(none)'}: {m['mos']:.2f}{ci} n={m['n']}")
        if systems:
            lines.append(f"per-system table written to {systems}")
    return "\n".join(lines)
