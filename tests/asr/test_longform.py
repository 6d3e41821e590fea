"""Long lines (``asr.longform``): the interruptible path gives rapidfuzz's own edit scripts (and so
jiwer's counts), a line over the limit is refused before any counting, and Ctrl-C stops a long
alignment at once."""

from __future__ import annotations

import os
import pickle
import random
import signal
import threading
import time

import jiwer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from voxjudge.asr import counting, longform
from voxjudge.asr.alignment import align_tokens
from voxjudge.asr.laser.align import check_region, rubric_align
from voxjudge.asr.measures import compute_metrics
from voxjudge.errors import InputError

tokens = st.lists(st.sampled_from(["a", "b", "c", "d", "ab", "é"]), max_size=40)


def _first_seen(a, b):
    """Today's ids (and jiwer's): in order of first appearance."""
    vocab: dict = {}
    return [vocab.setdefault(t, len(vocab)) for t in a], [vocab.setdefault(t, len(vocab)) for t in b]


@pytest.fixture
def forked(monkeypatch):
    """Every alignment through the long path (ranked ids, a forked child)."""
    monkeypatch.setattr(longform, "FORK_PAIRS", -1)


@settings(max_examples=30, deadline=None)
@given(a=tokens, b=tokens)
def test_long_path_is_rapidfuzz_script(a, b):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(longform, "FORK_PAIRS", -1)
        ia, ib = _first_seen(a, b)
        assert longform.opcodes(a, b) == Levenshtein.opcodes(ia, ib).as_list()
        assert longform.editops(a, b) == Levenshtein.editops(ia, ib)
        assert longform.distance(a, b) == Levenshtein.distance(ia, ib)


def _zipf_pair(n: int, seed: int, edits: float = 0.15) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(2000)]
    weights = [1 / (k + 1) for k in range(2000)]
    ref = rng.choices(vocab, weights=weights, k=n)
    hyp = list(ref)
    for _ in range(int(n * edits)):
        k, x = rng.randrange(len(hyp)), rng.random()
        if x < 0.5:
            hyp[k] = rng.choices(vocab, weights=weights)[0]
        elif x < 0.75:
            del hyp[k]
        else:
            hyp.insert(k, rng.choices(vocab, weights=weights)[0])
    return ref, hyp


@pytest.mark.parametrize("seed", range(3))
def test_long_pairs_identical_to_today_and_jiwer(seed):
    """Pairs large enough for rapidfuzz's Hirschberg splitting: ranked ids give the same script."""
    ref, hyp = _zipf_pair(6000 + 1000 * seed, seed)
    assert longform.is_long(ref, hyp) or longform.FORK_PAIRS > len(ref) * len(hyp)
    ia, ib = _first_seen(ref, hyp)
    expected = Levenshtein.opcodes(ia, ib).as_list()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(longform, "FORK_PAIRS", -1)
        assert longform.opcodes(ref, hyp) == expected
        chunks = align_tokens(ref, hyp)
    assert [(c.ref_start, c.ref_end, c.hyp_start, c.hyp_end) for c in chunks] == [op[1:] for op in expected]
    out = jiwer.process_words(" ".join(ref), " ".join(hyp))
    counts = compute_metrics([" ".join(ref)], [" ".join(hyp)], units=("word",)).per_utterance()[0]
    assert (counts["hits"], counts["substitutions"], counts["deletions"], counts["insertions"]) == (
        out.hits,
        out.substitutions,
        out.deletions,
        out.insertions,
    )


def test_sliced_and_forked_counting_equals_the_plain_pass(monkeypatch):
    """Chunks counted in slices, long pairs in a child: per-utterance rows and totals unchanged."""
    rng = random.Random(5)
    refs, hyps = [], []
    for k in range(40):
        r, h = _zipf_pair(rng.randint(0, 300), k)
        refs.append(" ".join(r))
        hyps.append(" ".join(h) if k % 7 else " ".join(r))
    plain = compute_metrics(refs, hyps).per_utterance()
    plain_totals = compute_metrics(refs, hyps, per_utterance=False).summary()
    monkeypatch.setattr(counting, "SLICE_PAIRS", 50_000)
    monkeypatch.setattr(longform, "FORK_PAIRS", 20_000)
    assert compute_metrics(refs, hyps).per_utterance() == plain
    assert compute_metrics(refs, hyps, per_utterance=False).summary() == plain_totals


def test_line_over_the_limit_is_refused_before_counting(monkeypatch):
    ref, hyp = _zipf_pair(3000, 1)
    calls = []
    monkeypatch.setattr(counting, "_count_pairs", lambda *a: calls.append(a))
    with longform.limit(1e-6), pytest.raises(longform.LineTooLong) as e:
        compute_metrics(["a b", " ".join(ref)], ["a c", " ".join(hyp)], ids=["short", "long-1"])
    assert not calls  # nothing counted, not even the short line before it
    message = str(e.value)
    assert "utterance long-1 is too long to align" in message and "3,000 reference x" in message
    assert "split it into shorter lines" in message and "MB" in message
    assert e.value.worded({"max_align_minutes": "--max-align-minutes"}).endswith("raise --max-align-minutes")
    assert isinstance(e.value, InputError)


