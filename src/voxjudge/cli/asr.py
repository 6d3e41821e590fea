"""``voxjudge asr metrics | align | compare``."""

from __future__ import annotations

import argparse

from voxjudge.cli.common import (
    add_align_limit,
    add_bootstrap_options,
    add_input_options,
    add_text_options,
    align_limit,
    case_punct_counts,
    check_bootstrap_options,
    check_outputs,
    normalizer,
    print_json,
    progress_bar,
    read_file,
    read_pair,
    say_note,
    speaker_labels,
    use_color,
    warn_leading_ids,
    write_all,
    write_out,
)
from voxjudge.cli.embedder_options import (
    add_embedder_limits,
    add_embedder_options,
    embed_options,
    embedder_args,
    embedder_estimate,
)
from voxjudge.cli.report_options import (
    add_report_options,
    check_report_options,
    report_outputs,
    say_written,
    wants_report,
)
from voxjudge.cli.views import render_case_punct_note, render_compare, render_metrics


def register(groups) -> None:
    asr = groups.add_parser(
        "asr", help="classic ASR metrics, alignments, system comparison, LASER rubric scores (asr score)"
    )
    cmds = asr.add_subparsers(dest="command", metavar="<command>", required=True)

    p = cmds.add_parser(
        "metrics",
        help="WER, CER, MER, WIL, WIP with hit/substitution/deletion/insertion counts",
        description="Corpus-level error rates (errors summed over all utterances, then divided), "
        "identical to jiwer 4.0 with --split jiwer (the default splits on any Unicode white space, which jiwer "
        "does not: tabs, no-break spaces); per-utterance figures with --per-utterance.",
    )
    _add_ref_hyp(p, speakers=True)
    p.add_argument(
        "--unit",
        action="append",
        choices=["word", "char", "grapheme"],
        help="unit to count, repeatable: word (WER, MER, WIL, WIP), char (CER by code point, jiwer-compatible), "
        "grapheme (CER by extended grapheme cluster); only these are computed, and the table shows the first "
        "one's counts (default: word and char)",
    )
    p.add_argument("--per-utterance", action="store_true", help="also report every utterance, in input order")
    p.add_argument("--by-speaker", action="store_true", help="add a per-speaker summary (speaker column or id prefix)")
    p.add_argument("--speaker-sep", default="-", help="id prefix separator for --by-speaker (default: '-')")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    add_embedder_options(p, purpose="SemDist per utterance and for the corpus")
    add_embedder_limits(p)
    p.add_argument("--out", metavar="FILE", help="write per-utterance records to FILE (.jsonl, .csv, .tsv, .json)")
    add_align_limit(p)
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
    add_align_limit(p)
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
    p.add_argument(
        "--unit",
        default="word",
        choices=["word", "char", "grapheme"],
        help="as in 'asr metrics': CER counts code points (word, char) or grapheme clusters (grapheme) (default: word)",
    )
    add_bootstrap_options(p)
    p.add_argument("--top", type=int, default=10, help="confusion pairs to list per system (default: 10)")
    add_embedder_options(
        p, purpose="SemDist of both systems (mean over utterances) and the paired bootstrap of its difference"
    )
    add_embedder_limits(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument(
        "--out", metavar="FILE", help="per-utterance records of both systems (id, wer_a, wer_b, ...; .jsonl, .csv)"
    )
    add_report_options(p)
    add_align_limit(p)
    p.set_defaults(func=cmd_compare)

    from voxjudge.cli import judge_card, laser, laser_pairs, laser_train

    for group in (laser, laser_pairs, laser_train, judge_card):  # score, classify, export-pairs, train, judge-card
        group.register(cmds)


def _add_ref_hyp(p, *, speakers: bool = False) -> None:
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp", required=True, help="hypothesis transcripts")
    add_input_options(p, speakers=speakers)
    add_text_options(p)


def _metric_units(asked: list[str] | None) -> tuple[str, ...]:
    """``--unit`` of ``asr metrics``: words and at most one character unit, in the order given."""
    from voxjudge.errors import InputError

    units = tuple(dict.fromkeys(asked or ("word", "char")))
    if "char" in units and "grapheme" in units:
        raise InputError("--unit char and --unit grapheme are two CERs: choose one")
    return units


def cmd_metrics(args: argparse.Namespace) -> int:
    from voxjudge._gc import gc_paused

    if args.out:  # (the writers' imports cost start-up time)
        check_outputs(records=[args.out], inputs=[args.ref, args.hyp])
    units = _metric_units(args.unit)
    embedder, options = embedder_args(args), embed_options(args)  # checked before the files are read
    # 100,000s of texts and rows, none in a cycle: a collection, even the one that follows a
    # pause while they are alive, would only walk them. They are freed when the command returns.
    with gc_paused(), align_limit(args):
        return _metrics(args, units, embedder, options)


def _metrics(args: argparse.Namespace, units: tuple[str, ...], embedder: dict, options) -> int:
    from voxjudge.asr.measures import compute_metrics

    paired = read_pair(args, args.ref, args.hyp)
    if args.dry_run:
        print_json(embedder_estimate(args, "asr metrics", paired.references, [paired.hypotheses], options))
        return 0
    # Per-utterance rows, and the hit/substitution/deletion/insertion split of the CER, cost as
    # much as the counting: computed only when an output shows them.
    per_utterance = bool(args.out or args.per_utterance or args.by_speaker)
    with progress_bar("scoring") as progress:
        result = compute_metrics(
            paired.references,
            paired.hypotheses,
            paired.ids,
            normalizer=normalizer(args),
            split=args.split,
            char_unit="grapheme" if "grapheme" in units else "char",
            units=tuple("word" if u == "word" else "char" for u in units),
            per_utterance=per_utterance,
            char_counts=per_utterance or args.json or units[0] != "word",
            progress=progress,
            **embedder,
            embed_options=options,
        )
    summary = result.summary()
    utterances = result.per_utterance() if per_utterance else []
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
    else:
        print(
            render_metrics(
                summary, result, units[0], args.ref, args.hyp, utterances if args.per_utterance else None, speakers
            )
        )
    if "word" in units:
        rows = list(zip(paired.references, paired.hypotheses))
        counts = case_punct_counts(rows, args.normalize, split=args.split, current=result.corpus_word)
        say_note(counts and render_case_punct_note([(None, counts)]))
    return 0


def cmd_align(args: argparse.Namespace) -> int:
    from voxjudge.asr.alignment import align
    from voxjudge.asr.counting import check_lengths
    from voxjudge.asr.display import render_alignment
    from voxjudge.asr.tokenize import Tokenizer
    from voxjudge.errors import InputError

    if args.limit is not None and args.limit < 0:  # (a negative count would show nothing, silently)
        raise InputError(f"--limit counts utterances to show: 0 or more, not {args.limit}")
    check_outputs(records=[args.out], inputs=[args.ref, args.hyp])
    paired = read_pair(args, args.ref, args.hyp)
    norm = normalizer(args)
    shown = []
    pairs_out = []
    with align_limit(args), progress_bar("aligning") as progress:
        units = {args.unit: Tokenizer(args.unit, args.split).function()}
        check_lengths(paired.references, paired.hypotheses, units, norm, lambda k: f"utterance {paired.ids[k]}")
        total = len(paired.ids)
        for k, (uid, ref, hyp) in enumerate(zip(paired.ids, paired.references, paired.hypotheses)):
            a = align(ref, hyp, unit=args.unit, split=args.split, normalizer=norm)
            if args.out:
                pairs_out += [{"id": uid, "ref": p.ref, "hyp": p.hyp, "op": p.op} for p in a.pairs()]
            if progress is not None:
                progress(k + 1, total)
            if args.errors_only and a.counts.errors == 0:
                continue
            if args.limit is None or len(shown) < args.limit:
                shown.append((uid, a))
    write_out(args.out, pairs_out)
    note = None
    if args.unit == "word":
        rows = list(zip(paired.references, paired.hypotheses))
        counts = case_punct_counts(rows, args.normalize, split=args.split)
        note = counts and render_case_punct_note([(None, counts)])
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
    else:
        color = use_color()
        print("\n\n".join(render_alignment(a, uid, color=color) for uid, a in shown))
    say_note(note)
    return 0


def _compared(args: argparse.Namespace, pa, pb, embedder: dict, options, progress):
    """``progress``: the bar's update, which the embeddings count (as in asr metrics)."""
    from contextlib import nullcontext

    from voxjudge.asr.compare import compare_systems

    return compare_systems(
        pa.references,
        pa.hypotheses,
        pb.hypotheses,
        pa.ids,
        normalizer=normalizer(args),
        split=args.split,
        char_unit="grapheme" if args.unit == "grapheme" else "char",
        n_resamples=args.resamples,
        confidence=args.confidence,
        seed=args.bootstrap_seed,
        top=args.top,
        **embedder,
        embed_options=options,
        embed_progress=lambda _what: nullcontext(progress),
    )


def cmd_compare(args: argparse.Namespace) -> int:
    from voxjudge.errors import InputError
    from voxjudge.io import pair_texts

    names = [n.strip() for n in args.names.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise InputError(f"--names needs two different comma-separated names, got {args.names!r}")
    if args.top < 0:
        raise InputError(f"--top counts confusion pairs to list: 0 or more, not {args.top}")
    check_bootstrap_options(args)
    check_outputs(records=[args.out], files=[args.report], inputs=[args.ref, args.hyp_a, args.hyp_b])
    check_report_options(args)
    embedder, options = embedder_args(args), embed_options(args)
    ref = read_file(args, args.ref)
    pa = pair_texts(ref, read_file(args, args.hyp_a))
    pb = pair_texts(ref, read_file(args, args.hyp_b))
    warn_leading_ids(args, pa, pb)
    if args.dry_run:
        print_json(embedder_estimate(args, "asr compare", pa.references, [pa.hypotheses, pb.hypotheses], options))
        return 0
    with align_limit(args), progress_bar("comparing") as progress:
        comparison = _compared(args, pa, pb, embedder, options, progress)
    summary = comparison.summary()
    summary["names"] = {"a": names[0], "b": names[1]}
    records = []
    if args.out:
        keys = ("wer", "cer", "hits", "substitutions", "deletions", "insertions") + (
            ("semdist",) if args.embedder else ()
        )
        records = [
            {
                "id": ua["id"],
                "ref_words": ua["ref_words"],
                **{f"{k}_{s}": u[k] for k in keys for s, u in (("a", ua), ("b", ub))},
            }
            for ua, ub in zip(comparison.a.per_utterance(), comparison.b.per_utterance())
        ]
    report = None
    if wants_report(args):
        from voxjudge.report.asr_compare import compare_report

        settings = {
            "names": names, "normalize": args.normalize, "split": args.split, "unit": args.unit, "ids": args.ids,
            "format": args.format, "top": args.top,
            "bootstrap": {"resamples": args.resamples, "confidence": args.confidence, "seed": args.bootstrap_seed},
            "embedder": summary["semdist"]["embedder"] if "semdist" in summary else "none",
        }  # fmt: skip
        if args.embedder_base_url:
            settings["embedder_base_url"] = args.embedder_base_url
        inputs = {"ref": args.ref, "hyp_a": args.hyp_a, "hyp_b": args.hyp_b}
        report = compare_report(comparison, summary, (names[0], names[1]), settings, inputs)
    write_all({args.out: records, **report_outputs(args, report)})
    if args.json:
        print_json(summary)
    else:
        print(render_compare(summary, names))
    say_written(args, report)
    systems = []
    for name, paired, result in ((names[0], pa, comparison.a), (names[1], pb, comparison.b)):
        rows = list(zip(paired.references, paired.hypotheses))
        counts = case_punct_counts(rows, args.normalize, split=args.split, current=result.corpus_word)
        if counts is None:
            break
        systems.append((name, counts))
    say_note(systems and render_case_punct_note(systems))
    return 0
