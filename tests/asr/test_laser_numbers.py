"""LASER conventions for values written with digits (percentages, money, units, times, ordinals,
dates), contractions as their own type, and the language decided once per input."""

from __future__ import annotations

import json
import random

import pytest

from voxjudge.asr.laser import LaserRubric
from voxjudge.asr.laser.align import rubric_align
from voxjudge.asr.laser.judges import offline_labeler, people_model
from voxjudge.asr.laser.profiles import explain
from voxjudge.asr.laser.quantities import quantities_equal
from voxjudge.asr.laser.quantity_written import parse_written
from voxjudge.asr.laser.result import laser_result
from voxjudge.asr.laser.rules import classify_words, equivalent
from voxjudge.asr.laser.run import LaserOptions, decide_language, run_laser
from voxjudge.asr.laser.scoring import score
from voxjudge.io.writers import write_records

RUBRIC = LaserRubric.load()

SAME_VALUE = [
    ("en", "fifteen percent", "15%"),
    ("en", "fifteen per cent", "15%"),
    ("en", "five dollars", "$5"),
    ("en", "twenty five dollars fifty cents", "$25.50"),
    ("en", "half past three", "3:30"),
    ("en", "three thirty", "3:30"),
    ("en", "quarter to four", "3:45"),
    ("en", "three o'clock", "3:00"),
    ("en", "three thirty pm", "3:30pm"),
    ("en", "the third", "3rd"),
    ("en", "twenty first", "21st"),
    ("en", "five kilometres", "5km"),
    ("en", "three point five percent", "3.5%"),
    ("en", "the twelfth of may twenty twenty four", "12/05/2024"),
    ("en", "may twelfth twenty twenty four", "5/12/2024"),
    ("en", "third", "3"),  # 'May 3' read 'May third'
    ("fr", "quinze pour cent", "15%"),
    ("fr", "cinq euros", "5€"),
    ("fr", "quinze heures trente", "15h30"),
    ("fr", "trois heures et demie", "3h30"),
    ("fr", "troisième", "3e"),
    ("fr", "premier", "1er"),
    ("fr", "vingt et un", "21"),  # num2words: indic-numtowords has no French
    ("hi", "पंद्रह प्रतिशत", "15%"),
    ("hi", "पाँच सौ रुपये", "₹500"),
    ("hi", "साढ़े तीन बजे", "3:30"),
    ("hi", "ढाई बजे", "2:30"),
    ("hi", "पौने चार", "3:45"),
    ("hi", "तीसरा", "3rd"),
    ("hi", "पाँच किलोमीटर", "5km"),
    ("mr", "साडे तीन", "3:30"),
    ("ar", "خمسة عشر بالمئة", "15%"),
    ("de", "fünfzehn prozent", "15%"),
]


@pytest.mark.parametrize("lang, said, written", SAME_VALUE)
def test_the_same_value_said_in_words_is_no_penalty_either_way_round(lang, said, written):
    spoken, digits = tuple(said.split()), tuple(written.split()[:1])
    for ref, hyp in ((spoken, digits), (digits, spoken)):
        got = classify_words(ref, hyp, lang)
        assert (got.label, got.error_type) == ("no_penalty", "numerical_phrase"), (ref, hyp, got)
        assert "same" in got.reason


@pytest.mark.parametrize(
    "lang, ref, hyp, reason",
    [
        ("en", "fifteen percent", "16%", "a different value: fifteen percent (percent 15) against percent 16"),
        ("en", "15%", "16%", "a different value: percent 15 against percent 16"),
        ("en", "five dollars", "$6", "a different value: five dollars (currency 5) against $6"),
        ("en", "$5", "$6", "a different value: $5 against $6"),
        ("en", "fourth", "3rd", "a different value: fourth (ordinal 4) against ordinal 3"),
        ("en", "3:30", "3:40", "a different value: 3:30 against 3:40"),
        ("en", "fifteen", "16", "a different value: fifteen (number 15) against number 16"),
        ("en", "five kilometres", "6km", "a different value: five kilometres (unit 5) against 6 km"),
        ("hi", "सोलह प्रतिशत", "15%", "a different value: सोलह प्रतिशत (percent 16) against percent 15"),
    ],
)
def test_another_value_of_the_same_kind_is_major_and_the_reason_names_both(lang, ref, hyp, reason):
    got = classify_words(tuple(ref.split()), tuple(hyp.split()), lang)
    assert (got.label, got.error_type, got.reason) == ("major", "wrong_word", reason)


def test_the_parser_reads_each_kind_and_leaves_words_alone():
    assert parse_written("15%", "en").describe() == "percent 15"
    assert parse_written("$1,250.5", "en").describe() == "$1250.50"
    assert parse_written("Rs.500", "hi").describe() == "₹500"
    assert parse_written("15:45", "fr").describe() == "15:45"
    assert parse_written("2024-05-12", "en").describe() == "12/5/2024"
    assert parse_written("१५%", "hi").describe() == "percent 15"  # Devanagari digits
    assert parse_written("1,5", "fr").describe() == "decimal 1.5"  # a French decimal comma
    for word in ("percent", "dollars", "third", "Smith", "3d-printer"):
        assert parse_written(word, "en") is None
    assert quantities_equal(("fifteen", "percent"), ("15",), "en") is None  # the percent is lost: not equal


