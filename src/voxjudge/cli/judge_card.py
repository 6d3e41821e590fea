"""``voxjudge asr judge-card``: WER, CER and LASER judges side by side on your own human data."""

from __future__ import annotations

import argparse

from voxjudge.cli.bootstrap_options import add_bootstrap_options, bootstrap_kwargs
from voxjudge.cli.common import add_input_options, check_outputs, print_json, progress_bar, read_pair, write_all
from voxjudge.cli.embedder_options import add_embedder_options, embedder_args
from voxjudge.cli.judge_options import add_judge_options, finish, judge_options
from voxjudge.cli.laser_options import add_calibration_option, add_llm_labelling_options
from voxjudge.cli.views import render_judge_card
from voxjudge.errors import InputError

DESCRIPTION = (
    "Measures how well WER, CER and each LASER judge agree with people, on your own human data, so you can "
    "pick a judge. Preferences (which of two hypotheses of one reference people chose): the share of "
    "triplets where the metric prefers the hypothesis most people chose, at certitude 100% (unanimous), "
    "70% and all; a tie on either side counts as disagreement; CIs resample references. Ratings (a score "
    "per hypothesis): Pearson, Spearman and Kendall with the metric, per language when the file has a lang "
    "column, with CIs that resample whole utterances (all hypotheses of one reference together), and the "
    "raters' split-half ceiling when it has their own scores. Every metric is also compared with each one "
    "above it: the difference of agreement and of correlation, with a paired CI from the same resamples "
    "(marked ! when it excludes 0, on 10 or more groups). A hypothesis a model judge could not score is "
    "reported as coverage and makes the exit status 3; one no metric can score (an empty reference: no "
    "reference words) is reported as coverage only."
)


def register(cmds) -> None:
    p = cmds.add_parser(
        "judge-card",
        help="pick a judge: WER, CER and LASER judges against your human preferences and ratings",
        description=DESCRIPTION,
    )
    p.add_argument(
        "--preferences",
        metavar="FILE",
        help="A/B preferences (.tsv/.csv/.jsonl): reference (or ref), hyp_a, hyp_b and votes_a + votes_b "
        "(the HATS layout; a header-less 5-column TSV is read as HATS) or choice (a/b, one vote per row)",
    )
    p.add_argument("--group-col", metavar="COL", help="--preferences column to resample by (default: the reference)")
    p.add_argument(
        "--ratings",
        metavar="FILE",
        help="rated hypotheses (.csv/.tsv/.jsonl): ref, hyp, a score; optional id, lang, and ratings "
        "(the per-rater scores as a JSON list)",
    )
    p.add_argument("--ref", metavar="FILE", help="with --hyp: the texts of an id-keyed --ratings file (id, score)")
    p.add_argument("--hyp", metavar="FILE", help="hypotheses for --ratings given by id (read as --ref is)")
    add_input_options(p)
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="--ratings by id with --ref/--hyp: use the ids both sides have and report the coverage first "
        "(default: an id on one side only is an error)",
    )
    p.add_argument(
        "--ratings-col", metavar="COL", help="score column of --ratings (default: score, human_mean or rating)"
    )
    p.add_argument(
        "--ratings-group-col",
        metavar="COL",
        help="--ratings column to resample by, e.g. utterance (default: the reference: all hypotheses of one "
        "reference move together)",
    )
    p.add_argument(
        "--judge",
        dest="judges",
        action="append",
        metavar="SPEC",
        help="a LASER judge to put on the card; repeat for several (default: default). default, rules, "
        "model:PATH, or an LLM spec (openai/<model>, local/<file.gguf>, ...)",
    )
    p.add_argument(
        "--lang",
        help="language of every text for LASER, over any lang column (default: a --ratings lang column decides "
        "per row; the other texts are detected as asr score detects a file's language: the script, and function "
        "words where several languages write it, Latin text without enough of them by its word lists)",
    )
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    p.add_argument(
        "--normalize",
        default="basic",
        metavar="SPEC",
        help="normalization of both sides before WER and CER: a preset (none, basic, strict, hindi, marathi, "
        "arabic) or steps joined by '+', e.g. basic+devanagari (default: basic, i.e. case and punctuation "
        "ignored, unlike the other asr commands' none: it is the WER that 'asr score' puts beside LASER, "
        "which judges words, not formatting, so the rows compare like with like; presets and steps are "
        "listed below)",
    )
    add_llm_labelling_options(p, dry_run="LLM judges and --embedder: ")
    p.add_argument(
        "--methods",
        default="pearson,spearman",
        metavar="LIST",
        help="correlations with --ratings, comma-separated from pearson, spearman, kendall; the first is shown "
        "in the table (default: pearson,spearman)",
    )
    p.add_argument("--split-halves", type=int, default=1000, metavar="N", help="raters' random splits (default: 1000)")
    add_bootstrap_options(p)
    add_judge_options(p, judge=None)
    add_embedder_options(
        p,
        purpose="SemDist beside the judges, and laser_calibrated with meaning",
        note="; the shipped laser_calibrated was fitted with 'default' only, so any other embedder needs "
        "--calibration FILE fitted with it ('asr train --ratings ... --embedder SPEC --out FILE') or --judge "
        "rules (SemDist without laser_calibrated)",
    )
    add_calibration_option(p, named="The card names the file (and, in --json, its sha256) beside laser_calibrated")
    p.add_argument(
        "--allow-rubric-mismatch",
        action="store_true",
        help="use a learned model or a calibration fitted under another rubric",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="one record per rated hypothesis and per preference side (.jsonl, .csv): its id (system and "
        "lang when --ratings has those columns; triplet and side for --preferences), texts, and every "
        "metric's own value (WER, not 1 - WER; empty: unscored)",
    )
    p.add_argument("--json", action="store_true", help="print the card as JSON")
    p.set_defaults(func=cmd_judge_card)


