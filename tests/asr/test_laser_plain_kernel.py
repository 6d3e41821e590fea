"""The compiled path for plain lines (``_plain.c``) against the Python path it stands in for.

Plain lines (ASCII letters, digits and spaces) are read by the compiled path; every
other line, and every plain line whose mismatches need the alignment programme or a swap, goes the
Python way. Both must give the same record bytes, the same figures and tally, and ask the judge for
the same pairs in the same order. The Python path (``VOXJUDGE_KERNEL=python``) is the reference;
``test_laser_stream.py`` holds both to ``scoring.score``.
"""

from __future__ import annotations

import json
import random

import pytest

from voxjudge.asr.laser import LaserOptions, plain_kernel, run_laser, stream
from voxjudge.asr.laser.record_json import string_json
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.stream import ChunkScorer, StreamSettings

RUBRIC = LaserRubric.load()
# fillers, a repetition's twin, false starts (nuc/nuclear, th/the), digits, short and long words
VOCAB = "the cat sat on a mat uh um hmm nuc nuclear th they 10 25 2024 going to gonna colour color sea see ate eight"


def test_the_compiled_path_is_built():
    # CI installs with a C compiler: a kernel that did not build (or was built from another
    # version of _plain.c: rebuild with pip install -e .) would leave every test below comparing
    # the Python path with itself
    assert plain_kernel.kernel_name() == "compiled", "voxjudge.asr.laser._plain is missing or stale: pip install -e ."


def _corpus(n: int, seed: int) -> list[tuple[str, str, str]]:
    """Plain lines with every kind of mismatch, and some lines that are not plain."""
    rng = random.Random(seed)
    words = VOCAB.split()
    rows = []
    for k in range(n):
        ref = rng.choices(words, k=rng.randint(0, 14))
        hyp = list(ref)
        for _ in range(rng.randint(0, 4)):
            at = rng.randrange(len(hyp) + 1)
            x = rng.random()
            if x < 0.25 and at < len(hyp):
                hyp[at] = rng.choice(words)  # one for one
            elif x < 0.35 and at + 1 < len(hyp):
                hyp[at], hyp[at + 1] = hyp[at + 1], hyp[at]  # a swap
            elif x < 0.5 and at < len(hyp):
                del hyp[at : at + rng.randint(1, 3)]  # one or several dropped
            elif x < 0.6 and at < len(hyp):
                hyp.insert(at, hyp[at])  # a repetition
            elif x < 0.7:
                hyp.insert(at, rng.choice(["uh", "um", "nuc", "th"]))  # a filler or a false start
            elif x < 0.8 and at < len(hyp):
                hyp[at : at + 1] = rng.choices(words, k=2)  # a stretch of two for one
            else:
                hyp[at:at] = rng.choices(words, k=rng.randint(1, 3))  # one or several added
        ref_text, hyp_text = " ".join(ref), " ".join(hyp)
        y = rng.random()
        if y < 0.05:
            hyp_text = "  " + hyp_text.replace(" ", "  ") + " "  # the same words, other spaces
        elif y < 0.12:  # capitals: keys are the lower case, a word that differs in case is a pair
            side = [w.upper() if rng.random() < 0.3 else w.capitalize() if rng.random() < 0.3 else w for w in hyp]
            hyp_text = " ".join(side)
            if rng.random() < 0.5:
                ref_text = ref_text.capitalize()
        elif y < 0.14:
            ref_text = ref_text + "."  # not plain: the Python way
        rows.append((f"u{k}", ref_text, hyp_text))
    return rows


def _scored(monkeypatch, rows, compiled: bool, chunk: int = 100, **settings):
    """Records, figures, scores, tally and the judge's requests, chunk by chunk, one way or the other."""
    if not compiled:
        monkeypatch.setattr(stream, "_plain_kernel", lambda: None)
    scorer = ChunkScorer(StreamSettings("default", RUBRIC, "en", **settings))
    asked, real = [], scorer.labeler

    def label(items):
        asked.append([(uid, p, lang) for uid, p, lang in items])
        return real(items)

    scorer.labeler = label
    got = {"records": [], "scores": [], "tally": []}
    for k in range(0, len(rows), chunk):
        out = scorer(rows[k : k + chunk])
        got["records"].append(b"".join(out.records))
        got["scores"].append(out.scores)
        got["tally"].append(out.tally)
    got["asked"] = asked
    monkeypatch.undo()
    return got, scorer


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_plain_lines_give_the_same_bytes_figures_and_requests(monkeypatch, seed):
    rows = _corpus(600, seed)
    want, _ = _scored(monkeypatch, rows, compiled=False, records=True, scores=True)
    got, scorer = _scored(monkeypatch, rows, compiled=True, records=True, scores=True)
    kernel = scorer.kernels["en"]
    taken = sum(kernel.align(uid, r, h, {}, {}) is not None for uid, r, h in rows)
    assert taken > len(rows) // 3  # the compiled path took a good share, the Python path the rest
    capitals = [(uid, r, h) for uid, r, h in rows if r != r.lower() or h != h.lower()]
    assert sum(kernel.align(uid, r, h, {}, {}) is not None for uid, r, h in capitals) > len(capitals) // 2
    assert got["records"] == want["records"]
    assert got["scores"] == want["scores"]
    assert got["tally"] == want["tally"]
    assert got["asked"] == want["asked"]