def test_the_aligner_merges_a_spoken_value_onto_its_written_token():
    eq = equivalent("en")
    pairs = rubric_align(
        "it rose by one hundred twenty five dollars today".split(), "it rose by $125 today".split(), eq
    )
    merged = [p for p in pairs if p.op == "merge"]
    assert [(p.ref_text, p.hyp_text) for p in merged] == [("one hundred twenty five dollars", "$125")]
    # another value: one wrong value, not a wrong word and an omission
    pairs = rubric_align("up fifteen percent".split(), "up 16%".split(), eq)
    assert [(p.ref_text, p.hyp_text, p.op) for p in pairs if p.op != "equal"] == [("fifteen percent", "16%", "merge")]


@pytest.mark.parametrize("judge", ["rules", "default"])
def test_scores_of_whole_utterances(judge):
    refs = [
        "it rose fifteen percent",
        "it costs five dollars",
        "we meet at half past three",
        "i do not know what it is",
        "up fifteen percent",
    ]
    hyps = ["it rose 15%", "it costs $5", "we meet at 3:30", "i don't know what it's", "up 16%"]
    result = run_laser(refs, hyps, judge=judge, options=LaserOptions(jobs=1))
    assert [u.laser for u in result.utterances][:4] == [1.0, 1.0, 1.0, 1.0]
    last = result.utterances[4]
    assert [(p.ref, p.hyp, p.label) for p in last.pairs if p.op != "equal"] == [("fifteen percent", "16%", "major")]
    assert last.penalty == pytest.approx(1.0, abs=0.05)  # one major (plus the graded tie-break)
    types = result.summary["error_types"]
    assert types["numerical_phrase"]["count"] == 3 and types["contraction"]["count"] == 2
    assert "slang_colloquial" not in types


@pytest.mark.parametrize(
    "lang, ref, hyp, label, etype",
    [
        ("en", "do not", "don't", "no_penalty", "contraction"),
        ("en", "it is", "it's", "no_penalty", "contraction"),
        ("en", "cannot", "can't", "no_penalty", "contraction"),
        ("en", "will not", "won't", "no_penalty", "contraction"),
        ("en", "should not", "shouldn’t", "no_penalty", "contraction"),  # a typographic apostrophe
        ("en", "they are", "they're", "no_penalty", "contraction"),
        ("en", "going to", "gonna", "no_penalty", "slang_colloquial"),
        ("fr", "je ai", "j'ai", "no_penalty", "contraction"),
        ("fr", "le homme", "l'homme", "no_penalty", "contraction"),
    ],
)
def test_contractions_are_their_own_type(lang, ref, hyp, label, etype):
    got = classify_words(tuple(ref.split()), tuple(hyp.split()), lang)
    assert (got.label, got.error_type) == (label, etype)


def test_a_possessive_is_no_contraction():
    got = classify_words(("John", "is"), ("John's",), "en")
    assert got.error_type != "contraction" and got.label != "no_penalty"


def test_the_language_is_decided_once_for_the_input():
    refs = ["doctor smith", "the patient is waiting in the room", "we will see him at noon"]
    hyps = ["Dr. Smith", "the patient is waiting in the room", "we will see him at noon"]
    result = run_laser(refs, hyps, judge="rules", options=LaserOptions(jobs=1))
    assert [u.lang for u in result.utterances] == ["en", "en", "en"]
    assert result.summary["lang"] == "en"
    assert result.summary["lang_decided"].startswith("detected from the file (all 3 utterances): Latin script")
    first = result.utterances[0].pairs[0]
    assert (first.ref, first.hyp, first.label, first.error_type) == ("doctor", "Dr.", "no_penalty", "abbreviation")
    given = run_laser(refs, hyps, judge="rules", options=LaserOptions(lang="fr", jobs=1))
    assert given.summary["lang_decided"] == "given" and {u.lang for u in given.utterances} == {"fr"}


def test_a_short_english_line_alone_is_english_by_its_words_not_und():
    lang, how = decide_language(None, [("u1", "doctor smith", "Dr. Smith")])
    assert lang == "en" and "no function word" in how and "its one utterance" in how
    assert explain("xq zzv")[0] == "und"  # no language knows most of its words: still the generic profile


def test_a_latin_line_in_a_hindi_file_keeps_the_hindi_conventions():
    refs = ["मैं घर गया", "वह बाज़ार गई", "OK", "हम कल आएंगे"]
    hyps = ["मैं घर गया", "वह बाजार गई", "ok", "हम कल आएंगे"]
    result = run_laser(refs, hyps, judge="rules", options=LaserOptions(jobs=1))
    assert {u.lang for u in result.utterances} == {"hi"} and result.summary["lang"] == "hi"


