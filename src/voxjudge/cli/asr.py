"""``voxjudge asr metrics | align | compare``."""

from __future__ import annotations

import argparse

from voxjudge.cli.common import (
    add_bootstrap_options,
    add_input_options,
    add_text_options,
    check_bootstrap_options,
    console,
    fmt_rate,
    normalizer,
    print_json,
    progress_bar,
    read_file,
    read_pair,
    speaker_labels,
    use_color,
    write_out,
)

_COUNT_KEYS = ("hits", "substitutions", "deletions", "insertions")


def register(groups) -> None:
    asr = groups.add_parser("asr", help="classic ASR metrics, alignments, system comparison")
    cmds = asr.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser(
        "metrics",
        help="WER, CER, MER, WIL, WIP with hit/substitution/deletion/insertion counts",
        description="Corpus-level error rates (errors summed over all utterances, then divided), "
        "identical to jiwer 4.0; per-utterance figures with --per-utterance.",
    )
    _add_ref_hyp(p)
    p.add_argument(
        "--unit",
        default="word",
        choices=["word", "char", "grapheme"],
        help="unit of the count columns shown in the table; CER counts code points (char, jiwer-compatible) "
        "unless 'grapheme' (extended grapheme clusters) is chosen",
    )
    p.add_argument("--per-utterance", action="store_true", help="also report every utterance, in input order")
    p.add_argument("--by-speaker", action="store_true", help="add a per-speaker summary (speaker column or id prefix)")
    p.add_argument("--speaker-sep", default="-", help="id prefix separator for --by-speaker (default: '-')")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--out", metavar="FILE", help="write per-utterance records to FILE (.jsonl, .csv, .tsv, .json)")
    p.set_defaults(func=cmd_metrics)

    p = cmds.add_parser("align", help="show word (or character) alignments, sclite style")
    _add_ref_hyp(p)
    p.add_argument(
        "--unit", default="word", choices=["word", "char", "grapheme"], help="alignment unit (default: word)"
    )
    p.add_argument("--errors-only", action="store_true", help="skip utterances without errors")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="show at most N utterances")
    p.add_argument("--json", action="store_true", help="print alignments as JSON")
    p.add_argument("--out", metavar="FILE", help="write aligned word pairs (id, ref, hyp, op) to FILE")
    p.set_defaults(func=cmd_align)

    p = cmds.add_parser(
        "compare",
        help="two systems on the same references: deltas, confusion pairs, significance",
        description="Differences are A minus B. Significance: sclite's matched-pairs sentence-segment "
        "word error test (MAPSSWE) and a paired bootstrap of the corpus WER difference.",
    )
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp-a", required=True, help="hypotheses of system A")
    p.add_argument("--hyp-b", required=True, help="hypotheses of system B")
    p.add_argument("--names", default="A,B", help="display names of the systems, comma separated (default: A,B)")
    add_input_options(p)
    add_text_options(p)
    p.add_argument("--unit", default="char", choices=["char", "grapheme"], help="CER unit (default: char = code point)")
    add_bootstrap_options(p)
    p.add_argument("--top", type=int, default=10, help="confusion pairs to list per system (default: 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=cmd_compare)

    from voxjudge.cli import laser

    laser.register(cmds)


def _add_ref_hyp(p) -> None:
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp", required=True, help="hypothesis transcripts")
    add_input_options(p)
    add_text_options(p)


def cmd_metrics(args: argparse.Namespace) -> int:
    from voxjudge.asr.measures import compute_metrics

    paired = read_pair(args, args.ref, args.hyp)
    char_unit = "grapheme" if args.unit == "grapheme" else "char"
    with progress_bar("scoring") as progress:
        result = compute_metrics(
            paired.references,
            paired.hypotheses,
            paired.ids,
            normalizer=normalizer(args),
            split=args.split,
            char_unit=char_unit,
            progress=progress,
        )
    summary = result.summary()
    utterances = result.per_utterance()
    speakers = None
    if args.by_speaker:
        speakers = result.by_group(speaker_labels(paired.ids, paired.speakers, args.speaker_sep))
    write_out(args.out, utterances)
    if args.json:
        out = dict(summary)
        if speakers is not None:
            out["speakers"] = [{"speaker": k, **v} for k, v in speakers.items()]
        if args.per_utterance:
            out["utterances"] = utterances
        print_json(out)
        return 0
    print(
        render_metrics(
            summary, result, args.unit, args.ref, args.hyp, utterances if args.per_utterance else None, speakers
        )
    )
    return 0


def render_metrics(summary, result, unit, ref_path, hyp_path, utterances, speakers) -> str:
    from rich.table import Table

    counts = result.corpus_word if unit == "word" else result.corpus_char
    unit_name = {"word": "words", "char": "chars", "grapheme": "graphemes"}[unit]
    table = Table(title=f"Corpus level: {summary['utterances_count']} utterances ({ref_path} vs {hyp_path})")
    for col in ("WER", "CER", "MER", "WIL", "WIP"):
        table.add_column(col, justify="right")
    for col in ("ref " + unit_name, "hits", "sub", "del", "ins"):
        table.add_column(col, justify="right")
    table.add_row(
        *(fmt_rate(summary[k]) for k in ("wer", "cer", "mer", "wil", "wip")),
        *(str(v) for v in (counts.ref_len, counts.hits, counts.substitutions, counts.deletions, counts.insertions)),
    )
    con = console()
    with con.capture() as cap:
        con.print(table)
        if speakers:
            st = Table(title="Per speaker (corpus level within each speaker)")
            for col in ("speaker", "utts", "ref words", "WER", "CER", "sub", "del", "ins"):
                st.add_column(col, justify="left" if col == "speaker" else "right")
            for name, s in speakers.items():
                st.add_row(
                    name,
                    str(s["utterances_count"]),
                    str(s["ref_words"]),
                    fmt_rate(s["wer"]),
                    fmt_rate(s["cer"]),
                    str(s["substitutions"]),
                    str(s["deletions"]),
                    str(s["insertions"]),
                )
            con.print(st)
        if utterances:
            ut = Table(title="Per utterance (input order)")
            for col in ("id", "ref words", "WER", "CER", "hits", "sub", "del", "ins"):
                ut.add_column(col, justify="left" if col == "id" else "right")
            for u in utterances:
                ut.add_row(
                    u["id"],
                    str(u["ref_words"]),
                    fmt_rate(u["wer"]),
                    fmt_rate(u["cer"]),
                    *(str(u[k]) for k in _COUNT_KEYS),
                )
            con.print(ut)
        con.print(
            f"normalize={summary['normalize']}  split={summary['split']}  CER unit={summary['cer_unit']}  "
            "(corpus level = errors summed over utterances / reference units)"
        )
    return cap.get().rstrip("\n")


def cmd_align(args: argparse.Namespace) -> int:
    from voxjudge.asr.align import align
    from voxjudge.asr.display import render_alignment

    paired = read_pair(args, args.ref, args.hyp)
    norm = normalizer(args)
    shown = []
    pairs_out = []
    for uid, ref, hyp in zip(paired.ids, paired.references, paired.hypotheses):
        a = align(ref, hyp, unit=args.unit, split=args.split, normalizer=norm)
        if args.out:
            pairs_out += [{"id": uid, "ref": p.ref, "hyp": p.hyp, "op": p.op} for p in a.pairs()]
        if args.errors_only and a.counts.errors == 0:
            continue
        if args.limit is None or len(shown) < args.limit:
            shown.append((uid, a))
    write_out(args.out, pairs_out)
    if args.json:
        print_json(
            [
                {
                    "id": uid,
                    "ref": a.ref,
                    "hyp": a.hyp,
                    **a.counts.counts(),
                    "error_rate": a.counts.error_rate,
                    "chunks": [vars(c) for c in a.chunks],
                }
                for uid, a in shown
            ]
        )
        return 0
    color = use_color()
    print("\n\n".join(render_alignment(a, uid, color=color) for uid, a in shown))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from voxjudge.asr.compare import compare_systems
    from voxjudge.errors import InputError
    from voxjudge.io import pair_texts

    names = [n.strip() for n in args.names.split(",")]
    if len(names) != 2 or not all(names):
        raise InputError(f"--names needs two comma-separated names, got {args.names!r}")
    check_bootstrap_options(args)
    ref = read_file(args, args.ref)
    pa = pair_texts(ref, read_file(args, args.hyp_a))
    pb = pair_texts(ref, read_file(args, args.hyp_b))
    comparison = compare_systems(
        pa.references,
        pa.hypotheses,
        pb.hypotheses,
        pa.ids,
        normalizer=normalizer(args),
        split=args.split,
        char_unit=args.unit,
        n_resamples=args.resamples,
        confidence=args.confidence,
        seed=args.bootstrap_seed,
        top=args.top,
    )
    summary = comparison.summary()
    summary["names"] = {"a": names[0], "b": names[1]}
    if args.json:
        print_json(summary)
        return 0
    print(render_compare(summary, names))
    return 0


def render_compare(s: dict, names: list[str]) -> str:
    from rich.table import Table

    a, b = names
    con = console()
    with con.capture() as cap:
        t = Table(title=f"{a} vs {b} on {s['utterances']['count']} utterances (delta = {a} - {b})")
        for col in ("measure", a, b, "delta"):
            t.add_column(col, justify="left" if col == "measure" else "right")
        for k in ("wer", "cer", "mer", "wil", "wip"):
            t.add_row(k.upper(), fmt_rate(s["a"][k]), fmt_rate(s["b"][k]), f"{100 * s['delta'][k]:+.2f} pts")
        for k in _COUNT_KEYS:
            t.add_row(k, str(s["a"][k]), str(s["b"][k]), f"{s['a'][k] - s['b'][k]:+d}")
        con.print(t)
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
            f"p={bs['p_value']:.4g} ({bs['n_resamples']} resamples, seed {bs['seed']})"
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
