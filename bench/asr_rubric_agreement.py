"""LASER's agreement with people, out of fold, beside 1 - WER and 1 - CER, with bootstrap CIs.

    python bench/asr_rubric_agreement.py [--folds 5] [--seed 0] [--resamples 2000] [--embedder default]
    python bench/asr_rubric_agreement.py --nested [--inner 5] [--json nested.json] [--fixed-tiers]
    python bench/asr_rubric_agreement.py --nested --from-json nested.json [--versus other.json]

Sets (shipped in voxjudge/asr/laser/data, MIT licences beside them): sentence ratings (Pearson of
the utterance score with the mean of 20 raters, per language; folds and bootstrap grouped by
utterance) and HATS (French A/B choices; agreement at certitude 100/70/all, ties disagree; folds and
bootstrap grouped by reference). LASER is the default judge with the pooled tiers' calibration
fitted on the other folds (and the other sets), and ``laser_calibrated`` fitted with it (without
meaning, and with the embedder's SemDist); SemDist alone, WER and CER (jiwer, lower case,
punctuation removed, and also with combining marks removed) fit nothing.

``--nested``: the whole procedure nested (``voxjudge.asr.laser.nested``): per outer fold, the
tiers' grid, the model's form among the candidate feature sets and its weights are chosen on
inner folds of the outer training part only, then scored on the outer fold. Printed per set:
the nested figure, each fixed form out of fold, and each form's paired difference from the
shipped form (same bootstrap resamples), which form every outer fold chose, and the differences
pooled over the four sets. ``--fixed-tiers`` keeps the rubric's default tiers (no grid).
"""

from __future__ import annotations

import argparse
import unicodedata
from functools import partial

import jiwer
import numpy as np

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser import calibration as C
from voxjudge.asr.laser.calibration_file import shipped_data
from voxjudge.asr.laser.judges import rules_labeler_for


def _norm(s: str) -> str:
    s = unicodedata.normalize("NFC", s).lower()
    return " ".join("".join(" " if unicodedata.category(ch)[0] == "P" else ch for ch in s).split())


def _classic(refs, hyps):
    w = np.array([1 - jiwer.wer(_norm(r), _norm(h) or "∅") for r, h in zip(refs, hyps)])
    c = np.array([1 - jiwer.cer(_norm(r), _norm(h) or "∅") for r, h in zip(refs, hyps)])
    return w, c


