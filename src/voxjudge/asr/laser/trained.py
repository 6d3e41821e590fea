"""The trainable pair classifier: the paper's cheap alternative to prompting, on the CPU.

Features are what the rules look at, as numbers (same after the fold, same number, same stem,
vowel-length-only change, consonant-skeleton similarity, edit distances, scripts, function words,
omission/addition/merge/swap) plus character n-grams of both sides. A logistic regression
(scikit-learn, the ``train`` extra) predicts the error type; the tier comes from the rubric.

For a fine-tuned LLM instead, ``voxjudge asr export-pairs`` writes the same labelled pairs as
chat-format JSONL for standard LoRA tools.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.lang import as_number, fold, is_function_word, numbers_equal, script_of
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, _stem, _vowel_length_only, skeleton
from voxjudge.errors import InputError, reason

FORMAT = "voxjudge-laser-pair-classifier-1"


def features(ref: str, hyp: str, lang: str, op: str = "substitute") -> dict[str, float]:
    from rapidfuzz.distance import Levenshtein

    r, h = tuple(ref.split()), tuple(hyp.split())
    fr, fh = " ".join(fold(w) for w in r), " ".join(fold(w) for w in h)
    one = len(r) == len(h) == 1
    sk_r, sk_h = (skeleton(fr) if fr else ""), (skeleton(fh) if fh else "")
    return {
        "empty_ref": float(not r),
        "empty_hyp": float(not h),
        "identical": float(r == h),
        "fold_equal": float(bool(r) and fr == fh),
        "joined_equal": float(bool(r) and bool(h) and fr.replace(" ", "") == fh.replace(" ", "")),
        "numbers_equal": float(bool(r) and bool(h) and numbers_equal(r, h, lang)),
        "has_digits": float(any(as_number(w) is not None for w in r + h)),
        "stem_equal": float(one and _stem(fr, lang) == _stem(fh, lang)),
        "vowel_length_only": float(one and _vowel_length_only(fr, fh)),
        "skeleton_equal": float(bool(sk_r) and sk_r == sk_h),
        "skeleton_sim": Levenshtein.normalized_similarity(sk_r, sk_h) if sk_r and sk_h else 0.0,
        "edit_sim": Levenshtein.normalized_similarity(fr, fh),
        "edit_dist": float(min(Levenshtein.distance(fr, fh), 6)),
        "cross_script": float(bool(r) and bool(h) and script_of(r[0]) != script_of(h[0])),
        "function_word": float(any(is_function_word(w, lang) for w in r + h)),
        "n_ref": float(len(r)),
        "n_hyp": float(len(h)),
        "swap": float(op == "swap"),
        "merge": float(op == "merge"),
    }


def _text(ref: str, hyp: str) -> str:
    return f"{fold(ref)}\t{fold(hyp)}"


def train(rows: Sequence[dict[str, str]], *, seed: int = 0) -> Any:
    """Fit on rows with ref, hyp, lang and error_type ("none" for matches)."""
    try:
        from sklearn.feature_extraction import DictVectorizer
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import FeatureUnion, Pipeline
        from sklearn.preprocessing import FunctionTransformer
    except ImportError:
        raise InputError("training needs scikit-learn: pip install 'voxjudge[train]'") from None
    if len({r["error_type"] for r in rows}) < 2:
        raise InputError("training needs examples of at least two error types")
    X = [(r["ref"], r["hyp"], r["lang"], r.get("op", "substitute")) for r in rows]
    y = [r["error_type"] for r in rows]
    union = FeatureUnion(
        [
            ("rules", Pipeline([("f", FunctionTransformer(_feature_dicts)), ("v", DictVectorizer())])),
            (
                "chars",
                Pipeline(
                    [
                        ("f", FunctionTransformer(_texts)),
                        ("v", TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), min_df=1, sublinear_tf=True)),
                    ]
                ),
            ),
        ]
    )
    model = Pipeline([("features", union), ("clf", LogisticRegression(max_iter=2000, C=4.0, random_state=seed))])
    from threadpoolctl import threadpool_limits  # installed with scikit-learn

    # A few hundred rows: BLAS threads only contend (one thread fits 5-7x faster on a busy 2-core box).
    with threadpool_limits(1, user_api="blas"):
        model.fit(X, y)
    return model


def _feature_dicts(X):
    return [features(r, h, lang, op) for r, h, lang, op in X]


def _texts(X):
    return [_text(r, h) for r, h, _, _ in X]


def save(model: Any, path: str | Path, rubric: LaserRubric, n_rows: int) -> None:
    with open(path, "wb") as f:
        pickle.dump({"format": FORMAT, "model": model, "rubric": rubric.sha256, "rows": n_rows}, f)


def load(path: str | Path) -> dict[str, Any]:
    """Load a model file written by ``voxjudge asr train`` (a pickle: load only files you made)."""
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)
    except FileNotFoundError:
        raise InputError(f"{path}: model file not found") from None
    except (pickle.UnpicklingError, EOFError, AttributeError, ModuleNotFoundError) as e:
        raise InputError(f"{path}: not a voxjudge pair classifier ({reason(e, path)})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a voxjudge pair classifier")
    return data


def model_labeler(model: Any, rubric: LaserRubric):
    def label(items: list[tuple[str, RubricPair, str]]) -> list[Label]:
        out: list[Label | None] = [None] * len(items)
        todo = []
        for k, (_, pair, _lang) in enumerate(items):
            if pair.op == "equal":
                out[k] = Label("match", None, "identical")
            else:
                todo.append(k)
        if todo:
            preds = model.predict(
                [(items[k][1].ref_text, items[k][1].hyp_text, items[k][2], items[k][1].op) for k in todo]
            )
            for k, etype in zip(todo, preds):
                if etype == "none":
                    out[k] = Label("no_penalty", "alternate_spelling", "trained classifier: same word")
                else:
                    out[k] = Label(rubric.type(etype).tier, etype, "trained classifier")
        return out  # type: ignore[return-value]

    return label
