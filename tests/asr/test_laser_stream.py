"""The streamed LASER path against the plain one, byte for byte.

``scoring.score`` is the plain path -- every pair an object, aligned by ``rubric_align`` and
labelled by the judge one by one -- and stays the oracle: whatever the judge becomes, the
streamed path (cached keys and labels, identical words counted, runs of equal words, worker
processes) must write the same records and the same summary, for every output format.
"""

from __future__ import annotations

import json
import random

import pytest

from voxjudge import _spool
from voxjudge.asr.laser import LaserOptions, LaserRubric, run_laser
from voxjudge.asr.laser.judges import offline_labeler, people_model
from voxjudge.asr.laser.record_json import pair_json
from voxjudge.asr.laser.result import laser_result
from voxjudge.asr.laser.rules import Label
from voxjudge.asr.laser.run import decide_language
from voxjudge.asr.laser.scoring import ScoredPair, score
from voxjudge.io import pair_texts, read_texts
from voxjudge.io.writers import write_records

RUBRIC = LaserRubric.load()
WORDS = (
    "the cat sat on a mat every one everyone colour color ten 10 going to gonna closed close it's its The "
    "Cat, mat. don't dont - ... ! बाज़ार बाजार इसलिए इस लिए पाँच सौ 500 गई गया है हैं हिन्दी हिंदी"
).split()


def _reference(refs, hyps, ids, judge, lang, human=None):
    labeler, _ = offline_labeler(judge, RUBRIC)
    people = people_model(judge, None)
    lang, decided = decide_language(lang, zip(refs, hyps))  # once for the input, as run_laser does
    utterances = score(refs, hyps, ids, lang=lang, rubric=RUBRIC, labeler=labeler, people=people)
    settings = {"judge": judge, "mode": "pairs", "lang": lang, "lang_decided": decided, "engine": "local"}
    settings["embedder"] = "none"
    if judge != "rules":
        settings["calibration"] = "shipped (models/evidence.json)"
        settings["laser_calibrated_model"] = people.describe()
    return laser_result(utterances, RUBRIC, settings, {}, human=human, n_resamples=200)


ASCII_WORDS = "the cat sat on a mat every one everyone colour color ten 10 going to gonna The CAT it's don't".split()


def _random_corpus(n: int, seed: int, words=WORDS):
    """Utterances built to hit every path: case and punctuation, swaps, merges, insertions and
    deletions at the edges, punctuation-only tokens, empty references and hypotheses, repeats."""
    rng = random.Random(seed)
    refs, hyps = [], []
    for _ in range(n):
        ref = rng.choices(words, k=rng.randint(0, 12))
        hyp = list(ref)
        for _ in range(rng.randint(0, 4)):
            k = rng.randrange(len(hyp) + 1)
            x = rng.random()
            if x < 0.3 and k < len(hyp):
                hyp[k] = rng.choice(words)
            elif x < 0.45 and k + 1 < len(hyp):
                hyp[k], hyp[k + 1] = hyp[k + 1], hyp[k]
            elif x < 0.6 and k < len(hyp):
                del hyp[k]
            elif x < 0.75 and k < len(hyp):
                hyp[k] = hyp[k].upper() if rng.random() < 0.5 else hyp[k] + ","
            else:
                hyp.insert(k, rng.choice(words))
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps, [f"u{k}" for k in range(n)]


def _same(tmp_path, refs, hyps, ids, judge, lang, jobs, suffix=".jsonl", human=None):
    expected = _reference(refs, hyps, ids, judge, lang, human)
    want = tmp_path / f"want{suffix}"
    write_records(want, expected.records)
    got = tmp_path / f"got{suffix}"
    options = LaserOptions(lang=lang, jobs=jobs, n_resamples=200)
    result = run_laser(refs, hyps, ids, judge=judge, options=options, out=got, human=human, keep_utterances=False)
    assert got.read_bytes() == want.read_bytes()
    assert json.dumps(result.summary, sort_keys=True) == json.dumps(expected.summary, sort_keys=True)
    return result


@pytest.mark.parametrize("lang", ["hi", "en"])
@pytest.mark.parametrize("system", ["sys_a", "sys_b"])
def test_the_shipped_examples(tmp_path, examples, lang, system):
    folder = examples / "asr" / lang
    paired = pair_texts(read_texts(folder / "ref.txt", ids=True), read_texts(folder / f"{system}.txt", ids=True))
    human = None
    if (folder / "human_b.tsv").exists():
        from voxjudge.io.scores import read_scores

        human = read_scores(folder / "human_b.tsv")
    _same(tmp_path, paired.references, paired.hypotheses, paired.ids, "default", None, 1, human=human)


