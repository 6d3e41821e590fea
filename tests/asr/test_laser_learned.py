"""The learned LASER pair judge: agreement statistics, grouped folds, numpy inference against
scikit-learn, the shipped model (licence, rubric hash, reproducible from the shipped data)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser.agreement import cohen_kappa, label_agreement
from voxjudge.asr.laser.judges import offline_labeler
from voxjudge.asr.laser.learned import LinearModel, load_model, shipped_data_path, shipped_model_path
from voxjudge.asr.laser.training import GRID, _grouped_folds, _Prepared, pair_of, tiers_of, train
from voxjudge.errors import InputError

RUBRIC = LaserRubric.load()


def _shipped_rows() -> list[dict[str, str]]:
    with shipped_data_path().open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_kappa_and_per_class_accuracy_by_hand():
    r = label_agreement(["major", "major", "minor", "minor"], ["major", "minor", "minor", "minor"], n_resamples=200)
    # po = 3/4; pe = (2*1 + 2*3) / 16 = 1/2; kappa = (3/4 - 1/2) / (1 - 1/2)
    assert r["accuracy"] == 0.75 and r["kappa"] == pytest.approx(0.5)
    assert r["per_class"]["major"]["accuracy"] == 0.5 and r["per_class"]["minor"]["accuracy"] == 1.0
    labels = r["confusion"]["labels"]
    cm = r["confusion"]["rows_true_cols_predicted"]
    assert cm[labels.index("major")][labels.index("minor")] == 1 and sum(map(sum, cm)) == 4
    lo, hi = r["kappa_ci"]
    assert lo <= r["kappa"] <= hi


def test_kappa_matches_scikit_learn():
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    t, p = rng.integers(0, 4, 300), rng.integers(0, 4, 300)
    p[:150] = t[:150]
    assert cohen_kappa(t, p, 4) == pytest.approx(cohen_kappa_score(t, p))


def test_bootstrap_resamples_unique_pairs_not_rows():
    # one pair seen 50 times and wrong, 50 pairs seen once and right: resampling unique pairs moves
    # the 50 duplicates together, so the interval is much wider than if rows were independent
    truth = ["major"] * 100
    pred = ["minor"] * 50 + ["major"] * 50
    groups = [("x", "y")] * 50 + [(str(k), "z") for k in range(50)]
    by_pair = label_agreement(truth, pred, groups, n_resamples=500)
    by_row = label_agreement(truth, pred, None, n_resamples=500)
    assert by_pair["accuracy"] == by_row["accuracy"] == 0.5
    width = lambda r: r["accuracy_ci"][1] - r["accuracy_ci"][0]  # noqa: E731
    assert width(by_pair) > 2 * width(by_row)  # duplicates move together: a much wider, honest interval


def test_grouped_folds_never_split_a_pair():
    rows = _shipped_rows()
    groups = [pair_of(r["ref"], r["hyp"]) for r in rows]
    keys = [(p.ref_text, p.hyp_text) for p in groups]
    folds = _grouped_folds(keys, 10, seed=0)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(rows)))
    seen: dict = {}
    for f, idx in enumerate(folds):
        for i in idx:
            assert seen.setdefault(keys[i], f) == f


def test_numpy_inference_matches_scikit_learn():
    from voxjudge.asr.laser.training import _fit, _vectorize

    rows = _shipped_rows()
    prep = _Prepared(rows, tiers_of(rows, RUBRIC, "x"), "hi", RUBRIC.conventions("hi"))
    fit = [i for i in range(len(rows)) if prep.learnable[i]]
    vocab, clf = _fit([prep.feats[i] for i in fit], [prep.tiers[i] for i in fit], (1.0, "none"))
    model = LinearModel("hi", tuple(clf.classes_), vocab, clf.coef_, clf.intercept_, {})
    ours = [c for c, _ in model.predict([prep.feats[i] for i in fit])]
    assert ours == list(clf.predict(_vectorize([prep.feats[i] for i in fit], vocab)))
    back = LinearModel.from_json(model.as_json(), "x")  # rounded weights, same decisions here
    assert [c for c, _ in back.predict([prep.feats[i] for i in fit])] == ours


def test_shipped_model_carries_licence_rubric_and_data_hashes():
    path = shipped_model_path("hi")
    model = load_model(path, RUBRIC)
    assert model.meta["rubric_sha256"] == RUBRIC.sha256
    assert "Amparulekar" in model.meta["notice"] and "MIT" in model.meta["notice"]
    for folder in (Path(path).parent, shipped_data_path().parent):
        assert "Copyright (c) 2025 Amparulekar" in (folder / "LICENSE-laser-metric.txt").read_text(encoding="utf-8")
    assert model.meta["training_pairs"] == 634


def test_a_model_under_another_rubric_is_refused(tmp_path):
    data = json.loads((Path(shipped_model_path("hi"))).read_text(encoding="utf-8"))
    data["rubric_sha256"] = "0000000000000000"
    other = tmp_path / "m.json"
    other.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="trained under rubric 0000000000000000, this run uses rubric"):
        load_model(other, RUBRIC)
    assert load_model(other, RUBRIC, allow_rubric_mismatch=True).lang == "hi"


@pytest.mark.parametrize(
    "ref, hyp, label",
    [
        ("ऊपर", "उपर", "no_penalty"),  # vowel length: an accepted spelling for these annotators
        ("होती है", "होती हैं", "minor"),  # an agreement slip inside a phrase
        ("फ़ोन", "फोन", "no_penalty"),  # nukta: settled by the rules
        ("खाते", "गाते", "major"),
        ("बाज़ार", "बाजार", "no_penalty"),
        ("दस", "10", "no_penalty"),
    ],
)
def test_default_judge_labels_with_reasons(ref, hyp, label):
    labeler, name = offline_labeler(None, RUBRIC)
    (got,) = labeler([("1", pair_of(ref, hyp), "hi")])
    assert got.label == label and got.reason and "learned" in name


def test_default_judge_leaves_other_languages_to_the_rules():
    labeler, _ = offline_labeler(None, RUBRIC)
    rules, _ = offline_labeler("rules", RUBRIC)
    items = [("1", pair_of("light", "lights"), "en"), ("2", pair_of("received", "recieved"), "en")]
    # the same tiers (no model involved)
    assert [(x.label, x.error_type) for x in labeler(items)] == [(x.label, x.error_type) for x in rules(items)]


@pytest.mark.slow
def test_training_reproduces_the_shipped_model_byte_for_byte():
    rows = _shipped_rows()
    from voxjudge.asr.laser.learned import file_sha256

    model = train(
        rows, tiers_of(rows, RUBRIC, "x"), RUBRIC, "hi", grid=GRID, data_sha256=file_sha256(shipped_data_path())
    )
    assert model.as_json() == Path(shipped_model_path("hi")).read_text(encoding="utf-8")