def _boot(stat, groups: np.ndarray, resamples: int, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    unique = np.unique(groups)
    members = [np.flatnonzero(groups == g) for g in unique]
    vals = []
    for _ in range(resamples):
        rows = np.concatenate([members[k] for k in rng.integers(0, len(unique), len(unique))])
        vals.append(stat(rows))
    return [float(np.nanquantile(vals, 0.025)), float(np.nanquantile(vals, 0.975))]


def _strip_marks(s: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", s) if unicodedata.category(ch) != "Mn")


def main() -> None:
    from voxjudge.asr.semdist import distances_for
    from voxjudge.llm import open_embedder

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--embedder", default="default", help="SemDist's embedder ('none': without meaning)")
    ap.add_argument("--nested", action="store_true", help="the fully nested run (form and weights chosen inside)")
    ap.add_argument("--inner", type=int, default=5, help="inner folds of --nested")
    ap.add_argument("--json", help="--nested: write the held-out scores and picks here")
    ap.add_argument("--forms", help="--nested: the candidate forms, comma-separated (default: all of nested.FORMS)")
    ap.add_argument("--fixed-tiers", action="store_true", help="--nested: the rubric's default tiers, no grid")
    ap.add_argument("--from-json", help="--nested: print the figures of a run saved with --json (no refitting)")
    ap.add_argument("--versus", help="--nested: a saved run to compare with (laser and the shipped form, paired)")
    args = ap.parse_args()
    if args.nested:
        return nested_main(args)
    rubric = LaserRubric.load()
    ratings_path, hats_path = shipped_data()
    ratings, hats = C.read_ratings(ratings_path), C.read_hats(hats_path)
    embedder = None if args.embedder == "none" else open_embedder(args.embedder)
    distances = distances_for(embedder) if embedder else None
    tasks = C.tasks(ratings, hats, rubric, rules_labeler_for(rubric), distances)
    spec = embedder.spec if embedder else None
    oof = C.out_of_fold(tasks, rubric, folds=args.folds, seed=args.seed, embedder=spec)
    names = {"laser": "LASER default", "rubric_only": "laser_calibrated, no meaning", "meaning": "laser_calibrated"}
    for t in tasks:
        boot = partial(_boot, groups=t.groups, resamples=args.resamples, seed=args.seed)
        cols = oof[t.name]
        if t.parts[0] == "ratings":
            rs = [r for r in ratings if r["lang"] == t.lang]
            human = t.parts[2]
            refs, hyps = [r["ref"] for r in rs], [r["hyp"] for r in rs]
            w, c = _classic(refs, hyps)
            wm, cm = _classic([_strip_marks(x) for x in refs], [_strip_marks(x) for x in hyps])
            print(
                f"{t.name} ({len(rs)} hypotheses, {len(np.unique(t.groups))} utterances): Pearson with the mean rating"
            )
            sides = [(names[k] + " (out of fold)", v[0]) for k, v in cols.items()]
            if t.parts[3] is not None:
                sides.append((f"1 - SemDist ({spec})", 1 - t.parts[3]))
            sides += [("1 - WER", w), ("1 - CER", c), ("1 - WER, marks removed", wm), ("1 - CER, marks removed", cm)]
            for name, x in sides:
                r = C.pearson(x, human)
                lo, hi = boot(lambda rows, x=x, h=human: C.pearson(x[rows], h[rows]))
                print(f"  {name:42s} {r:.3f} [{lo:.3f}, {hi:.3f}]")
        else:
            from voxjudge.asr.preference import preference_agreement, read_preferences

            prefs = read_preferences(hats_path)  # the judge card's reader and agreement (ties disagree)
            refs = [r["reference"] for r in hats]
            wa, ca = _classic(refs, [r["hyp_a"] for r in hats])
            wb, cb = _classic(refs, [r["hyp_b"] for r in hats])
            print(f"{t.name} ({len(hats)} triplets): agreement with people's choice, ties disagree")
            sides = [(names[k] + " (out of fold)", v) for k, v in cols.items()]
            if t.parts[5] is not None:
                sides.append((f"1 - SemDist ({spec})", (1 - t.parts[5], 1 - t.parts[6])))
            sides += [("1 - WER", (wa, wb)), ("1 - CER", (ca, cb))]
            for name, (sa, sb) in sides:
                levels = preference_agreement(
                    prefs, sa.tolist(), sb.tolist(), higher_is_better=True, n_resamples=args.resamples, seed=args.seed
                )
                cells = [f"{lv.level}: {lv.agreement:.3f} [{lv.ci_low:.3f}, {lv.ci_high:.3f}]" for lv in levels]
                print(f"  {name:42s} " + "  ".join(cells))
    if embedder:
        embedder.close()


def _paired(stat, groups, resamples, seed):
    """Bootstrap over groups of a statistic returning a vector: (lo, hi) per component."""
    rng = np.random.default_rng(seed)
    unique = np.unique(groups)
    members = [np.flatnonzero(groups == g) for g in unique]
    draws = (rng.integers(0, len(unique), len(unique)) for _ in range(resamples))
    vals = [stat(np.concatenate([members[k] for k in draw])) for draw in draws]
    return np.nanquantile(np.array(vals), [0.025, 0.975], axis=0)


def _sets():
    """name -> (groups, ratings 0-1 or None, votes_a, votes_b) of the shipped human sets."""
    ratings_path, hats_path = shipped_data()
    rows, hats = C.read_ratings(ratings_path), C.read_hats(hats_path)
    out = {}
    for lang in sorted({r["lang"] for r in rows}):
        rs = [r for r in rows if r["lang"] == lang]
        human = np.array([float(r["human_mean"]) for r in rs]) / C.RATING_SCALE
        out[f"ratings-{lang}"] = (C._codes([r["utterance"] for r in rs]), human, None, None)
    va = np.array([int(r["votes_a"]) for r in hats])
    vb = np.array([int(r["votes_b"]) for r in hats])
    out["hats-fr"] = (C._codes([r["reference"] for r in hats]), None, va, vb)
    return out


def _figures(sets, name, cols, rows):
    """Pearson (ratings) or agreement at 100%, 70%, all (triplets) of held-out scores on ``rows``."""
    _, human, va, vb = sets[name]
    if human is not None:
        return [C.pearson(cols[0][rows], human[rows])]
    return [C.preference_agreement(cols[0][rows], cols[1][rows], va[rows], vb[rows], c) for c in (1.0, 0.7, 0.0)]


def _pooled(sets, a, b, resamples, seed):
    """Mean over the sets of (figure of ``a`` - figure of ``b``), a set's figure being Pearson or
    the mean agreement of its three levels (the inner criterion); CI resampling every set's groups."""
    rng = np.random.default_rng(seed)
    members = {n: [np.flatnonzero(g == u) for u in np.unique(g)] for n, (g, *_rest) in sets.items()}

    def stat(rows):
        diffs = [np.mean(_figures(sets, n, a[n], r)) - np.mean(_figures(sets, n, b[n], r)) for n, r in rows.items()]
        return float(np.mean(diffs))

    point = stat({n: np.arange(len(g)) for n, (g, *_rest) in sets.items()})
    vals = []
    for _ in range(resamples):
        draw = {n: np.concatenate([m[k] for k in rng.integers(0, len(m), len(m))]) for n, m in members.items()}
        vals.append(stat(draw))
    return point, np.quantile(vals, 0.025), np.quantile(vals, 0.975)


def _load(path):
    import json

    with open(path) as fh:
        d = json.load(fh)
    return {
        k: {"scores": {n: [np.array(c, dtype=float) for c in v] for n, v in f["scores"].items()}, "picks": f["picks"]}
        for k, f in d.items()
    }


def nested_main(args) -> None:
    import json
    import sys

    from voxjudge.asr.laser import nested as N

    if args.from_json:
        found = _load(args.from_json)
    else:
        from voxjudge.asr.semdist import distances_for
        from voxjudge.llm import open_embedder

        rubric = LaserRubric.load()
        ratings_path, hats_path = shipped_data()
        embedder = open_embedder(args.embedder)
        try:
            ts = N.ntasks(
                C.read_ratings(ratings_path),
                C.read_hats(hats_path),
                rubric,
                rules_labeler_for(rubric),
                distances_for(embedder),
                embedder,
            )
        finally:
            embedder.close()
        forms = {k: N.FORMS[k] for k in args.forms.split(",")} if args.forms else N.FORMS
        found = N.nested(
            ts,
            rubric,
            forms,
            folds=args.folds,
            inner=args.inner,
            seed=args.seed,
            tune_tiers=not args.fixed_tiers,
            log=lambda m: print(m, file=sys.stderr, flush=True),
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    k: {"scores": {n: [c.tolist() for c in v] for n, v in f["scores"].items()}, "picks": f["picks"]}
                    for k, f in found.items()
                },
                fh,
            )
    sets = _sets()
    names = list(next(iter(found.values()))["scores"])
    for name, (groups, human, _, _) in sets.items():
        cols = found[name]["scores"]

        def stat(rows, cols=cols, name=name):
            return np.array([x for k in names for x in _figures(sets, name, cols[k], rows)])

        unit = ["pearson"] if human is not None else ["100%", "70%", "all"]
        m = len(unit)
        point = stat(np.arange(len(groups)))
        lo, hi = _paired(stat, groups, args.resamples, args.seed)
        ship = names.index(N.SHIPPED)

        def dstat(rows, stat=stat, ship=ship, m=m):
            v = stat(rows).reshape(-1, m)
            return (v - v[ship]).ravel()

        dlo, dhi = _paired(dstat, groups, args.resamples, args.seed)
        d = (point.reshape(-1, m) - point.reshape(-1, m)[ship]).ravel()
        print(f"{name}: {'  '.join(unit)}; [95% CI]; minus the shipped form, paired [95% CI]")
        for i, k in enumerate(names):
            cells = []
            for j in range(m):
                x = i * m + j
                cells.append(f"{point[x]:.3f} [{lo[x]:.3f}, {hi[x]:.3f}] {d[x]:+.3f} [{dlo[x]:+.3f}, {dhi[x]:+.3f}]")
            print(f"  {k:36s} " + "   ".join(cells))
        print("  picks: " + ", ".join(p["form"] for p in found[name]["picks"]))
    by = {k: {n: found[n]["scores"][k] for n in sets} for k in names}
    print("four sets pooled (mean of the sets' figures; triplets: mean of the three levels), minus the shipped form:")
    for k in names:
        if k != N.SHIPPED:
            p, lo_, hi_ = _pooled(sets, by[k], by[N.SHIPPED], args.resamples, args.seed)
            print(f"  {k:36s} {p:+.3f} [{lo_:+.3f}, {hi_:+.3f}]")
    if args.versus:
        other = _load(args.versus)
        print(f"this run minus {args.versus}, the same form, paired (per set and pooled):")
        for k in ("laser", N.SHIPPED):
            cells = []
            for n, (groups, *_rest) in sets.items():
                a, b = found[n]["scores"][k], other[n]["scores"][k]
                m = len(_figures(sets, n, a, np.arange(len(groups))))

                def diff(rows, a=a, b=b, n=n):
                    return np.array(_figures(sets, n, a, rows)) - np.array(_figures(sets, n, b, rows))

                dp = diff(np.arange(len(groups)))
                dl, dh = _paired(diff, groups, args.resamples, args.seed)
                cells.append(f"{n} " + " / ".join(f"{dp[j]:+.3f} [{dl[j]:+.3f}, {dh[j]:+.3f}]" for j in range(m)))
            mine, theirs = ({n: run[n]["scores"][k] for n in sets} for run in (found, other))
            p, lo_, hi_ = _pooled(sets, mine, theirs, args.resamples, args.seed)
            print(f"  {k}: " + "; ".join(cells) + f"; pooled {p:+.3f} [{lo_:+.3f}, {hi_:+.3f}]")


if __name__ == "__main__":
    main()
