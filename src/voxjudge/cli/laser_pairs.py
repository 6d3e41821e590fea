"""``voxjudge asr classify`` and ``asr export-pairs``: LASER on lists of word pairs, and the
labelled pairs as a dataset."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from voxjudge.cli.common import check_outputs, print_json, refuse_unused, say_note, write_all, write_out
from voxjudge.cli.judge_options import finish, judge_options, make_judge
from voxjudge.cli.laser_options import add_laser_options, refuse_unused_model_options
from voxjudge.cli.views import render_agreement
from voxjudge.errors import InputError
from voxjudge.plural import counted

PREDICTED = ("label", "error_type", "reason")  # what asr classify writes for each pair


def register(cmds) -> None:
    p = cmds.add_parser("classify", help="label word pairs (CSV/TSV/JSONL with ref and hyp columns)")
    p.add_argument("pairs", help="word pairs: columns ref, hyp (either may be empty), optional lang")
    add_laser_options(p)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write here (.csv, .tsv, .jsonl, .json); default: CSV on stdout. The input's columns, then label, "
        "error_type and reason; an input column of one of those names (the true label, for --eval) is kept "
        "as given_label, given_error_type or given_reason",
    )
    p.add_argument(
        "--eval",
        action="store_true",
        help="compare with the pairs' 'label' (or 'tier', as export-pairs writes) column: accuracy per class, "
        "confusion matrix, kappa with CIs",
    )
    p.add_argument("--resamples", type=int, help="--eval bootstrap resamples (default: 2000)")
    p.add_argument("--json", action="store_true", help="--eval: print the agreement as JSON")
    p.set_defaults(func=cmd_classify)

    p = cmds.add_parser("export-pairs", help="labelled word pairs as a dataset: CSV and chat-format JSONL for LoRA")
    p.add_argument("pairs", help="labelled pairs (ref, hyp, error_type[, lang]) or results from 'asr score --out'")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="the pairs as CSV")
    p.add_argument("--chat", metavar="FILE.jsonl", help="also as chat-format JSONL (system, user, assistant)")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    p.set_defaults(func=cmd_export)


def read_pair_rows(path: str, *, labelled: bool = False) -> list[dict[str, str]]:
    """Rows with at least ref and hyp, from CSV, TSV or JSONL (``pair_rows`` without line numbers)."""
    return [row for _, row in pair_rows(path, labelled=labelled)]


def pair_rows(path: str, *, labelled: bool = False) -> list[tuple[int, dict[str, str]]]:
    """``(line, row)``: rows with at least ref and hyp, from CSV, TSV or JSONL, each with the line
    of the file it came from (a pair of 'asr score --out' records: its record's line).
    ``labelled``: the rows are wanted for their labels (export-pairs, train), so a pair that the
    judge of an 'asr score --out' run left unscored (it has no label) is left out, and a note on
    stderr says how many; otherwise it is kept with an empty error_type."""
    from voxjudge.io.readers import jsonl_objects, read_lines, table_rows

    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        rows = [(n, obj) for n, obj in jsonl_objects(path)]
    elif suffix in (".csv", ".tsv"):
        rows = table_rows(path, read_lines(path), "\t" if suffix == ".tsv" else ",")[1]
    else:
        raise InputError(f"{path}: word pairs must be .csv, .tsv or .jsonl")
    out = []
    unscored = 0
    for n, row in rows:
        if "pairs" in row and isinstance(row["pairs"], list):  # results from 'asr score --out'
            for p in row["pairs"]:
                if p.get("label") == "unscored":  # no label: never a match
                    unscored += 1
                    if labelled:
                        continue
                    error_type = ""
                else:
                    error_type = p["error_type"] or "none"
                out.append(
                    (
                        n,
                        {
                            "ref": p["ref"],
                            "hyp": p["hyp"],
                            "lang": row.get("lang", ""),
                            "error_type": error_type,
                            "op": p.get("op", "substitute"),
                        },
                    )
                )
            continue
        if "ref" not in row or "hyp" not in row:
            raise InputError(f"{path}:{n}: needs 'ref' and 'hyp' columns (found: {', '.join(row)})")
        out.append((n, {k: ("" if v is None else str(v)) for k, v in row.items()}))
    if unscored and labelled:
        say_note(f"{path}: {counted(unscored, 'unscored pair')} left out (their judge gave them no label)")
    if not out:
        raise InputError(f"{path}: no word pairs found")
    return out


def _labeler(args, rubric):
    """A synchronous labeler for the offline judges, or None and an LLM judge."""
    from voxjudge.asr.laser import is_offline
    from voxjudge.asr.laser.judges import offline_labeler

    if is_offline(args.judge):
        from voxjudge.asr.laser.calibration_file import read_file

        calibration = read_file(args.calibration) if args.calibration else None
        labeler, _ = offline_labeler(
            args.judge, rubric, allow_rubric_mismatch=args.allow_rubric_mismatch, calibration=calibration
        )
        return labeler, None
    if args.calibration:
        raise InputError("--calibration goes with the offline judges (default, model:PATH); an LLM judge has none")
    return None, make_judge(args, args.judge)


def cmd_classify(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric, RubricPair, is_offline
    from voxjudge.asr.laser.run import decide_language

    if is_offline(args.judge):
        judge_options(args).unused_server(f"the offline judge {args.judge!r} calls none")
    refuse_unused_model_options(args)
    if args.engine == "ray" and is_offline(args.judge):  # a list of pairs is labelled in one go, here
        raise InputError(
            f"asr classify labels with the offline judge {args.judge!r} in this process; --engine ray is for "
            "LLM judges here (drop it, or use asr score --engine ray to score a corpus on Ray)"
        )
    if not args.eval:
        given = [flag for flag, used in (("--json", args.json), ("--resamples", args.resamples is not None)) if used]
        refuse_unused(given, "with --eval (the agreement with a label column)")
    check_outputs(records=[args.out], inputs=[args.pairs, args.calibration, args.rubric])
    rubric = LaserRubric.load(args.rubric)
    lines = pair_rows(args.pairs)
    rows = [row for _, row in lines]
    # --lang, else a row's lang column, else the file's language, decided once (never per pair)
    untagged = ((r["ref"], r["hyp"]) for r in rows if not r.get("lang"))
    file_lang = args.lang or (decide_language(None, untagged)[0] if any(not r.get("lang") for r in rows) else None)
    items = []
    for k, row in enumerate(rows):
        ref, hyp = tuple(row["ref"].split()), tuple(row["hyp"].split())
        op = "equal" if ref == hyp and ref else "delete" if not hyp else "insert" if not ref else "substitute"
        lang = args.lang or row.get("lang") or file_lang
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
            **{f"given_{k}" if k in PREDICTED else k: v for k, v in row.items()},  # the input's own kept
            "label": lab.label if lab else "unscored",  # a state, not a penalty tier
            "error_type": (lab.error_type if lab else None) or "",
            "reason": lab.reason if lab else "unscored: no valid model answer",
        }
        for row, lab in zip(rows, labels)
    ]
    if args.eval:
        from voxjudge.asr.laser.agreement import label_agreement

        truth = _truth_labels(lines, args.pairs)
        unscored = sum(1 for o in out if o["label"] == "unscored")
        keep = [k for k, o in enumerate(out) if o["label"] != "unscored"]
        report = label_agreement(
            [truth[k] for k in keep],
            [out[k]["label"] for k in keep],
            [(rows[k]["ref"].strip(), rows[k]["hyp"].strip()) for k in keep],
            n_resamples=2000 if args.resamples is None else args.resamples,
        )
        report = {"judge": args.judge, "unscored": unscored, **report}
        if args.calibration:
            report["calibration"] = args.calibration
        if args.out:
            write_out(args.out, out)
        print_json(report) if args.json else print(render_agreement(report))
        return 0
    if args.out:
        write_out(args.out, out)
    else:
        w = csv.DictWriter(sys.stdout, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    if llm is None:
        return 0
    return finish(
        unscored=stats.unscored,
        total=len(rows),
        what="pairs",
        reasons=stats.unscored_reasons,
        stopped=stats.stopped,
        cached=not args.no_cache,
    )


def _truth_labels(lines: list[tuple[int, dict[str, str]]], where: str) -> list[str]:
    """The true label of each row (``pair_rows``' ``(line, row)``), checked; errors name the line."""
    from voxjudge.asr.laser import LABELS

    rows = [row for _, row in lines]
    column = next((c for c in ("label", "tier") if rows and c in rows[0]), None)  # export-pairs writes 'tier'
    if column is None:
        found = ", ".join(rows[0]) if rows else "none"
        raise InputError(f"{where}: --eval needs a 'label' (or 'tier') column (columns: {found})")
    truth = []
    for n, row in lines:
        label = (row.get(column) or "").strip()
        if label not in LABELS:
            raise InputError(f"{where}:{n}: {column} must be one of {', '.join(LABELS)} for --eval (got {label!r})")
        truth.append(label)
    return truth


def cmd_export(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.llm_judges import training_chat
    from voxjudge.asr.laser.run import decide_language

    check_outputs(records=[args.out, args.chat])
    rubric = LaserRubric.load(args.rubric)
    rows = read_pair_rows(args.pairs, labelled=True)
    # a pair without a lang column is in the file's language, decided once as asr classify decides
    # it (the chat rows name it in the prompt, as pairs mode does at inference; never 'en' by default)
    untagged = [(r["ref"], r["hyp"]) for r in rows if not r.get("lang")]
    file_lang, how = decide_language(None, untagged) if untagged else (None, "")
    for r in rows:
        if not r.get("error_type"):
            raise InputError(f"{args.pairs}: every pair needs an error_type ('none' for a match) to be exported")
    pairs = [
        {
            "ref": r["ref"],
            "hyp": r["hyp"],
            "lang": r.get("lang") or file_lang,
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
            training_chat(r["ref"], r["hyp"], p["lang"], r["error_type"], rubric, r.get("reason", ""))
            for r, p in zip(rows, pairs)
        ]
    write_all({args.out: pairs, args.chat: chats})
    print(f"{len(rows)} pairs -> {args.out}" + (f" and {args.chat}" if args.chat else ""), file=sys.stderr)
    if file_lang:
        say_note(f"{counted(len(untagged), 'pair')} without a lang column taken as {file_lang}: {how}")
    return 0
