"""``asr judge-card`` with few groups: a figure over one group has no interval (a bootstrap of
one group redraws it every time), and a difference is marked ! only on enough *groups*
(references), not on enough triplets."""

from __future__ import annotations

import json

from voxjudge.cli.main import main


def _preferences(tmp_path, n_refs: int, per_ref: int):
    """Each reference's hypothesis A is one letter off, B a whole other word: WER ties them (one
    substituted word each), CER prefers A, as everyone did."""
    refs = ["the cat sat down", "a dog ran home", "we went to town", "she sang a song", "he read the book"]
    lines = ["reference\thyp_a\tvotes_a\thyp_b\tvotes_b"]
    for ref in refs[:n_refs]:
        words = ref.split()
        for k in range(per_ref):
            a = words.copy()
            a[k % len(words)] = a[k % len(words)][:-1]  # one character dropped
            b = words.copy()
            b[k % len(words)] = "zzzzzzzz"
            lines.append(f"{ref}\t{' '.join(a)}\t7\t{' '.join(b)}\t0")
    path = tmp_path / "prefs.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def _card(capsys, path, *extra):
    code = main(["asr", "judge-card", "--preferences", path, "--judge", "rules", "--resamples", "300", *extra])
    return code, capsys.readouterr().out


def test_no_mark_on_fewer_than_ten_references_however_many_triplets(tmp_path, capsys):
    path = _preferences(tmp_path, n_refs=3, per_ref=5)  # 15 triplets of 3 references
    code, out = _card(capsys, path)
    assert code == 0
    cer_wer = next(line for line in out.splitlines() if line.startswith("│ (1 - CER) - (1 - WER)"))
    assert "+100.0" in cer_wer
    assert "!" not in cer_wer
    code, out = _card(capsys, path, "--json")
    diffs = json.loads(out)["preferences"]["differences"]
    assert {d["groups"] for d in diffs} == {3}


def test_one_reference_has_no_interval(tmp_path, capsys):
    path = _preferences(tmp_path, n_refs=1, per_ref=4)
    code, out = _card(capsys, path)
    assert code == 0
    assert "[100.0, 100.0]" not in out and "[+0.0, +0.0]" not in out
    assert "no CI" in out
    code, out = _card(capsys, path, "--json")
    s = json.loads(out)["preferences"]
    cells = [c for cells in s["by_metric"].values() for c in cells]
    assert all(c["ci_low"] is None and c["ci_high"] is None and c["groups"] == 1 for c in cells)
    assert all(d["ci_low"] is None and d["p_value"] is None for d in s["differences"])


def test_ratings_of_one_utterance_have_no_interval(examples, tmp_path, capsys):
    rows = (examples / "human" / "ratings_sample.csv").read_text(encoding="utf-8").splitlines()
    header, body = rows[0], rows[1:]
    utterance = body[0].split(",")[2]
    one = [r for r in body if r.split(",")[2] == utterance]
    assert len(one) == 4
    path = tmp_path / "one.csv"
    path.write_text("\n".join([header, *one]) + "\n", encoding="utf-8")
    code = main(["asr", "judge-card", "--ratings", str(path), "--judge", "rules", "--resamples", "300"])
    out = capsys.readouterr().out
    assert code == 0
    assert "1 utterance," in out and "no CI" in out
    ratings_col = [line.rsplit("│", 2)[-2].strip() for line in out.splitlines() if line.startswith("│ 1 - WER")]
    assert ratings_col and "[" not in ratings_col[0]


def test_no_one_group_note_for_levels_with_no_triplet(tmp_path, capsys):
    """Levels with no triplet (votes split 4 to 3: none unanimous, none at 70%) have 0 groups, not 1:
    the note about a figure over one group is not theirs."""
    path = _preferences(tmp_path, n_refs=5, per_ref=2)
    text = open(path, encoding="utf-8").read().replace("\t7\t", "\t4\t").replace("\t0\n", "\t3\n")
    open(path, "w", encoding="utf-8").write(text)
    code, out = _card(capsys, path)
    assert code == 0 and "has no CI" not in out
    code, out = _card(capsys, _preferences(tmp_path, n_refs=1, per_ref=3))
    assert code == 0 and "a figure over one group has no CI" in out
