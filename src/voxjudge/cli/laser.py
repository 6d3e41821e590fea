"""``voxjudge asr score | classify | export-pairs | train`` (LASER)."""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from voxjudge.cli.bootstrap_options import add_bootstrap_options, bootstrap_kwargs
from voxjudge.cli.common import (
    CASE_PUNCT_WORDS,
    add_align_limit,
    add_input_options,
    add_normalize_option,
    alias,
    align_limit,
    case_punct_counts,
    check_outputs,
    print_json,
    progress_bar,
    read_pair_streamed,
    say_note,
    write_all,
    write_out,
)
from voxjudge.cli.embedder_options import add_embedder_options
from voxjudge.cli.judge_options import add_judge_options, finish, judge_options, make_judge
from voxjudge.cli.report_options import (
    add_report_options,
    check_report_options,
    report_outputs,
    say_written,
    wants_report,
)
from voxjudge.cli.views import render_agreement, render_calibration, render_case_punct_note, render_laser
from voxjudge.errors import InputError

JUDGE_HELP = (
    "default (offline: rules + the learned model shipped for Hindi), rules (pure rules), model:PATH "
    "(rules + a model from 'asr train'), or an LLM spec (openai/<model>, gemini/<model>, ...)"
)


def register(cmds) -> None:
    p = cmds.add_parser(
        "score",
        help="LASER rubric scores: graded penalties per word pair, beside WER",
        description="Aligns reference and hypothesis into word pairs, labels every mismatch (no penalty, "
        "minor 0.5, major 1.0) and scores 1 - penalty / reference words (floored at 0), per utterance and "
        "for the corpus (micro: total penalty / total words; macro: mean of utterance scores). Beside the score, "
        "each under its own name: format_errors (pairs that differ only in case or punctuation; not in the "
        "score), laser_calibrated (default judge: a figure fitted to people from the score and, with "
        "--embedder default, SemDist) and, with --embedder, semdist (1 - cosine of the sentence embeddings).",
    )
    p.add_argument("--ref", required=True, help="reference transcripts")
    p.add_argument("--hyp", required=True, help="hypothesis transcripts")
    add_input_options(p)
    add_normalize_option(
        p.add_argument_group("text processing"),
        before=" before alignment",
        why=": the rubric judges case, punctuation and spelling variants itself",
    )
    _common(p)
    add_llm_labelling_options(p)
    p.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="offline judges: worker processes (default: one per core; results are the same for any N)",
    )
    p.add_argument(
        "--human",
        metavar="FILE",
        help="human scores by id: Pearson/Spearman/Kendall for LASER, laser_calibrated (judges that have "
        "it), 1 - SemDist (with --embedder) and 1 - WER",
    )
    p.add_argument("--human-col", default="score", help="score column in --human (default: score)")
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="--human covering only some utterances (a study in progress): agreement over those, coverage "
        "reported first (default: a scored utterance without a human score is an error)",
    )
    add_bootstrap_options(p)  # for the CIs of the agreement with --human
    add_embedder_options(p, purpose="SemDist per utterance and laser_calibrated with meaning")
    p.add_argument("--out", metavar="FILE", help="per-utterance results (.jsonl or .json)")
    add_report_options(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_align_limit(p)
    p.set_defaults(func=cmd_score)

    p = cmds.add_parser("classify", help="label word pairs (CSV/TSV/JSONL with ref and hyp columns)")
    p.add_argument("pairs", help="word pairs: columns ref, hyp (either may be empty), optional lang")
    _common(p)
    p.add_argument("--out", metavar="FILE", help="write here (.csv, .tsv, .jsonl, .json); default: CSV on stdout")
    p.add_argument(
        "--eval",
        action="store_true",
        help="compare with the pairs' 'label' column: accuracy per class, confusion matrix, kappa with CIs",
    )
    p.add_argument("--resamples", type=int, default=2000, help="--eval bootstrap resamples (default: 2000)")
    p.add_argument("--json", action="store_true", help="--eval: print the agreement as JSON")
    p.set_defaults(func=cmd_classify)

    p = cmds.add_parser("export-pairs", help="labelled word pairs as a dataset: CSV and chat-format JSONL for LoRA")
    p.add_argument("pairs", help="labelled pairs (ref, hyp, error_type[, lang]) or results from 'asr score --out'")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="the pairs as CSV")
    p.add_argument("--chat", metavar="FILE.jsonl", help="also as chat-format JSONL (system, user, assistant)")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    p.set_defaults(func=cmd_export)

    p = cmds.add_parser(
        "train",
        help="fit the learned pair judge (scikit-learn) for --judge model:PATH",
        description="Fits the linear pair judge on labelled pairs (a tier 'label' column, or 'error_type'); "
        "either side may span several words. The model is JSON applied with numpy only. Training the "
        "shipped data (voxjudge/asr/laser/data) with the defaults reproduces the shipped model byte for byte.",
    )
    p.add_argument("pairs", nargs="?", help="labelled pairs: ref, hyp, and label (tier) or error_type; optional lang")
    p.add_argument("--out", metavar="MODEL.json", help="model (or, with --ratings/--preferences, calibration) to write")
    p.add_argument(
        "--ratings",
        metavar="FILE.csv",
        help="sentence ratings (lang, utterance, ref, hyp, human_mean): fit the evidence calibration instead",
    )
    p.add_argument(
        "--preferences",
        metavar="FILE.tsv",
        help="A/B preference triplets (reference, hyp_a, votes_a, hyp_b, votes_b, French): fit the calibration",
    )
    p.add_argument("--lang", type=_lang_code, help="language, any BCP-47/ISO code (default: detected)")
    p.add_argument("--cv", type=int, default=0, metavar="K", help="also report K-fold CV grouped by unique pair")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples for the CV CIs (default: 2000)")
    p.add_argument("--split-seed", dest="seed", type=int, default=0, help="fold and bootstrap seed (default: 0)")
    alias(p, "--split-seed", "--seed")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    add_embedder_options(p, purpose="with --ratings/--preferences: also fit laser_calibrated with meaning")
    p.add_argument("--json", action="store_true", help="print the CV report as JSON")
    p.set_defaults(func=cmd_train)

    from voxjudge.cli import judge_card  # its own module (asr judge-card)

    judge_card.register(cmds)