def test_limit_none_and_estimates():
    ref, hyp = _zipf_pair(3000, 2)
    with longform.limit(0):  # 0: no limit
        assert compute_metrics([" ".join(ref)], [" ".join(hyp)]).summary()["wer"] > 0
    seconds, mb = longform.estimate(1_000_000, 1_000_000, "word")
    assert seconds == 1e12 / longform.PAIRS_PER_SECOND["word"] and mb > 0
    # the default lets a 1M-word line through and refuses a 2.88M-word one (issue 33's)
    longform.check(range(1_000_000), range(1, 1_000_001), "word", "line 1")
    with pytest.raises(longform.LineTooLong, match="2,880,000 reference x 2,870,000 hypothesis words"):
        longform.check(range(2_880_000), range(1, 2_870_001), "word", "line 1")


def test_the_estimate_is_of_what_differs():
    """rapidfuzz strips the common start and end first: 1.6M words with one substitution align in
    seconds, but were refused as "about 12 min"."""
    ref = list(range(1_600_000))
    hyp = [*ref[:800_000], -1, *ref[800_001:]]
    longform.check(ref, hyp, "word", "line 1")  # the default limit: allowed
    with longform.limit(1e-12), pytest.raises(longform.LineTooLong, match="1,600,000 reference"):
        longform.check(ref, hyp, "word", "line 1")  # (a limit below even one pair still refuses it)
    assert longform._middle("abcXdef", "abcYZdef") == (1, 2) and longform._middle("aaa", "aa") == (1, 0)
    assert longform.duration(0.11) == "0.11 s" and longform.duration(5) == "5 s"


