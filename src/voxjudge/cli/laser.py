"""``voxjudge asr score | classify | export-pairs | train`` (LASER)."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from voxjudge.cli.common import (
    add_input_options,
    alias,
    check_outputs,
    console,
    print_json,
    progress_bar,
    read_pair,
    write_all,
    write_out,
)
from voxjudge.cli.judge_options import add_judge_options, finish, make_judge
from voxjudge.errors import InputError

JUDGE_HELP = "rules (offline, default), an LLM spec (openai/<model>, gemini/<model>, ...), or model:PATH"


def register(cmds) -> None:
    p = cmds.add_parser(
        "score",
        help="LASER rubric scores: graded penalties per word pair, beside WER",
        description="Aligns reference and hypothesis into word pairs, labels every mismatch (no penalty, "
        "minor 0.5, major 1.0) and scores 1 - penalty / reference words, per utterance and for the corpus "
        "(micro: total penalty / total words; macro: mean of utterance scores).",
    )
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp", required=True, help="hypothesis transcripts")
    add_input_options(p)
    _common(p)
    p.add_argument(
        "--mode", default="pairs", choices=["pairs", "sentence"], help="LLM judges: pairs (default) or sentence"
    )
    p.add_argument("--batch-size", type=int, default=32, help="pairs per LLM request (default: 32)")
    p.add_argument("--no-prefilter", action="store_true", help="send even rule-certain pairs to the LLM")
    p.add_argument(
        "--dry-run", action="store_true", help="LLM judges: estimate requests, tokens and cost; send nothing (no key)"
    )
    p.add_argument("--human", metavar="FILE", help="human scores by id: Pearson/Spearman/Kendall for LASER and 1-WER")
    p.add_argument("--human-col", default="score", help="score column in --human (default: score)")
    p.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples for the CIs (default: 10000)")
    p.add_argument("--out", metavar="FILE", help="per-utterance results (.jsonl or .json)")
    p.add_argument("--report", metavar="FILE", help="self-contained HTML report")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_score)

    p = cmds.add_parser("classify", help="label word pairs (CSV/TSV/JSONL with ref and hyp columns)")
    p.add_argument("pairs", help="word pairs: columns ref, hyp (either may be empty), optional lang")
    _common(p)
    p.add_argument("--out", metavar="FILE", help="write here (.csv, .tsv, .jsonl, .json); default: CSV on stdout")
    p.set_defaults(func=cmd_classify)

    p = cmds.add_parser("export-pairs", help="labelled word pairs as a dataset: CSV and chat-format JSONL for LoRA")
    p.add_argument("pairs", help="labelled pairs (ref, hyp, error_type[, lang]) or results from 'asr score --out'")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="the pairs as CSV")
    p.add_argument("--chat", metavar="FILE.jsonl", help="also as chat-format JSONL (system, user, assistant)")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    p.set_defaults(func=cmd_export)

    p = cmds.add_parser("train", help="fit the CPU pair classifier (scikit-learn) for --judge model:PATH")
    p.add_argument("pairs", help="labelled pairs (ref, hyp, error_type, lang)")
    p.add_argument("--out", required=True, metavar="MODEL", help="model file to write")
    p.add_argument("--test-fraction", type=float, default=0.2, help="held out to report accuracy (default: 0.2)")
    p.add_argument("--split-seed", dest="seed", type=int, default=0, help="split and training seed (default: 0)")
    alias(p, "--split-seed", "--seed")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    p.add_argument("--json", action="store_true", help="print the held-out accuracy as JSON on stdout")
    p.set_defaults(func=cmd_train)


def _common(p) -> None:
    p.add_argument(
        "--lang", choices=["hi", "mr", "ml", "kn", "en"], help="language (default: detected from the script)"
    )
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    add_judge_options(p, judge=None)
    p.add_argument("--judge", default="rules", metavar="SPEC", help=JUDGE_HELP)


def read_pair_rows(path: str) -> list[dict[str, str]]:
    """Rows with at least ref and hyp, from CSV, TSV or JSONL."""
    from voxjudge.io.readers import jsonl_objects, read_lines, table_rows

    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows = [(n, obj) for n, obj in jsonl_objects(path)]
    elif suffix in (".csv", ".tsv"):
        rows = table_rows(path, read_lines(path), "\t" if suffix == ".tsv" else ",")[1]
    else:
        raise InputError(f"{path}: word pairs must be .csv, .tsv or .jsonl")
    out = []
    for n, row in rows:
        if "pairs" in row and isinstance(row["pairs"], list):  # results from 'asr score --out'
            out += [
                {
                    "ref": p["ref"],
                    "hyp": p["hyp"],
                    "lang": row.get("lang", ""),
                    "error_type": p["error_type"] or "none",
                    "op": p.get("op", "substitute"),
                }
                for p in row["pairs"]
            ]
            continue
        if "ref" not in row or "hyp" not in row:
            raise InputError(f"{path}:{n}: needs 'ref' and 'hyp' columns (found: {', '.join(row)})")
        out.append({k: ("" if v is None else str(v)) for k, v in row.items()})
    if not out:
        raise InputError(f"{path}: no word pairs found")
    return out


def _labeler(args, rubric):
    """A synchronous labeler for rules and trained models, or None for an LLM judge."""
    from voxjudge.asr.laser.scoring import rules_labeler

    if args.judge == "rules":
        return rules_labeler, None
    if args.judge.startswith("model:"):
        from voxjudge.asr.laser import trained

        data = trained.load(args.judge[len("model:") :])
        return trained.model_labeler(data["model"], rubric), None
    return None, make_judge(args, args.judge)


def cmd_score(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.result import laser_result
    from voxjudge.asr.laser.scoring import score

    check_outputs(records=[args.out], files=[args.report])
    rubric = LaserRubric.load(args.rubric)
    paired = read_pair(args, args.ref, args.hyp)
    human = None
    if args.human:  # read before the work: a bad file fails fast
        from voxjudge.io.scores import read_scores

        human = read_scores(args.human, args.human_col)
    labeler, llm = _labeler(args, rubric)
    extra: dict = {}
    settings: dict = {"judge": args.judge, "mode": "pairs", "lang": args.lang}
    try:
        if llm is None:
            with progress_bar(f"labelling word pairs ({args.judge})") as progress:
                utterances = score(
                    paired.references,
                    paired.hypotheses,
                    paired.ids,
                    lang=args.lang,
                    rubric=rubric,
                    labeler=labeler,
                    progress=progress,
                )
        elif args.dry_run:
            from voxjudge.asr.laser.llm_judges import planned_laser_requests

            requests = planned_laser_requests(
                paired.references,
                paired.hypotheses,
                paired.ids,
                rubric,
                lang=args.lang,
                mode=args.mode,
                batch_size=args.batch_size,
                prefilter=not args.no_prefilter,
            )
            print_json(llm.estimate(requests))
            return 0
        else:
            from voxjudge.asr.laser.llm_judges import score_with_llm

            settings.update(
                judge=llm.spec.full_name, mode=args.mode, batch_size=args.batch_size, prefilter=not args.no_prefilter
            )
            with progress_bar(f"asking {llm.spec.name}") as progress:
                utterances, extra = llm.run(
                    score_with_llm(
                        llm,
                        paired.references,
                        paired.hypotheses,
                        paired.ids,
                        rubric,
                        lang=args.lang,
                        mode=args.mode,
                        batch_size=args.batch_size,
                        prefilter=not args.no_prefilter,
                        progress=progress,
                    )
                )
            extra["usage"] = llm.meter.as_dict()
    finally:
        if llm is not None:
            llm.close()
    result = laser_result(utterances, rubric, settings, extra, human=human, n_resamples=args.resamples)
    report = None
    if args.report:
        from voxjudge.asr.laser.report import laser_report

        report = laser_report(result.summary, result.utterances, result.human)
    write_all({args.out: result.records, args.report: report})
    if args.json:
        print_json(result.summary)
    else:
        print(render(result.summary))
    if llm is None:
        return 0
    # Reasons are counted per pair (pairs mode) or utterance (sentence mode) the model left unlabelled.
    unit = "pairs" if args.mode == "pairs" else "utterances"
    reasons = {
        f"{unit} with {k}": n for k, n in ((result.summary.get("llm") or {}).get("unscored_reasons") or {}).items()
    }
    return finish(
        unscored=result.unscored,
        total=len(result.utterances),
        what="utterances",
        reasons=reasons,
        stopped=result.stopped,
    )


def render(s: dict) -> str:
    from voxjudge.cli.tables import Table

    con = console()
    with con.capture() as cap:
        t = Table(title=f"LASER ({s['judge']}): {s['n']} utterances, {s['ref_words']} reference words")
        for col in ("LASER micro", "LASER macro", "mean WER", "no penalty", "minor", "major", "unscored"):
            t.add_column(col, justify="right")
        f = lambda v: "–" if v is None else f"{v:.4f}"  # noqa: E731
        t.add_row(
            f(s["laser_micro"]),
            f(s["laser_macro"]),
            f(s["wer_macro"]),
            str(s["labels"]["no_penalty"]),
            str(s["labels"]["minor"]),
            str(s["labels"]["major"]),
            str(s["n_unscored"]),
        )
        con.print(t)
        e = Table(title="Error types")
        for col in ("type", "count", "penalty"):
            e.add_column(col, justify="left" if col == "type" else "right")
        for name, cell in s["error_types"].items():
            e.add_row(name, str(cell["count"]), f"{cell['penalty']:g}")
        con.print(e)
        if s.get("agreement"):
            from voxjudge.report.html import correlation_text

            a = Table(title="Agreement with human scores (95% bootstrap CI)")
            for col in ("metric", "pearson", "spearman", "kendall"):
                a.add_column(col, justify="left" if col == "metric" else "right")
            for name, cs in s["agreement"].items():
                a.add_row(name, *(correlation_text(c) for c in cs))
            con.print(a)
        if s.get("llm"):
            con.print(
                f"pairs sent to the model: {s['llm']['sent_to_model']} of {s['llm']['pairs']} "
                f"({s['llm']['settled_by_rules']} settled by the rules, {s['llm']['unscored']} unscored)"
            )
    return cap.get().rstrip("\n")


def cmd_classify(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric, RubricPair
    from voxjudge.asr.laser.lang import detect_language

    check_outputs(records=[args.out])
    rubric = LaserRubric.load(args.rubric)
    rows = read_pair_rows(args.pairs)
    items = []
    for k, row in enumerate(rows):
        ref, hyp = tuple(row["ref"].split()), tuple(row["hyp"].split())
        op = "equal" if ref == hyp and ref else "delete" if not hyp else "insert" if not ref else "substitute"
        lang = args.lang or row.get("lang") or detect_language(row["ref"] + " " + row["hyp"])
        items.append((str(k), RubricPair(ref, hyp, op, 0, 0), lang))
    labeler, llm = _labeler(args, rubric)
    try:
        if llm is None:
            labels = labeler(items)
        else:
            from voxjudge.asr.laser.llm_judges import llm_label_pairs

            labels, stats = llm.run(llm_label_pairs(llm, items, rubric, prefilter=True))
    finally:
        if llm is not None:
            llm.close()
    out = [
        {
            **row,
            "label": lab.label if lab else "unscored",  # a state, not a penalty tier
            "error_type": (lab.error_type if lab else None) or "",
            "reason": lab.reason if lab else "unscored: no valid model answer",
        }
        for row, lab in zip(rows, labels)
    ]
    if args.out:
        write_out(args.out, out)
    else:
        w = csv.DictWriter(sys.stdout, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    if llm is None:
        return 0
    return finish(
        unscored=stats.unscored, total=len(rows), what="pairs", reasons=stats.unscored_reasons, stopped=stats.stopped
    )


def cmd_export(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.llm_judges import training_chat

    check_outputs(records=[args.out, args.chat])
    rubric = LaserRubric.load(args.rubric)
    rows = read_pair_rows(args.pairs)
    for r in rows:
        if not r.get("error_type"):
            raise InputError(f"{args.pairs}: every pair needs an error_type ('none' for a match) to be exported")
    pairs = [
        {
            "ref": r["ref"],
            "hyp": r["hyp"],
            "lang": r.get("lang", ""),
            "error_type": r["error_type"],
            "tier": "match" if r["error_type"] == "none" else rubric.type(r["error_type"]).tier,
        }
        for r in rows
    ]
    chats = None
    if args.chat:
        # The very prompt pairs mode sends at inference (a batch of one), so a model tuned on
        # these rows sees the same format when it is served.
        chats = [
            training_chat(r["ref"], r["hyp"], r.get("lang") or "en", r["error_type"], rubric, r.get("reason", ""))
            for r in rows
        ]
    write_all({args.out: pairs, args.chat: chats})
    print(f"{len(rows)} pairs -> {args.out}" + (f" and {args.chat}" if args.chat else ""), file=sys.stderr)
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    import numpy as np

    from voxjudge.asr.laser import LaserRubric, trained

    check_outputs(files=[args.out])
    rubric = LaserRubric.load(args.rubric)
    rows = read_pair_rows(args.pairs)
    for r in rows:
        if not r.get("error_type") or not r.get("lang"):
            raise InputError(f"{args.pairs}: training pairs need error_type and lang")
        if r["error_type"] != "none":
            rubric.type(r["error_type"])
    if not 0 <= args.test_fraction < 1:
        raise InputError("--test-fraction must be in [0, 1)")
    order = np.random.default_rng(args.seed).permutation(len(rows))
    cut = int(round(len(rows) * args.test_fraction))
    test, fit = [rows[k] for k in order[:cut]], [rows[k] for k in order[cut:]]
    with progress_bar(f"training on {len(fit)} pairs"):
        model = trained.train(fit, seed=args.seed)
    report = {"train_pairs": len(fit), "test_pairs": len(test)}
    if test:
        pred = model.predict([(r["ref"], r["hyp"], r["lang"], r.get("op", "substitute")) for r in test])
        tier = lambda t: "match" if t == "none" else rubric.type(t).tier  # noqa: E731
        report["test_type_accuracy"] = float(np.mean([p == r["error_type"] for p, r in zip(pred, test)]))
        report["test_tier_accuracy"] = float(np.mean([tier(p) == tier(r["error_type"]) for p, r in zip(pred, test)]))
    trained.save(model, args.out, rubric, len(fit))
    if args.json:
        print_json({"model": args.out, **report})
        return 0
    line = f"{args.out}: trained on {report['train_pairs']} pairs"
    if test:
        line += (
            f"; on {report['test_pairs']} held-out pairs: error type {100 * report['test_type_accuracy']:.1f}% "
            f"correct, tier {100 * report['test_tier_accuracy']:.1f}%"
        )
    print(line, file=sys.stderr)
    return 0