def cmd_judge_card(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import is_offline

    if args.dry_run:
        from voxjudge.asr.judge_card import unique_texts
        from voxjudge.asr.judge_card_laser import dry_run

        prefs, ratings, judges, options, _ = card_options(args)
        print_json(dry_run(unique_texts(prefs or (), ratings or ()), judges, options))
        return 0
    check_outputs(
        records=[args.out], inputs=[args.preferences, args.ratings, args.ref, args.hyp, args.rubric, args.calibration]
    )
    card = card_from_args(args)
    write_all({args.out: card.records})
    print_json(card.summary) if args.json else print(render_judge_card(card.summary))
    llm = [f"LASER {spec}" for spec in card.settings["judges"] if not is_offline(spec)]
    if not llm:
        return 0
    coverage, runs = card.summary["coverage"], card.summary.get("runs", {})
    stopped = "; ".join(f"{n}: {runs[n]['stopped']}" for n in llm if (runs.get(n) or {}).get("stopped"))
    return finish(
        unscored=sum(coverage[n]["total"] - coverage[n]["scored"] for n in llm),
        total=sum(coverage[n]["total"] for n in llm),
        what="hypotheses (counted once per LLM judge)",
        stopped=stopped or None,
    )


def card_options(args: argparse.Namespace):
    """The checked options: (preferences, ratings, judges, LASER options, card keyword arguments)."""
    from voxjudge.asr.laser import LaserOptions, LaserRubric, is_offline
    from voxjudge.asr.normalize import get_normalizer
    from voxjudge.asr.preference import read_preferences

    if not args.preferences and not args.ratings:
        raise InputError("give human data: --preferences FILE, --ratings FILE, or both")
    if args.split_halves < 1:
        raise InputError("--split-halves must be at least 1")
    if args.allow_partial and not (args.ref or args.hyp):  # refused, not ignored
        raise InputError("--allow-partial goes with --ref/--hyp (a scores file that covers part of the texts)")
    boot = bootstrap_kwargs(args)
    methods = [m.strip().lower() for m in args.methods.split(",") if m.strip()]
    if not methods or any(m not in ("pearson", "spearman", "kendall") for m in methods):
        raise InputError(f"--methods takes pearson, spearman and/or kendall, comma-separated (got {args.methods!r})")
    get_normalizer(args.normalize)  # an unknown preset fails before any work
    judges = list(dict.fromkeys(args.judges or ["default"]))
    options = LaserOptions(
        lang=args.lang,
        rubric=LaserRubric.load(args.rubric),
        allow_rubric_mismatch=args.allow_rubric_mismatch,
        mode=args.mode,
        batch_size=args.batch_size,
        prefilter=not args.no_prefilter,
        llm=judge_options(args),
        calibration=_calibration(args, judges),
        **embedder_args(args),
    )
    if all(is_offline(spec) for spec in judges):  # --base-url is for the card's LLM judges
        options.llm.unused_server(
            f"no judge of the card ({', '.join(judges)}: all offline) calls one", embedder=bool(options.embedder)
        )
    prefs = read_preferences(args.preferences, group_column=args.group_col) if args.preferences else None
    ratings, join = _ratings(args)
    systems = _systems(args) if ratings else None
    card = {
        "names": {"preferences": args.preferences, "ratings": args.ratings},
        "split_halves": args.split_halves,
        "normalize": args.normalize,
        "methods": methods,
        "ratings_join": join,
        "ratings_unit": args.ratings_group_col or "utterance",
        "systems": systems,
        **boot,
    }
    return prefs, ratings, judges, options, card


def _calibration(args: argparse.Namespace, judges: list[str]):
    """--calibration read and checked once (as asr score reads it), for every judge of the card that
    takes one (default, model:); None: the shipped one. A card with no such judge refuses it, as
    asr score does for those judges, rather than leave it unused."""
    if not args.calibration:
        return None
    from voxjudge.asr.laser import is_offline

    if not any(is_offline(j) and j != "rules" for j in judges):
        raise InputError(
            "--calibration goes with the default and model: judges (none on this card: "
            f"{', '.join(judges)}); the rules judge uses the rubric's default tiers and an LLM judge has none"
        )
    from voxjudge.asr.laser.calibration_file import read_file

    return read_file(args.calibration)


def card_from_args(args: argparse.Namespace):
    """The judge card the options describe (the demo calls this too, so it shows what the command does)."""
    from voxjudge.asr.judge_card import judge_card
    from voxjudge.asr.judge_card_laser import laser_scorer

    prefs, ratings, judges, options, card = card_options(args)
    scorer = laser_scorer(options, progress=progress_bar)
    return judge_card(preferences=prefs, ratings=ratings, judges=judges, laser=scorer, **card)


def _systems(args: argparse.Namespace) -> dict[str, str] | None:
    """Each rating's system by id, from a ``system`` column of a --ratings file with texts (ids as
    ``read_ratings`` gives them: the id column, else the line), for the records; None without one."""
    from pathlib import Path

    from voxjudge.io.readers import jsonl_objects, read_lines, table_rows

    if args.ref:
        return None
    path = args.ratings
    suffix = Path(path).suffix.lower()
    rows = (
        jsonl_objects(path)
        if suffix in (".jsonl", ".ndjson")
        else table_rows(path, read_lines(path), "\t" if suffix == ".tsv" else ",")[1]
    )
    systems = {str(row.get("id") or n): str(row["system"]).strip() for n, row in rows if row.get("system") is not None}
    return {k: v for k, v in systems.items() if v} or None


def _ratings(args: argparse.Namespace):
    """(ratings, join coverage or None): texts inside --ratings, or --ref/--hyp joined by id."""
    from voxjudge.asr.ratings import join_ratings, read_ratings

    if bool(args.ref) != bool(args.hyp):
        raise InputError("--ref and --hyp go together (the texts of an id-keyed --ratings file)")
    if args.ref and not args.ratings:
        raise InputError("--ref and --hyp give the texts of --ratings FILE (id and score); add --ratings")
    if not args.ratings:
        return None, None
    if not args.ref:
        return read_ratings(args.ratings, column=args.ratings_col, group_column=args.ratings_group_col), None
    if args.ratings_group_col:
        raise InputError(
            "--ratings-group-col names a column of a --ratings file with texts; without them the reference groups"
        )
    from voxjudge.io.scores import read_scores

    paired = read_pair(args, args.ref, args.hyp)
    scores = read_scores(args.ratings, args.ratings_col or "score", column_setting="ratings_col")
    return join_ratings(
        paired.ids,
        paired.references,
        paired.hypotheses,
        scores,
        texts_name=args.hyp,
        scores_name=args.ratings,
        allow_partial=args.allow_partial,
    )