def test_a_limit_holds_in_its_own_thread_only():
    """``limit`` was process-wide: a tight limit in one thread refused another thread's line."""
    ref, hyp = _zipf_pair(3000, 4)
    inside, done = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def tight():
        with longform.limit(1e-6):
            seen["tight"] = longform.limit_minutes()
            inside.set()
            done.wait(10)
            try:
                compute_metrics([" ".join(ref)], [" ".join(hyp)])
            except longform.LineTooLong as e:
                seen["refused"] = e

    def other():
        inside.wait(10)
        try:
            seen["minutes"] = longform.limit_minutes()
            seen["wer"] = compute_metrics([" ".join(ref)], [" ".join(hyp)]).summary()["wer"]
        finally:
            done.set()

    threads = [threading.Thread(target=tight), threading.Thread(target=other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert seen["tight"] == 1e-6 and seen["minutes"] == longform.DEFAULT_MINUTES
    assert seen["wer"] > 0 and isinstance(seen["refused"], longform.LineTooLong)
    assert longform.limit_minutes() == longform.DEFAULT_MINUTES  # nor did it leak here


def test_a_line_is_measured_after_normalizing():
    ref, hyp = " ".join(["x"] * 20), " ".join(["y"] * 20)
    with longform.limit(1e-9), pytest.raises(longform.LineTooLong, match="line 1 is too long.* 40 reference x 40"):
        counting.check_lengths([ref], [hyp], {"word": str.split}, lambda t: t + " " + t)


def test_refusal_survives_a_worker_process():
    with longform.limit(1e-6), pytest.raises(longform.LineTooLong) as e:
        longform.check(range(5000), range(1, 5001), "word", "utterance u1")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is longform.LineTooLong and back.options == e.value.options
    assert back.worded({"max_align_minutes": "--max-align-minutes"}) == e.value.worded(
        {"max_align_minutes": "--max-align-minutes"}
    )


def test_rubric_stretch_with_no_common_word_is_refused():
    ref = [f"r{k}" for k in range(300)]
    hyp = [f"h{k}" for k in range(300)]
    with longform.limit(1e-4), pytest.raises(longform.LineTooLong, match="300 reference x 300 hypothesis words"):
        rubric_align(["same", *ref, "end"], ["same", *hyp, "end"])
    with longform.limit(1e-4):
        check_region(5, 5, 0)  # small stretches pass


def test_child_error_is_raised_here(forked):
    with pytest.raises(TypeError):
        longform.interruptible(Levenshtein.distance, [1, 2], object())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_ctrl_c_stops_a_long_alignment_within_a_second():
    rng = random.Random(0)
    a = [rng.randrange(3000) for _ in range(150_000)]
    b = a[::-1]
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        longform.opcodes(a, b)
    assert time.monotonic() - t0 < 1.5
    timer.join()


def test_long_record_is_the_same_bytes(monkeypatch):
    """A long-form line's record built as one buffer (``chunk_records._long_record``): the same bytes."""
    from voxjudge.asr.laser import LaserRubric, chunk_records, stream

    ref, hyp = _zipf_pair(3000, 7)
    rows = [("short", "a b c", "a b d"), ("long", " ".join(ref), " ".join(hyp)), ("after", "x y", "x y")]
    settings = stream.StreamSettings("rules", LaserRubric.load(), "en", records=True)
    monkeypatch.setattr(stream, "LONG_RECORD", 10**9)  # every line the plain way
    plain = b"".join(stream.ChunkScorer(settings)(rows).records)
    monkeypatch.setattr(stream, "LONG_RECORD", 100)  # the long line as one buffer ...
    monkeypatch.setattr(chunk_records, "JOIN_STEP", 100)  # ... joined in several steps
    pieces = stream.ChunkScorer(settings)(rows).records
    assert any(type(p) is bytearray for p in pieces)
    assert b"".join(pieces) == plain and plain.count(b"\n") == 3


def test_a_scorer_holds_the_limit_its_settings_carry():
    """The limit travels in the settings (to Ray's actors, which do not share the caller's globals)."""
    from voxjudge.asr.laser import LaserRubric, stream

    ref, hyp = _zipf_pair(1500, 3)
    rows = [("long", " ".join(ref), " ".join(hyp))]
    free = stream.StreamSettings("rules", LaserRubric.load(), "en", records=True, align_minutes=None)
    tight = stream.StreamSettings("rules", LaserRubric.load(), "en", records=True, align_minutes=1e-7)
    with longform.limit(1e-7):
        assert stream.ChunkScorer(free)(rows).records
    with pytest.raises(longform.LineTooLong):
        stream.ChunkScorer(tight)(rows)


def _killed(a, b):
    os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would


def test_a_killed_alignment_process_is_an_incomplete_run_not_a_traceback():
    """It raised RuntimeError with a raw wait status: a traceback and exit status 1."""
    from voxjudge._workers import WorkerLost
    from voxjudge.errors import VoxjudgeError

    with pytest.raises(WorkerLost, match=r"process aligning a long line \(pid \d+\) .*killed by signal 9") as e:
        longform.interruptible(_killed, ["a"], ["b"])
    assert isinstance(e.value, VoxjudgeError)  # the command line's exit status 3, in one line


@pytest.mark.parametrize("plain", [True, False])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_refused_stretch_names_its_utterance(tmp_path, capsys, plain, jobs):
    """In a corpus the message said only "from reference word 1 ... split the line there"."""
    from voxjudge.cli.main import main

    rows = [f"u{k} a b c" for k in range(2500)]  # (more than one chunk: the workers' path too)
    word = "w" if plain else "wé"  # the compiled path for plain ASCII lines, Python's for the others
    ref, hyp = list(rows), list(rows)
    ref[2300] = "u2300 " + " ".join(f"{word}{k}" for k in range(300))
    hyp[2300] = "u2300 " + " ".join(f"x{k}" for k in range(300))
    r, h = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    r.write_text("\n".join(ref) + "\n", encoding="utf-8")
    h.write_text("\n".join(hyp) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["asr", "score", "--ref", str(r), "--hyp", str(h), "--ids", "--lang", "en", "--jobs", jobs]
    code = main([*argv, "--max-align-minutes", "0.0001", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("voxjudge: error: utterance 'u2300': a stretch of 300 reference x 300 "), err
    assert not out.exists()


def test_a_refused_stretch_names_its_utterance_under_an_llm_judge_too(tmp_path, capsys):
    """The LLM judges' path aligned without the ids: "(from reference word 1)" and nothing else."""
    from voxjudge.cli.main import main

    r, h = tmp_path / "ref.txt", tmp_path / "hyp.txt"
    r.write_text("u1 a b\nu2 " + " ".join(f"w{k}" for k in range(300)) + "\n", encoding="utf-8")
    h.write_text("u1 a b\nu2 " + " ".join(f"x{k}" for k in range(300)) + "\n", encoding="utf-8")
    argv = ["asr", "score", "--ref", str(r), "--hyp", str(h), "--ids", "--lang", "en", "--judge", "fake/schema"]
    assert main([*argv, "--max-align-minutes", "0.0001"]) == 2
    assert capsys.readouterr().err.startswith("voxjudge: error: utterance 'u2': a stretch of 300 reference x 300 ")


@pytest.mark.parametrize("seed", range(3))
def test_banded_distance_is_the_whole_matrix_distance(seed):
    """A long pair's distance is computed in a band (``score_hint``): the same number, on pairs
    close, far and unrelated, tie-rich (small alphabets), short and past Hirschberg's split."""
    rng = random.Random(seed)
    for _ in range(40):
        n, alphabet = rng.choice([5, 70, 400, 3000]), rng.choice([2, 3, 30])
        a = [rng.randrange(alphabet) for _ in range(n)]
        b = list(a) if rng.random() < 0.8 else [rng.randrange(alphabet) for _ in range(rng.randint(0, n))]
        for _ in range(int(n * rng.choice([0.02, 0.2, 0.6]))):
            k, x = rng.randrange(len(b) + 1), rng.random()
            if x < 0.4 and k < len(b):
                b[k] = rng.randrange(alphabet)
            elif x < 0.7 and k < len(b):
                del b[k]
            else:
                b.insert(k, rng.randrange(alphabet))
        assert longform._distance(a, b) == Levenshtein.distance(a, b)
