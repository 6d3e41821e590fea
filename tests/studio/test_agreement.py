"""Agreement statistics against published values and statsmodels; gold, repeats and the metric view."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.studio.conftest import EXAMPLES
from tests.studio.helpers import work
from voxjudge.cli.main import main
from voxjudge.studio.admin import AdminView
from voxjudge.studio.agreement import LEVELS, _alpha, _fleiss, cohen_kappa
from voxjudge.studio.study import init_study, open_store

NAN = np.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 coders x 12 units example
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
)


def test_alpha_matches_the_published_example():
    assert _alpha(KRIPPENDORFF_2011, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert _alpha(KRIPPENDORFF_2011, "interval") == pytest.approx(0.849, abs=5e-4)


@pytest.mark.parametrize("seed", range(5))
def test_cohen_matches_statsmodels(seed):
    from statsmodels.stats.inter_rater import cohens_kappa, to_table

    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, 60).astype(float)
    y = np.where(rng.random(60) < 0.6, x, rng.integers(0, 4, 60)).astype(float)
    table, _ = to_table(np.column_stack([x, y]))
    assert cohen_kappa(x, y) == pytest.approx(cohens_kappa(table, return_results=False))
    assert cohen_kappa(x, y, weighted=True) == pytest.approx(cohens_kappa(table, wt="linear", return_results=False))
    assert cohen_kappa(x, x) == pytest.approx(1.0)


def test_fleiss_matches_statsmodels():
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    m = np.random.default_rng(1).integers(1, 6, (3, 40)).astype(float)
    assert _fleiss(m) == pytest.approx(fleiss_kappa(aggregate_raters(m.T.astype(int))[0]))


def test_levels_of_measurement():
    assert LEVELS["breaks"]["score"] == "ordinal"
    assert LEVELS["asr-pairs"]["error_type"] == "nominal"
    assert LEVELS["asr-sentence"]["laser"] == "interval"
    assert set(LEVELS["pairwise"].values()) == {"ordinal"}  # A < tie < B


def test_perfect_agreement_and_the_admin_summary(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "h001", "answer": {"score": 5}}\n{"id": "h002", "answer": {"score": 4}}\n')
    init_study(tmp_path / "s", "breaks", EXAMPLES / "breaks/hypotheses.tsv", per_item=2, gold=gold, repeats=2)
    store = open_store(tmp_path / "s")
    truth = {
        r.split("\t")[0]: int(r.split("\t")[1])
        for r in (EXAMPLES / "breaks/human.tsv").read_text().split("\n")[1:]
        if r
    }
    work(store, "a", lambda v: {"score": truth[v.item_id]})
    work(store, "b", lambda v: {"score": truth[v.item_id] if not v.is_repeat else 1 + truth[v.item_id] % 5})
    s = AdminView(store).summary()
    rows = {r["name"]: r for r in s["annotators"]}
    # gold items go to everyone, on top of the K=2 split; repeats come back once
    assert rows["a"]["gold"] == (sum(truth[i] == g for i, g in (("h001", 5), ("h002", 4))), 2)
    assert rows["a"]["consistency"] == (2, 2) and rows["b"]["consistency"] == (0, 2)
    (agr,) = s["agreement"]
    assert agr["alpha"] == pytest.approx(1.0) and agr["fleiss"] == pytest.approx(1.0)
    assert agr["n_items"] == 72


def test_metric_agreement_for_laser_and_pairwise(tmp_path, capsys):
    ref, hyp = EXAMPLES / "asr/hi/ref.txt", EXAMPLES / "asr/hi/sys_b.txt"
    out = tmp_path / "laser.jsonl"
    assert main(["asr", "score", "--ref", str(ref), "--hyp", str(hyp), "--ids", "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    laser = {json.loads(line)["id"]: json.loads(line)["laser"] for line in out.read_text().splitlines()}
    init_study(tmp_path / "s", "asr-sentence", ref, hyp=hyp, ids=True, per_item=1)
    store = open_store(tmp_path / "s")

    def counts(v):  # a human who finds exactly the rules judge's penalty, as major and minor errors
        penalty = (1 - laser[v.item_id]) * v.payload["ref_words"]
        major = int(penalty + 1e-9)
        return {"major": major, "minor": round((penalty - major) / 0.5), "no_penalty": 0}

    work(store, "a", counts)
    from voxjudge.studio.metric import read_metric

    s = AdminView(store, read_metric("asr-sentence", out)).summary()
    pearson = next(c for c in s["metric"]["correlations"] if c["method"] == "pearson")
    assert pearson["estimate"] == pytest.approx(1.0) and pearson["n"] == 50
    assert s["metric"]["svg"].startswith("<svg")

    pairs = EXAMPLES / "pairwise/pairs.jsonl"
    judged = tmp_path / "j.jsonl"
    assert main(["pairwise", "judge", "--pairs", str(pairs), "--out", str(judged), "--samples", "2"]) == 0
    init_study(tmp_path / "p", "pairwise", pairs, per_item=1)
    pstore = open_store(tmp_path / "p")
    work(pstore, "a", lambda v: {d: "first" for d in ("C1", "C2", "C3", "C4", "overall")})
    s = AdminView(pstore, read_metric("pairwise", judged)).summary()
    acc = s["metric"]["by_dimension"]
    assert acc["overall"]["n"] > 0 and 0 <= acc["overall"]["accuracy"] <= 1