def add_llm_labelling_options(p) -> None:
    """How an LLM judge labels LASER pairs; shared by asr score and asr judge-card."""
    p.add_argument(
        "--mode", default="pairs", choices=["pairs", "sentence"], help="LLM judges: pairs (default) or sentence"
    )
    p.add_argument("--batch-size", type=int, default=32, help="pairs per LLM request (default: 32)")
    p.add_argument("--no-prefilter", action="store_true", help="send even rule-certain pairs to the LLM")
    p.add_argument(
        "--dry-run", action="store_true", help="LLM judges: estimate requests, tokens and cost; send nothing (no key)"
    )


def _common(p) -> None:
    p.add_argument(
        "--lang",
        type=_lang_code,
        help="language: any BCP-47/ISO code (fr, ar, de, ta, zh-Hans ...); one without its own conventions gets "
        "the generic profile (default: decided once for the whole input from its first 1,000 utterances -- "
        "the script, Latin text by its function words, else its word lists; a lang column of a pairs file "
        "decides per row)",
    )
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    add_judge_options(p, judge=None)
    p.add_argument("--judge", default="default", metavar="SPEC", help=JUDGE_HELP)
    p.add_argument(
        "--allow-rubric-mismatch",
        action="store_true",
        help="use a learned model even though it was trained under another rubric",
    )


def _lang_code(code: str) -> str:
    from voxjudge.asr.laser.profiles import canonical

    try:
        return canonical(code)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
    """A synchronous labeler for the offline judges, or None and an LLM judge."""
    from voxjudge.asr.laser.judges import is_offline, offline_labeler

    if is_offline(args.judge):
        labeler, _ = offline_labeler(args.judge, rubric, allow_rubric_mismatch=args.allow_rubric_mismatch)
        return labeler, None
    return None, make_judge(args, args.judge)


class _Normalized:
    """The utterances with ``--normalize`` applied to both sides, as they are read (same length)."""

    def __init__(self, paired, norm):
        self.paired, self.norm = paired, norm

    def __len__(self) -> int:
        return len(self.paired)

    def __iter__(self):
        norm = self.norm
        return ((uid, norm(ref), norm(hyp)) for uid, ref, hyp in self.paired)