def test_the_command_line_says_the_language_and_how(tmp_path, capsys):
    from voxjudge.cli.main import main

    (tmp_path / "r.txt").write_text("u1 doctor smith\nu2 it rose fifteen percent\n", encoding="utf-8")
    (tmp_path / "h.txt").write_text("u1 Dr. Smith\nu2 it rose 15%\n", encoding="utf-8")
    argv = ["asr", "score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "h.txt"), "--ids", "--jobs", "1"]
    assert main([*argv, "--judge", "rules", "--out", str(tmp_path / "o.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "language: en, detected from the file (all 2 utterances)" in out
    records = [json.loads(line) for line in (tmp_path / "o.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["lang"] for r in records] == ["en", "en"] and [r["laser"] for r in records] == [1.0, 1.0]
    assert main([*argv, "--judge", "rules", "--lang", "en", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["lang_decided"] == "given"
    assert main([*argv, "--judge", "rules", "--lang", "en"]) == 0
    assert "language: en, given (--lang)" in capsys.readouterr().out


WORDS = (
    "it rose fifteen percent 15% 16% five dollars $5 $6 half past three 3:30 3:45 the third 3rd 4th do not "
    "don't it is it's can't cannot twenty five 25 km 5km five kilometres 12/05/2024 may twelfth"
).split()


def _corpus(n: int, seed: int):
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        ref = rng.choices(WORDS, k=rng.randint(1, 10))
        hyp = list(ref)
        for _ in range(rng.randint(0, 3)):
            k = rng.randrange(len(hyp) + 1)
            if rng.random() < 0.5 and k < len(hyp):
                hyp[k] = rng.choice(WORDS)
            elif k < len(hyp):
                del hyp[k]
            else:
                hyp.insert(k, rng.choice(WORDS))
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps, [f"u{k}" for k in range(n)]


@pytest.mark.parametrize("judge", ["default", "rules"])
def test_values_and_contractions_give_the_same_bytes_for_any_jobs_and_the_plain_path(tmp_path, monkeypatch, judge):
    from voxjudge.asr.laser import parallel

    monkeypatch.setattr(parallel, "CHUNK", 60)
    refs, hyps, ids = _corpus(300, 5)
    labeler, _ = offline_labeler(judge, RUBRIC)
    lang, decided = decide_language(None, zip(refs, hyps))
    utterances = score(refs, hyps, ids, lang=lang, rubric=RUBRIC, labeler=labeler, people=people_model(judge, None))
    want = tmp_path / "want.jsonl"
    write_records(want, laser_result(utterances, RUBRIC, {"judge": judge, "embedder": "none"}).records)
    for jobs in (1, 2):
        got = tmp_path / f"got{jobs}.jsonl"
        run_laser(refs, hyps, ids, judge=judge, options=LaserOptions(jobs=jobs), out=got, keep_utterances=False)
        assert got.read_bytes() == want.read_bytes()
    assert "numerical_phrase" in want.read_text(encoding="utf-8")
    assert decided.startswith("detected from the file")


def test_the_judge_card_scores_each_lang_of_a_lang_column_in_it():
    from voxjudge.asr.judge_card_laser import laser_scorer

    refs = ["the cat sat on the mat", "il fait beau", "doctor smith"]
    hyps = ["the cat sat on a mat", "il fait beau", "Dr. Smith"]
    run = laser_scorer(LaserOptions(jobs=1))
    values, details = run("rules", refs, hyps, langs=["en", "fr", None])
    alone = [
        run_laser([r], [h], judge="rules", options=LaserOptions(lang=c, jobs=1)).utterances[0].laser
        for r, h, c in zip(refs, hyps, ["en", "fr", "en"])
    ]
    assert values == alone
    assert set(details["by_lang"]) == {"en (lang column; 1 text)", "fr (lang column; 1 text)", "en (detected; 1 text)"}
    assert details["by_lang"]["en (detected; 1 text)"]["lang_decided"].startswith("detected from the file")


def test_classify_decides_the_language_once_for_a_pairs_file_without_a_lang_column(tmp_path, capsys):
    import csv
    import io

    from voxjudge.cli.main import main

    path = tmp_path / "pairs.tsv"
    path.write_text("ref\thyp\ndoctor\tDr.\nthe cat\tthe cat\nit is\tit's\nfifteen percent\t15%\n", encoding="utf-8")
    assert main(["asr", "classify", str(path), "--judge", "rules"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    # 'doctor'/'Dr.' alone says no language; the file's function words say English
    assert [(r["label"], r["error_type"]) for r in rows] == [
        ("no_penalty", "abbreviation"),
        ("match", ""),
        ("no_penalty", "contraction"),
        ("no_penalty", "numerical_phrase"),
    ]