def test_lines_of_few_distinct_words_give_the_same_bytes(monkeypatch):
    # four words: stretches on both sides everywhere, swaps the alignment programme makes and
    # swaps of an insertion, a kept word and a deletion, repetitions beside them
    rng = random.Random(9)
    words = "x y z w x y uh X Y Uh".split()
    rows = [
        (f"u{k}", " ".join(rng.choices(words, k=rng.randint(1, 8))), " ".join(rng.choices(words, k=rng.randint(0, 8))))
        for k in range(1500)
    ]
    want, _ = _scored(monkeypatch, rows, compiled=False, records=True, scores=True)
    got, scorer = _scored(monkeypatch, rows, compiled=True, records=True, scores=True)
    assert got == want
    swaps = [p for requests in got["asked"] for _, p, _ in requests if p.op == "swap"]
    assert len(swaps) >= 3


def test_without_records_the_figures_are_the_same(monkeypatch):
    rows = _corpus(300, 5)
    want, _ = _scored(monkeypatch, rows, compiled=False, scores=True)
    got, _ = _scored(monkeypatch, rows, compiled=True, scores=True)
    assert got == want and got["records"] == [b""] * 3


def test_a_small_word_table_starts_again_without_changing_a_byte(monkeypatch):
    rows = _corpus(400, 6)
    want, _ = _scored(monkeypatch, rows, compiled=False, records=True)
    monkeypatch.setattr(stream, "MAX_TOKENS", 30)  # the kernel's table is cleared many times a chunk
    got, scorer = _scored(monkeypatch, rows, compiled=True, records=True)
    assert got == want


def test_long_lines_and_empty_sides_go_the_python_way(monkeypatch):
    rng = random.Random(7)
    words = VOCAB.split()
    long_ref = rng.choices(words, k=3000)
    long_hyp = [w if rng.random() < 0.9 else rng.choice(words) for w in long_ref]
    rows = [("long", " ".join(long_ref), " ".join(long_hyp)), ("empty-ref", "", "the cat")]
    rows += [("empty-hyp", "the cat", ""), ("blank", " ", " "), ("digits", "10 25", "10 2024")]
    want, _ = _scored(monkeypatch, rows, compiled=False, records=True)
    got, scorer = _scored(monkeypatch, rows, compiled=True, records=True)
    assert got == want
    kernel = scorer.kernels["en"]
    assert [kernel.align(uid, r, h, {}, {}) is None for uid, r, h in rows] == [True, True, False, True, False]


def test_a_whole_run_with_workers(tmp_path, monkeypatch):
    from voxjudge.asr.laser import parallel

    monkeypatch.setattr(parallel, "CHUNK", 80)
    ids, refs, hyps = zip(*_corpus(500, 8))
    runs = {}
    for name in ("python", "compiled"):
        if name == "python":
            monkeypatch.setenv("VOXJUDGE_KERNEL", "python")  # inherited by the forked workers
        else:
            monkeypatch.delenv("VOXJUDGE_KERNEL")
        out = tmp_path / f"{name}.jsonl"
        result = run_laser(refs, hyps, ids, options=LaserOptions(lang="en", jobs=2), out=out, keep_utterances=False)
        runs[name] = out.read_bytes(), json.dumps(result.summary, sort_keys=True)
    assert runs["compiled"] == runs["python"]


def test_the_workers_share_what_the_judge_loads(monkeypatch):
    from voxjudge.asr.laser import lexicon, parallel

    monkeypatch.setattr(parallel, "CHUNK", 100)
    lexicon._frequencies.cache_clear()
    rows = _corpus(300, 10)
    settings = StreamSettings("default", RUBRIC, "en", records=True)
    assert len(list(parallel.score_chunks(rows, settings, jobs=2, total=len(rows)))) == 3
    assert lexicon._frequencies.cache_info().currsize == 1  # loaded here, before the workers forked