class _Texts:
    """(reference, hypothesis) of each utterance, read again on every pass."""

    def __init__(self, paired):
        self.paired = paired

    def __iter__(self):
        return ((ref, hyp) for _, ref, hyp in self.paired)


def cmd_score(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.run import LaserOptions, run_laser
    from voxjudge.asr.normalize import get_normalizer
    from voxjudge.io.writers import RecordStream

    boot = bootstrap_kwargs(args)
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be at least 1")
    if args.jobs is not None and args.engine == "ray":
        raise InputError("--jobs counts local worker processes; on Ray give --ray-workers N (one CPU each)")
    check_outputs(records=[args.out], files=[args.report])
    check_report_options(args)
    rubric = LaserRubric.load(args.rubric)
    norm = get_normalizer(args.normalize)  # an unknown step fails before any work
    paired = read_pair_streamed(args, args.ref, args.hyp)
    human = None
    if args.human:  # read before the work: a bad file fails fast
        from voxjudge.io.scores import read_scores

        human = read_scores(args.human, args.human_col)
    options = LaserOptions(
        lang=args.lang,
        rubric=rubric,
        allow_rubric_mismatch=args.allow_rubric_mismatch,
        mode=args.mode,
        batch_size=args.batch_size,
        prefilter=not args.no_prefilter,
        dry_run=args.dry_run,
        llm=judge_options(args),
        jobs=args.jobs,
        allow_partial=args.allow_partial,
        embedder=args.embedder,
        embedder_base_url=args.embedder_base_url,
        **boot,
    )
    records = RecordStream(args.out) if args.out and not args.dry_run else None
    try:
        with align_limit(args):  # a line too long to align is refused when it is reached, before its alignment
            result = run_laser(
                paired=paired if norm is None else _Normalized(paired, norm),
                judge=args.judge,
                options=options,
                human=human,
                progress=progress_bar,
                out=records,
                keep_utterances=wants_report(args),  # the report shows every pair; nothing else needs them
            )
        if result.estimate is not None:
            print_json(result.estimate)
            return 0
        for named in (result.settings, result.summary):  # what the texts were scored after
            named["normalize"] = args.normalize
        report = None
        if wants_report(args):
            from voxjudge.asr.laser.report import laser_report

            report = laser_report(result, {"ref": args.ref, "hyp": args.hyp, "human": args.human})
        write_all({args.out: records, **report_outputs(args, report)})
    finally:
        if records is not None:
            records.discard()  # after write_all renamed it, there is nothing left to remove
    if args.json:
        print_json(result.summary)
    else:
        print(render_laser(result.summary))
    say_written(args, report)
    if (result.summary.get("ref_words") or 0) <= CASE_PUNCT_WORDS:  # a corpus scale run pays for no second pass
        counts = case_punct_counts(_Texts(paired), args.normalize)
        say_note(counts and render_case_punct_note([(None, counts)], noun="word difference", rates=False))
    if "llm" not in result.summary:  # an offline judge labels every pair
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
        cached=not args.no_cache,
    )


def cmd_classify(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric, RubricPair
    from voxjudge.asr.laser.judges import is_offline
    from voxjudge.asr.laser.run import decide_language

    if args.engine == "ray" and is_offline(args.judge):  # a list of pairs is labelled in one go, here
        raise InputError(
            f"asr classify labels with the offline judge {args.judge!r} in this process; --engine ray is for "
            "LLM judges here (drop it, or use asr score --engine ray to score a corpus on Ray)"
        )
    check_outputs(records=[args.out])
    rubric = LaserRubric.load(args.rubric)
    rows = read_pair_rows(args.pairs)
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
            **row,
            "label": lab.label if lab else "unscored",  # a state, not a penalty tier
            "error_type": (lab.error_type if lab else None) or "",
            "reason": lab.reason if lab else "unscored: no valid model answer",
        }
        for row, lab in zip(rows, labels)
    ]
    if args.eval:
        from voxjudge.asr.laser.agreement import label_agreement

        truth = _truth_labels(rows, args.pairs)
        unscored = sum(1 for o in out if o["label"] == "unscored")
        keep = [k for k, o in enumerate(out) if o["label"] != "unscored"]
        report = label_agreement(
            [truth[k] for k in keep],
            [out[k]["label"] for k in keep],
            [(rows[k]["ref"].strip(), rows[k]["hyp"].strip()) for k in keep],
            n_resamples=args.resamples,
        )
        report = {"judge": args.judge, "unscored": unscored, **report}
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


