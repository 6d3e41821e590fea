"""``voxjudge asr train``: the learned pair judge from labelled pairs, or the evidence calibration
and laser_calibrated from sentence ratings and preferences."""

from __future__ import annotations

import argparse

from voxjudge.cli.common import alias, check_outputs, print_json, progress_bar, say_note, write_all
from voxjudge.cli.embedder_options import (
    add_embedder_limits,
    add_embedder_options,
    embed_options,
    embedder_args,
    embedder_estimate,
)
from voxjudge.cli.laser_options import lang_code
from voxjudge.cli.laser_pairs import pair_rows
from voxjudge.cli.views import render_agreement, render_calibration
from voxjudge.errors import InputError


def register(cmds) -> None:
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
        help="sentence ratings (columns lang, utterance, ref, hyp, human_mean: the raters' mean, 0-5 unless "
        "--rating-scale says otherwise; .csv, .tsv or .jsonl): fit the evidence calibration and laser_calibrated "
        "instead of a pair judge; --out writes a calibration file for asr score --calibration",
    )
    p.add_argument(
        "--rating-scale",
        type=float,
        default=5.0,
        metavar="MAX",
        help="the ratings' top score (the bottom is 0; default: 5); a rating outside 0-MAX is an error",
    )
    p.add_argument(
        "--preferences",
        metavar="FILE.tsv",
        help="A/B preference triplets (columns reference, hyp_a, votes_a, hyp_b, votes_b, as HATS; .tsv, .csv "
        "or .jsonl): fit the calibration on them too, or alone; scored in --lang, else in the language "
        "detected from their references (HATS: French)",
    )
    p.add_argument(
        "--lang",
        type=lang_code,
        help="language, any BCP-47/ISO code (default: detected); with --ratings/--preferences, the triplets' "
        "language and that of rating rows without a lang column",
    )
    p.add_argument("--cv", type=int, default=0, metavar="K", help="also report K-fold CV grouped by unique pair")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples for the CV CIs (default: 2000)")
    p.add_argument("--split-seed", dest="seed", type=int, default=0, help="fold and bootstrap seed (default: 0)")
    alias(p, "--split-seed", "--seed")
    p.add_argument("--rubric", metavar="FILE", help="rubric JSON (default: the shipped LASER rubric)")
    add_embedder_options(
        p, purpose="laser_calibrated with meaning (--ratings/--preferences only; a pair judge takes none)", texts=""
    )
    add_embedder_limits(p)
    p.add_argument("--json", action="store_true", help="print the CV report as JSON")
    p.set_defaults(func=cmd_train)


def cmd_train(args: argparse.Namespace) -> int:
    from voxjudge.asr.laser import LaserRubric
    from voxjudge.asr.laser.lang import detect_language
    from voxjudge.asr.laser.learned import file_sha256
    from voxjudge.asr.laser.training import cross_validate, tiers_of, train

    check_outputs(files=[args.out], inputs=[args.pairs, args.ratings, args.preferences, args.rubric])
    rubric = LaserRubric.load(args.rubric)
    if args.rating_scale != 5.0 and not args.ratings:  # refused, not dropped
        raise InputError("--rating-scale is the scale of --ratings; give it with them")
    if args.ratings or args.preferences:
        return _train_calibration(args, rubric)
    if not args.pairs:
        raise InputError("give labelled word pairs, or --ratings/--preferences to fit the evidence calibration")
    if embedder_args(args)["embedder"]:  # (a server without an embedder is refused there, not dropped)
        raise InputError(
            "--embedder fits laser_calibrated with meaning, with --ratings/--preferences; a pair judge "
            "takes no embedder"
        )
    options = embed_options(args)  # a limit without --embedder is refused, not ignored
    lines = pair_rows(args.pairs, labelled=True)  # a pair its judge left unscored has no label to learn
    rows = [row for _, row in lines]
    if not args.out and not args.cv and not args.dry_run:
        raise InputError("nothing to do: give --out MODEL.json, --cv K, or both")
    if args.cv == 1 or args.cv < 0:
        raise InputError("--cv needs at least 2 folds")
    if args.dry_run:  # a pair judge calls no model
        print_json(embedder_estimate(args, "asr train", [], [[]], options))
        return 0
    tiers = tiers_of(rows, rubric, args.pairs, [n for n, _ in lines])
    if args.lang:  # the rows of that language (and those without one): said in the output, not dropped in silence
        given = len(rows)
        kept = [(r, t) for r, t in zip(rows, tiers) if (r.get("lang") or args.lang) == args.lang]
        rows, tiers = [r for r, _ in kept], [t for _, t in kept]
        if not rows:
            raise InputError(f"{args.pairs}: no pair is in {args.lang} (its lang column names others)")
        langs = {args.lang}
        if len(rows) < given:
            say_note(f"{len(rows)} of {given} pairs are in {args.lang}: the model is trained on those")
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
    if not args.out and not args.cv and not args.dry_run:
        raise InputError("nothing to do: give --out CALIBRATION.json, --cv K, or both")
    embedder, options = embedder_args(args), embed_options(args)
    if args.dry_run:
        from voxjudge.asr.laser.calibrate import embedded_pairs

        refs, hyps = embedded_pairs(args.ratings, args.preferences, args.lang, args.rating_scale)
        print_json(embedder_estimate(args, "asr train", refs, [hyps], options))
        return 0
    with progress_bar("fitting the evidence calibration and laser_calibrated"):
        text, report = train_files(
            args.ratings,
            args.preferences,
            rubric,
            cv=args.cv,
            seed=args.seed,
            **embedder,
            options=options,
            lang=args.lang,
            rating_scale=args.rating_scale,
        )
    if args.out:
        write_all({args.out: text})
        say_note(f"calibration -> {args.out} (use it with: asr score ... --calibration {args.out})")
    if args.json or not args.cv:
        print_json(report)
    else:
        print(render_calibration(report))
    return 0