@pytest.mark.parametrize("judge", ["default", "rules"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_corpora_in_one_process(tmp_path, judge, seed):
    refs, hyps, ids = _random_corpus(300, seed)
    _same(tmp_path, refs, hyps, ids, judge, None if seed else "en", 1)


@pytest.mark.parametrize("seed", [0, 1])
def test_plain_ascii_lines_beside_others_give_the_same_bytes(tmp_path, seed):
    # lines of ASCII letters and digits skip the per-token lookups; the others in the same chunk
    # (case, punctuation, apostrophes) do not, and the WER bookkeeping they share must not drift
    refs, hyps, ids = _random_corpus(400, seed, ASCII_WORDS)
    assert any(r.replace(" ", "").isalnum() for r in refs) and any("," in h or "'" in h for h in hyps)
    _same(tmp_path, refs, hyps, ids, "default", "en", 1)


@pytest.mark.parametrize("suffix", [".json", ".csv", ".tsv"])
def test_every_record_format(tmp_path, suffix):
    refs, hyps, ids = _random_corpus(120, 7)
    _same(tmp_path, refs, hyps, ids, "default", None, 1, suffix=suffix)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_worker_processes_give_the_same_bytes_in_input_order(tmp_path, monkeypatch, suffix):
    from voxjudge.asr.laser import parallel

    monkeypatch.setattr(parallel, "CHUNK", 50)  # many chunks, several in flight at once
    refs, hyps, ids = _random_corpus(700, 3)
    _same(tmp_path, refs, hyps, ids, "default", None, 2, suffix=suffix)


@pytest.mark.skipif(not _spool.available(), reason="no memfd here")
def test_worker_records_come_back_through_memory_files(monkeypatch):
    """The workers' records are left in the memory files, not sent through the pipe (and each
    file is lent to one chunk at a time: all chunks' bytes arrive intact)."""
    from voxjudge.asr.laser import parallel, stream

    monkeypatch.setattr(parallel, "CHUNK", 40)
    refs, hyps, ids = _random_corpus(600, 5)
    settings = stream.StreamSettings("default", RUBRIC, "en", records=True)
    plain = b"".join(p for c in parallel.score_chunks(list(zip(ids, refs, hyps)), settings, jobs=1) for p in c.records)
    got = []
    for chunk in parallel.score_chunks(list(zip(ids, refs, hyps)), settings, jobs=2, total=len(ids)):
        assert chunk.records == [] and chunk.spooled is not None
        got.append(_spool.read(*chunk.spooled))
    assert len(got) == 15 and b"".join(got) == plain


def test_the_judge_is_asked_once_per_unique_pair(monkeypatch):
    from voxjudge.asr.laser import judges

    asked = []
    real = judges.offline_labeler

    def counting(spec, rubric, **kw):
        labeler, name = real(spec, rubric, **kw)

        def label(items):
            asked.extend(items)
            return labeler(items)

        return label, name

    monkeypatch.setattr(judges, "offline_labeler", counting)
    refs = ["the cat sat on the mat"] * 500 + ["a dog ran"] * 500
    hyps = ["the bat sat on the mat"] * 500 + ["a dog ran"] * 500
    result = run_laser(refs, hyps, options=LaserOptions(lang="en", jobs=1), keep_utterances=False)
    pairs = [(p.ref, p.hyp, p.op) for _, p, _ in asked]
    # one probe for identical words, then the one mismatch, for 4,500 pairs (hand-counted below)
    assert pairs.count((("cat",), ("bat",), "substitute")) == 1 and len(pairs) == 2
    assert result.summary["labels"] == {"match": 4000, "no_penalty": 0, "minor": 0, "major": 500}


def test_bounded_caches_start_again_without_changing_a_byte(tmp_path, monkeypatch):
    from voxjudge.asr.laser import parallel, stream

    monkeypatch.setattr(parallel, "CHUNK", 40)
    monkeypatch.setattr(stream, "MAX_LABELS", 5)  # cleared between almost every chunk
    monkeypatch.setattr(stream, "MAX_TOKENS", 12)
    refs, hyps, ids = _random_corpus(400, 11)
    _same(tmp_path, refs, hyps, ids, "default", None, 1)


@pytest.mark.parametrize(
    "ref, hyp, op, label",
    [
        ("cat", "cat", "equal", Label("match", None, "identical")),
        ('Ĉat"', "ca\\t", "substitute", Label("major", "wrong_word", 'sound 50% alike /kæt/ ~ /kæ"t/', True)),
        ("इस लिए", "इसलिए", "merge", Label("no_penalty", "compound_word", "joined")),
        ("", "um", "insert", Label("minor", "filler", "a filler (um), added")),
    ],
)
def test_a_pair_record_is_written_as_json_dumps_writes_it(ref, hyp, op, label):
    for penalty in (0.0, 0.5, 1.0009765625, RUBRIC.pair_penalty(label)):
        expected = json.dumps(
            ScoredPair(ref, hyp, op, label.label, label.error_type, label.reason, penalty, label.disputed).as_dict(),
            ensure_ascii=False,
        )
        assert pair_json(ref, hyp, op, label, penalty) == expected


@pytest.mark.skipif(not _spool.available(), reason="no memfd here")
def test_results_kept_for_later_still_hold_their_records(monkeypatch):
    """A caller that gathers the chunks and writes them afterwards (or stops early) gets every
    record: a memory file is lent again only once its records are written or read back."""
    from voxjudge.asr.laser import parallel, stream

    monkeypatch.setattr(parallel, "CHUNK", 40)
    refs, hyps, ids = _random_corpus(400, 6)
    rows = list(zip(ids, refs, hyps))
    settings = stream.StreamSettings("default", RUBRIC, "en", records=True)
    plain = [b"".join(c.records) for c in parallel.score_chunks(rows, settings, jobs=1)]
    kept = list(parallel.score_chunks(rows, settings, jobs=2, total=len(rows)))
    assert all(c.spooled is None for c in kept)
    assert [b"".join(c.records) for c in kept] == plain
    chunks = parallel.score_chunks(rows, settings, jobs=2, total=len(rows))
    first, second = next(chunks), next(chunks)
    chunks.close()  # stopped early: the last one handed out is read back too
    assert [b"".join(first.records), b"".join(second.records)] == plain[:2]


def test_no_more_workers_start_than_there_are_chunks(monkeypatch):
    """--jobs 8 on three chunks forked eight processes, five of which only started and stopped."""
    from voxjudge.asr.laser import parallel, stream

    started = []

    class Counted(parallel.ForkedWorkers):
        def __init__(self, ctx, jobs, *args):
            started.append(jobs)
            super().__init__(ctx, jobs, *args)

    monkeypatch.setattr(parallel, "ForkedWorkers", Counted)
    monkeypatch.setattr(parallel, "CHUNK", 40)
    refs, hyps, ids = _random_corpus(101, 7)
    rows = list(zip(ids, refs, hyps))
    settings = stream.StreamSettings("default", RUBRIC, "en", records=True)
    plain = [b"".join(c.records) for c in parallel.score_chunks(rows, settings, jobs=1)]
    got = [
        _spool.read(*c.spooled) if c.spooled else b"".join(c.records)
        for c in parallel.score_chunks(rows, settings, jobs=8, total=len(rows))
    ]
    assert started == [3]
    assert got == plain


def test_conventions_pickle_without_their_cached_hash():
    import pickle

    from voxjudge.asr.laser.conventions import conventions_for

    conv = conventions_for("hi")
    hash(conv)
    copy = pickle.loads(pickle.dumps(conv))
    assert "_hash" not in copy.__dict__ and copy == conv and hash(copy) == hash(conv)


def test_rubric_pair_init_sets_every_field():
    """RubricPair's hand-written __init__ (speed) must name every field the dataclass has."""
    import dataclasses
    import inspect

    from voxjudge.asr.laser.align import RubricPair

    params = list(inspect.signature(RubricPair.__init__).parameters)[1:]
    assert params == [f.name for f in dataclasses.fields(RubricPair)]
    p = RubricPair(("a",), ("b",), "substitute", 1, 2, "filler")
    assert dataclasses.astuple(p) == (("a",), ("b",), "substitute", 1, 2, "filler")


def _gapped_corpus(n: int, seed: int):
    """Stretches of two to four words on one side only (at the start, the middle, the end), lines
    that are all lower case, all digits or mixed case: the shortcuts of ``ChunkScorer`` for them."""
    rng = random.Random(seed)
    words = ASCII_WORDS + ["10", "25", "uh", "um", "going", "go"]
    refs, hyps = [], []
    for _ in range(n):
        ref = rng.choices(words, k=rng.randint(0, 10))
        hyp = list(ref)
        k = rng.randint(0, len(hyp))
        run = rng.choices(words, k=rng.randint(2, 4))
        if rng.random() < 0.5:
            hyp[k:k] = run
        else:
            del hyp[k : k + len(run)]
        if rng.random() < 0.2:
            ref, hyp = [w for w in ref if w.isdigit()] or ["10"], [w for w in hyp if w.isdigit()]
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp))
    return refs, hyps, [f"u{k}" for k in range(n)]


@pytest.mark.parametrize("seed", [0, 1])
def test_one_sided_stretches_and_lower_case_lines_give_the_same_bytes(tmp_path, seed):
    refs, hyps, ids = _gapped_corpus(400, seed)
    assert any(r.islower() for r in refs) and any(r and r.replace(" ", "").isdigit() for r in refs)
    _same(tmp_path, refs, hyps, ids, "default", "en", 1)


def test_the_edit_script_counts_as_the_opcodes_do(monkeypatch):
    """``_script``: rapidfuzz's edit operations counted, or (a long line) its opcodes' edits summed."""
    from voxjudge.asr import longform
    from voxjudge.asr.laser.stream import _script

    rng = random.Random(4)
    for _ in range(3000):
        a = rng.choices(WORDS[:12], k=rng.randint(0, 14))
        b = [w for w in a if rng.random() < 0.8] + rng.choices(WORDS[:14], k=rng.randint(0, 3))
        if rng.random() < 0.2:
            rng.shuffle(b)
        ops, edits = _script(a, b)
        assert ops == longform.opcodes(a, b)
        assert edits == sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
        monkeypatch.setattr(longform, "FORK_PAIRS", 0)  # the long way
        assert _script(a, b) == (ops, edits)
        monkeypatch.undo()