def _truth_labels(rows: list[dict[str, str]], where: str) -> list[str]:
    from voxjudge.asr.laser.rubric import LABELS

    truth = []
    for n, row in enumerate(rows, start=2):
        label = (row.get("label") or "").strip()
        if label not in LABELS:
            raise InputError(
                f"{where}:{n}: --eval needs a 'label' column with one of {', '.join(LABELS)} (got {label!r})"
            )
        truth.append(label)
    return truth


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
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.lang import detect_language
    from voxjudge.asr.laser.learned import file_sha256
    from voxjudge.asr.laser.training import cross_validate, tiers_of, train

    check_outputs(files=[args.out])
    rubric = LaserRubric.load(args.rubric)
    if args.ratings or args.preferences:
        return _train_calibration(args, rubric)
    if not args.pairs:
        raise InputError("give labelled word pairs, or --ratings/--preferences to fit the evidence calibration")
    rows = read_pair_rows(args.pairs)
    if not args.out and not args.cv:
        raise InputError("nothing to do: give --out MODEL.json, --cv K, or both")
    if args.cv == 1 or args.cv < 0:
        raise InputError("--cv needs at least 2 folds")
    tiers = tiers_of(rows, rubric, args.pairs)
    if args.lang:
        langs = {args.lang}
    else:  # a lang column, else the script of the whole file (one stray Latin pair must not split it)
        langs = {r.get("lang") for r in rows} - {None, ""} or {
            detect_language(" ".join(r["ref"] + " " + r["hyp"] for r in rows))
        }
    if len(langs) != 1:
        raise InputError(f"{args.pairs}: a model is for one language; found {', '.join(sorted(langs))} (use --lang)")
    lang = langs.pop()
    report: dict = {"pairs": len(rows), "lang": lang}
    if args.out:
        with progress_bar(f"training on {len(rows)} pairs"):
            model = train(rows, tiers, rubric, lang, seed=args.seed, data_sha256=file_sha256(args.pairs))
        write_all({args.out: model.as_json()})
        report.update(model=args.out, setting={"C": model.meta["C"], "class_weight": model.meta["class_weight"]})
    if args.cv:
        report["cv"] = cross_validate(
            rows, tiers, rubric, lang, folds=args.cv, seed=args.seed, n_resamples=args.resamples
        )
    if args.json:
        print_json(report)
        return 0
    if args.out:
        print(
            f"{len(rows)} pairs ({lang}) -> {args.out} (C={report['setting']['C']}, "
            f"class weight {report['setting']['class_weight']})"
        )
    if args.cv:
        cv = report["cv"]
        for name in ("hybrid", "rules"):
            title = "rules + learned model" if name == "hybrid" else "rules alone"
            print(f"\n{cv['folds']}-fold CV grouped by unique pair, {title}:")
            print(render_agreement({"judge": title, "unscored": 0, **cv[name]}))
    return 0


def _train_calibration(args: argparse.Namespace, rubric) -> int:
    from voxjudge.asr.laser.calibrate import train_files

    if args.pairs:
        raise InputError("word pairs and --ratings/--preferences are two trainings; run them one at a time")
    if not args.out and not args.cv:
        raise InputError("nothing to do: give --out CALIBRATION.json, --cv K, or both")
    with progress_bar("fitting the evidence calibration and laser_calibrated"):
        text, report = train_files(
            args.ratings,
            args.preferences,
            rubric,
            cv=args.cv,
            seed=args.seed,
            embedder=args.embedder,
            embedder_base_url=args.embedder_base_url,
        )
    if args.out:
        write_all({args.out: text})
    if args.json or not args.cv:
        print_json(report)
    else:
        print(render_calibration(report))
    return 0