def test_the_kernel_refuses_what_it_cannot_read():
    import struct

    scorer = ChunkScorer(StreamSettings("default", RUBRIC, "en", records=True))
    scorer([("u", "the cat", "the bat")])
    k = scorer.kernels["en"]
    with pytest.raises(TypeError):
        k.align("u", b"the cat", "the cat", {}, {})
    assert k.align("u", "the cät", "the cat", {}, {}) is None  # not ASCII: the Python way
    entry = k.align("u", "the cat", "the bat", scorer.labels, {})
    assert k.finish(entry, scorer.labels, [], [], None).startswith(b'{"id": "u"')
    # anything but an entry align made is refused before a byte is read
    bad = [
        (entry[0], b"\0\0", *entry[2:]),  # a blob too short
        (entry[0], struct.pack("<i", 10**9), *entry[2:]),  # items beyond the blob
        (entry[0], struct.pack("<6i", 3, 0, 0, 5, 0, 3), *entry[2:]),  # a run of 5 words, 1 word's span
        (entry[0], struct.pack("<6i", 3, 1, 1, 0, 10**8, 50), *entry[2:]),  # a span beyond the line
        (*entry[:4], "0.5", entry[5]),  # a WER that is not a float
        (*entry[:5], "thé cat"),  # a reference that is not ASCII
        (*entry[:2], ("x",), *entry[3:]),  # keys that are not a list
    ]
    for b in bad:
        with pytest.raises(ValueError, match="an entry that align"):
            k.finish(b, scorer.labels, [], [], None)
    with pytest.raises(TypeError):
        k.finish(("u",), {}, [], [], None)


def test_long_distinct_words_do_not_grow_the_word_table():
    scorer = ChunkScorer(StreamSettings("default", RUBRIC, "en", records=True))
    scorer([("u", "the cat", "the bat")])
    k = scorer.kernels["en"]
    counts = []
    for n in range(1200):  # 1,200 distinct words of 100 kB: 120 MB of words, over the table's 64 MiB
        word = f"{n:06d}" + "x" * 100_000
        assert k.align(f"u{n}", f"the {word}", f"the {word}", {}, {}) is not None
        counts.append(k.words())
    assert max(counts) <= 700  # at most 64 MiB of words kept
    assert any(b < a for a, b in zip(counts, counts[1:]))  # it started again


def test_a_region_that_gives_lists_is_a_type_error():
    import rapidfuzz

    scorer = ChunkScorer(StreamSettings("default", RUBRIC, "en", records=True))
    scorer([("u", "the cat", "the bat")])
    k = scorer.kernels["en"]

    def region(rs, hs, rk, hk, r0, h0):
        return [stream.RubricPair(list(rs), list(hs), "substitute", r0, h0)]

    settings = dict(editops=rapidfuzz.distance.Levenshtein.editops, pair_class=stream.RubricPair, fillers=frozenset())
    settings |= dict(lang="en", string=string_json, identical=(b"<", b"|", b">"), head_mid=b"")
    settings |= dict(laser_json=scorer.laser_json, region=region, wanted=True, records=True)
    other = type(k)(**settings, checked_pairs=1e6, max_words=4096, max_ids=300_000)
    with pytest.raises(TypeError, match="sides are not tuples"):
        other.align("u", "a b c d", "x y d", {}, {})


def test_the_kernel_is_not_reentered():
    import rapidfuzz

    kernel = stream._plain_kernel()
    scorer = ChunkScorer(StreamSettings("default", RUBRIC, "en", records=True))
    scorer([("u", "the cat", "the bat")])
    k = scorer.kernels["en"]
    real = scorer._region_of("en")
    seen = []

    def region(rs, hs, rk, hk, r0, h0):  # a callback that comes back into the kernel
        for call in (lambda: other.align("v", "a b", "a c", {}, {}), other.clear):
            with pytest.raises(RuntimeError, match="already aligning"):
                call()
        seen.append(rs)
        return real(rs, hs, rk, hk, r0, h0)

    settings = dict(editops=rapidfuzz.distance.Levenshtein.editops, pair_class=stream.RubricPair, fillers=frozenset())
    settings |= dict(lang="en", string=string_json, identical=(b"<", b"|", b">"), head_mid=b"")
    settings |= dict(laser_json=scorer.laser_json, region=region, wanted=True, records=True)
    other = type(k)(**settings, checked_pairs=1e6, max_words=4096, max_ids=300_000)
    assert other.align("u", "a b c d", "x y d", {}, {}) is not None and seen == [("a", "b", "c")]
    assert other.align("v", "a b", "a c", {}, {}) is not None  # usable again once it returned
    fresh = type(k).__new__(type(k))
    for call in (lambda: fresh.align("u", "a", "b", {}, {}), fresh.clear):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    assert kernel is not None
