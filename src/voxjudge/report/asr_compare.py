"""The ``asr compare`` HTML report, a view of a ``Comparison`` and its summary: the measures of
both systems with the deltas, the significance tests, per-utterance WER of A against B, the error
counts side by side, the most frequent confusions, and the inputs and settings."""

from __future__ import annotations

from typing import Any

from voxjudge.report import build_report, charts, figure, row, section, table
from voxjudge.report.document import Report
from voxjudge.summaries import embedder_named, is_figure


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.2f}%"


def compare_report(
    comparison, summary: dict[str, Any], names: tuple[str, str], settings: dict[str, Any], inputs: dict[str, Any]
) -> Report:
    """``comparison``: ``voxjudge.asr.compare.Comparison``; ``summary``: its ``summary()``."""
    a, b = names
    s = summary
    rows = [[k.upper(), _pct(s["a"][k]), _pct(s["b"][k]), f"{100 * s['delta'][k]:+.2f} pts"]
            for k in ("wer", "cer", "mer", "wil", "wip")]  # fmt: skip
    rows += [[k, s["a"][k], s["b"][k], f"{s['a'][k] - s['b'][k]:+d}"]
             for k in ("hits", "substitutions", "deletions", "insertions")]  # fmt: skip
    u = s["utterances"]
    m, bs = s["significance"]["mapsswe"], s["significance"]["paired_bootstrap_wer"]
    p_boot = _bootstrap_p(bs)
    segments = f"{m['segments']} segment{'' if m['segments'] == 1 else 's'}"
    # every segment differing alike leaves the normal approximation no spread: the p-value is the sign test's
    z = f"z = {m['z']:+.3f}" if is_figure(m["z"]) else "every segment differs alike: no z, exact sign test"
    wer_boot = (
        [f"{100 * bs['difference']:+.2f} pts",
         f"{100 * bs['confidence']:.0f}% CI [{100 * bs['ci_low']:+.2f}, {100 * bs['ci_high']:+.2f}]", p_boot]
        if is_figure(bs["difference"])
        else ["none: the references have no words (the WER counts inserted words, as jiwer does: no ratio to "
              "resample)", "–", "–"]
    )  # fmt: skip
    sig = table(
        ["test", "statistic", "interval", "p-value"],
        [
            ["MAPSSWE", f"{segments}, mean difference {m['mean_difference']:+.3f}, {z}", "–", f"{m['p_value']:.4g}"],
            [f"paired bootstrap of the WER difference ({bs['n_resamples']} resamples, seed {bs['seed']})", *wer_boot],
            *_semdist_significance(s),
        ],
    )  # fmt: skip
    rows += _semdist_rows(s)
    ua, ub = comparison.a.per_utterance(), comparison.b.per_utterance()
    per_utt = charts.scatter(
        "wer-per-utterance",
        [x["wer"] for x in ua],
        [y["wer"] for y in ub],
        title=f"WER per utterance: {a} against {b}",
        x_label=f"WER of {a}",
        y_label=f"WER of {b}",
        diagonal=True,
        caption=f"Points above the dashed diagonal: utterances where {b} makes more errors than {a}.",
    )
    kinds = ("substitutions", "deletions", "insertions")
    counts = charts.grouped_bars(
        "error-counts",
        list(kinds),
        {a: [s["a"][k] for k in kinds], b: [s["b"][k] for k in kinds]},
        title="Word errors by kind",
        x_label="",
        y_label="words",
        y_max=None,
    )
    parts = [
        section(
            "Summary",
            table(["measure", a, b, f"delta ({a} - {b})"], rows),
            note=f"corpus level over {u['count']} utterances; {a} better on {u['a_better']}, {b} better on "
            f"{u['b_better']}, ties {u['ties']}" + _semdist_note(s),
        ),
        section("Significance", sig),
        section("Per utterance and by kind", row(figure(per_utt), figure(counts))),
    ]
    for key, name in (("a", a), ("b", b)):
        parts.append(section(f"{name}: most frequent errors", *_confusions(s["confusions"][key])))
    return build_report(
        f"ASR comparison: {a} vs {b}", "asr compare", parts, charts=[per_utt, counts], inputs=inputs, settings=settings
    )


def _semdist_rows(s: dict[str, Any]) -> list[list[Any]]:
    """SemDist beside the error rates, when the comparison had an embedder."""
    if "semdist" not in s:
        return []
    sd = s["semdist"]
    return [[f"SemDist (mean, {embedder_named(sd)})", f"{sd['a']:.4f}", f"{sd['b']:.4f}", f"{sd['delta']:+.4f}"]]


def _semdist_note(s: dict[str, Any]) -> str:
    """SemDist's definition, when the comparison had an embedder."""
    if "semdist" not in s:
        return ""
    return (
        f". SemDist = 1 - cosine of the sentence embeddings ({embedder_named(s['semdist'])}) of reference and "
        "hypothesis, averaged over utterances (0 = same meaning, lower is better), on the texts as given, not "
        "after normalisation"
    )


def _bootstrap_p(bs: dict[str, Any]) -> str:
    from voxjudge.stats.bootstrap import p_text

    return p_text(bs["p_value"], bs["n_resamples"])


def _semdist_significance(s: dict[str, Any]) -> list[list[str]]:
    """The paired bootstrap of the SemDist difference, when the comparison had an embedder."""
    if "significance_semdist" not in s:
        return []
    bs = s["significance_semdist"]["paired_bootstrap_semdist"]
    p_boot = _bootstrap_p(bs)
    return [[f"paired bootstrap of the SemDist difference ({bs['n_resamples']} resamples, seed {bs['seed']})",
             f"{bs['difference']:+.4f}",
             f"{100 * bs['confidence']:.0f}% CI [{bs['ci_low']:+.4f}, {bs['ci_high']:+.4f}]", p_boot]]  # fmt: skip


def _confusions(conf: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The substitution, deletion and insertion tables side by side; a kind with none is a line
    saying so, not an empty table."""
    kinds = (
        ("substitutions", "substitution (ref → hyp)", lambda c: f"{c['ref']} → {c['hyp']}"),
        ("deletions", "deleted", lambda c: c["ref"]),
        ("insertions", "inserted", lambda c: c["hyp"]),
    )
    tables = [table([head, "n"], [[text(c), c["count"]] for c in conf[k]]) for k, head, text in kinds if conf[k]]
    none = [k for k, _, _ in kinds if not conf[k]]
    line = f'<p class="note">no {" and no ".join(none)}</p>' if none else ""
    return [row(*tables), line] if tables else [line]


__all__ = ["compare_report"]
