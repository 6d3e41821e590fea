"""LASER's agreement with people, out of fold, beside 1 - WER and 1 - CER, with bootstrap CIs.

    python bench/asr_rubric_agreement.py [--folds 5] [--seed 0] [--resamples 2000] [--embedder default]

Sets (shipped in voxjudge/asr/laser/data, MIT licences beside them): sentence ratings (Pearson of
the utterance score with the mean of 20 raters, per language; folds and bootstrap grouped by
utterance) and HATS (French A/B choices; agreement at certitude 100/70/all, ties disagree; folds and
bootstrap grouped by reference). LASER is the default judge with the pooled tiers' calibration
fitted on the other folds (and the other sets), and ``laser_calibrated`` fitted with it (without
meaning, and with the embedder's SemDist); SemDist alone, WER and CER (jiwer, lower case,
punctuation removed, and also with combining marks removed) fit nothing.
"""

from __future__ import annotations

import argparse
import unicodedata
from functools import partial

import jiwer
import numpy as np

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser import calibration as C
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
    args = ap.parse_args()
    rubric = LaserRubric.load()
    ratings_path, hats_path = C.shipped_data()
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


if __name__ == "__main__":
    main()
