"""LASER at corpus scale with an offline judge: chunks of utterances are aligned, labelled and
turned into records as they come, and the summary is a running tally (``tally.py``), so memory
does not grow with the corpus and only mismatches cost more than counting.

* Normalisation once per token: each distinct token's alignment key (``align.word_key``) is
  computed once per process; a line of ASCII letters, digits and spaces needs no lookup at all
  (its tokens are words, their keys their lower case, their WER tokens the same).
* Exact matches are counted, not classified: an utterance whose keys all match is a run of
  identical pairs; inside other utterances equal stretches stay index ranges. Identical words are
  labelled once per language (the judge is asked about one identical pair; a judge that does not
  call it a match with no penalty has every pair asked instead).
* Labels are cached per unique pair identity -- every field of ``RubricPair`` except where it
  sits (``ref_start``, ``hyp_start``) -- and language; the judge sees each chunk's new pairs in
  one call.
* Records are JSON text written from the alignment (the JSON of an identical pair is made once
  per word), byte for byte what ``UtteranceScore.as_dict`` gives; a chunk's records leave as
  UTF-8 bytes, written by the caller as they are (``chunk_records.py``: ``ChunkResult``, the
  lines joined into pieces, a long-form line's record).
* The per-utterance WER beside LASER is the alignment's edits over the reference's words where
  keys and WER tokens are one-to-one (the usual case), else a second count (``_wer``).
* A chunk's share of the summary is added up where it was scored (``tally.tally_part``): in a
  worker process, when ``parallel.score_chunks`` runs chunks in several.

* Plain lines (ASCII letters, digits and spaces) go through the compiled path (``_plain.c``)
  when it was built: the same steps over byte spans and word ids, the records written straight
  into one buffer. The Python loops here stay its reference (``VOXJUDGE_KERNEL=python``;
  ``tests/asr/test_laser_plain_kernel.py``), and score every line it hands back.

``scoring.score`` stays the plain path (every pair an object, labelled one by one); a test holds
this one to it, records and summary alike.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

from rapidfuzz.distance.Levenshtein import editops as _editops

from voxjudge.asr import longform
from voxjudge.asr.laser.align import RubricPair, _region, check_region, swaps, word_key
from voxjudge.asr.laser.chunk_records import PIECE, ChunkResult, _flush_lines, _long_record
from voxjudge.asr.laser.plain_kernel import plain_kernel as _plain_kernel
from voxjudge.asr.laser.record_json import Memo, NumberMemo, number_json, pair_json, run_json, string_json
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, equivalent
from voxjudge.asr.laser.scoring import ScoredPair, UtteranceScore, laser_score
from voxjudge.asr.laser.speech import fillers, flag
from voxjudge.asr.laser.tally import tally_part
from voxjudge.asr.laser.utterances import in_utterance

# Caches are bounded, so memory stays flat on any corpus: past these sizes they start again
# between chunks (labels and keys are pure functions of what they cache: results do not change)
MAX_LABELS = 100_000  # unique labelled pairs
MAX_TOKENS = 300_000  # unique tokens
LONG_RECORD = 4096  # pairs above which a record is built as one buffer (``chunk_records._long_record``)
POSITIONS = ("ref_start", "hyp_start")  # where a pair sits, not what it is
_identity = attrgetter(*[f.name for f in fields(RubricPair) if f.name not in POSITIONS])
Words = tuple[str, ...]
_plain = re.compile(r"[A-Za-z0-9 ]*").fullmatch  # a text whose tokens are their own keys but for case


@dataclass(frozen=True)
class StreamSettings:
    judge: str
    rubric: LaserRubric
    lang: str = "und"  # the input's language, decided once (``run.decide_language``)
    allow_rubric_mismatch: bool = False
    records: bool = False  # make record lines
    scores: bool = False  # keep (id, laser, wer) per utterance
    keep: bool = False  # keep UtteranceScore objects
    people: Any = None  # the model of laser_calibrated (``people.PeopleModel``): records carry it beside laser
    semdist: dict[str, float | None] | None = None  # SemDist by id, when the run has an embedder
    calibration: Any = None  # a calibration file read by the driver (``CalibrationFile``; None: the shipped one)
    embedder: str = "none"  # the embedder that gave ``semdist``, as the summary names it: every record names it too
    # the longest alignment allowed (``longform.limit``), as it was where the settings were made:
    # a Ray actor is a fresh process, which would otherwise hold the default
    align_minutes: float | None = field(default_factory=longform.limit_minutes)


class ChunkScorer:
    """Scores chunks of utterances; one per process, with the caches that make repeats free."""

    def __init__(self, settings: StreamSettings):
        from voxjudge.asr.laser.judges import offline_labeler

        self.s = settings
        self.labeler, _ = offline_labeler(
            settings.judge,
            settings.rubric,
            allow_rubric_mismatch=settings.allow_rubric_mismatch,
            calibration=settings.calibration,
        )
        self.penalty = settings.rubric.pair_penalty
        self.tokens = Memo(self._token)  # token -> id of its key (-1: dropped)
        self.key_ids: dict[str, int] = {}
        self.keys: list[str] = []  # key id -> key
        # (lang, identity) -> label (when kept), penalty, JSON, and the tally's event
        self.labels: dict[tuple, tuple[Label | None, float, str, tuple]] = {}
        self.identical: dict[str, Label | None] = {}  # lang -> the label of identical words, if constant
        self.identical_json: dict[str, Memo] = {}  # lang -> word -> its identical pair's JSON
        self.equivalents: dict[str, Callable] = {}
        self.number = NumberMemo(number_json)
        self.score = NumberMemo(number_json)
        self.laser_json = Memo(self._laser_entry)  # score -> (laser_calibrated, their JSON), without SemDist
        self.lang_json = Memo(string_json)
        given = settings.calibration.sha256 if settings.calibration is not None else None
        self.run_json = run_json({"judge": settings.judge, "embedder": settings.embedder, "calibration_sha256": given})
        self.norm = Memo(self._wer_token)  # token -> id of its WER token (-1: see norm.multi)
        self.norm.multi = {}  # token -> ids of its WER tokens, when not exactly one
        self.norm_ids: dict[str, int] = {}
        # Where keys and WER tokens are one-to-one, the WER is the alignment's edits over the
        # reference's keys: no second edit distance. ``mixed``: key ids where they are not (a key
        # whose tokens give other WER tokens, or none or several, or a WER token two keys share)
        self.wer_of_key: dict[int, int] = {}
        self.key_of_wer: dict[int, int] = {}
        self.mixed: set[int] = set()
        from voxjudge.asr.normalize import get_normalizer

        self.basic = get_normalizer("basic")
        self._distance = longform.distance  # rapidfuzz's; a long line's interruptible
        self.kernels: dict[str, Any] = {}  # lang -> the compiled path for plain lines, or None

    # ---- tokens ------------------------------------------------------------------------------

    def _token(self, w: str) -> int:
        if all(unicodedata.category(ch)[0] in "PS" for ch in w):
            return -1  # punctuation only: not a word (``scoring.words``)
        key = word_key(w)
        if key not in self.key_ids:
            self.key_ids[key] = len(self.keys)
            self.keys.append(key)
        k = self.key_ids[key]
        n = self.norm[w]
        if n == -1 or self.wer_of_key.setdefault(k, n) != n:
            self.mixed.add(k)
        elif (k0 := self.key_of_wer.setdefault(n, k)) != k:
            self.mixed.update((k, k0))
        return k

    def _wer_token(self, w: str) -> int:
        ids = [self.norm_ids.setdefault(t, len(self.norm_ids)) for t in self.basic(w).split()]
        if len(ids) == 1:
            return ids[0]
        self.norm.multi[w] = ids
        return -1

    def _wer_ids(self, ws: list[str]) -> list[int]:
        """The text's tokens under the side-by-side WER's normalisation (``scoring.side_by_side_wer``:
        basic, whose every step works within a whitespace token), as ids, one normalisation per token."""
        ids = list(map(self.norm.__getitem__, ws))
        if -1 in ids:  # a token that normalises to none or several
            multi = self.norm.multi
            ids = [i for w in ws for i in multi.get(w, (self.norm[w],))]
        return ids

    def _wer(self, ref: list[str], hyp: list[str], same: bool) -> float | None:
        r = self._wer_ids(ref)
        if not r:  # jiwer's convention for an empty reference (side_by_side_wer reports None)
            return None
        if same:  # the same text: nothing to normalise or count
            return 0.0
        h = self._wer_ids(hyp)
        return 0.0 if r == h else self._distance(r, h) / len(r)

    def _words(self, ws: list[str]) -> tuple[list[str], list[int]]:
        """The words of a split text and their key ids (one dict lookup per token once known)."""
        ids = list(map(self.tokens.__getitem__, ws))
        if -1 in ids:
            ws = [w for w, k in zip(ws, ids) if k != -1]
            ids = [k for k in ids if k != -1]
        return ws, ids

    # ---- one chunk ---------------------------------------------------------------------------

    def __call__(self, chunk: Sequence[tuple[str, str, str]]) -> ChunkResult:
        with longform.limit(self.s.align_minutes):
            return self._score(chunk)

    def _score(self, chunk: Sequence[tuple[str, str, str]]) -> ChunkResult:
        s = self.s
        self._bound()
        wanted = s.records or s.scores or s.keep  # the per-utterance WER
        aligned = []  # (uid, lang, rw, hw, items, keys, edits, wer): items are RubricPairs and (i, j, n)
        # runs; keys are the label-cache entries (or keys) of the RubricPairs, in order
        todo: dict[tuple, tuple[str, RubricPair, str]] = {}
        labels = self.labels
        mixed = self.mixed
        lang = s.lang  # one language for the whole input (``run.decide_language``)
        if lang not in self.identical:
            self._probe(lang)
        kernel = self.kernels[lang] if lang in self.kernels else self._kernel(lang)
        uid = None
        try:
            for uid, ref, hyp in chunk:
                if kernel is not None:  # a plain line: the compiled path, unless it hands the line back
                    entry = kernel.align(uid, ref, hyp, labels, todo)
                    if entry is not None:
                        aligned.append(entry)
                        continue
                same = ref == hyp
                if _plain(ref) and (same or _plain(hyp)):
                    # ASCII letters and digits only: every token is a word, its key is its lower case and
                    # so is its WER token (one-to-one): no lookup per token (keys are str here, not ids)
                    rs = rw = ref.split()
                    # a line that lower() leaves as it is is its own keys (no second split); str.islower
                    # looks up every character's case, lower() of ASCII is a table (2.5% of a run)
                    rk = rw if (low := ref.lower()) == ref else low.split()
                    if same:
                        hs, hw, hk = rs, rw, rk
                    else:
                        hs = hw = hyp.split()
                        hk = hw if (low := hyp.lower()) == hyp else low.split()
                    by_edits, wer = wanted, None
                else:
                    rs = ref.split()
                    hs = rs if same else hyp.split()
                    rw, rk = self._words(rs)
                    hw, hk = (rw, rk) if same else self._words(hs)
                    # the WER from the edits below (one-to-one tokens, none dropped), else counted apart
                    by_edits = wanted and len(rk) == len(rs) and len(hk) == len(hs) and mixed.isdisjoint(rk)
                    by_edits = by_edits and (same or mixed.isdisjoint(hk))
                    wer = self._wer(rs, hs, same) if wanted and not by_edits else None
                if rk == hk:
                    edits = 0
                    if by_edits:
                        wer = 0.0 if rk else None
                    if rw == hw and self.identical[lang] is not None:
                        aligned.append((uid, lang, rw, hw, [(0, 0, len(rw))] if rw else [], (), 0, wer))
                        continue  # the common case: nothing to align, nothing to label
                    items = self._pairs(rw, hw, [("equal", 0, len(rw), 0, len(hw))], lang)
                else:
                    if len(rk) * len(hk) > longform.CHECKED_PAIRS:  # refused if too long; else interruptible
                        longform.check(rk, hk, "word", f"utterance {uid}")
                    ops, edits = _script(rk, hk)
                    if by_edits:  # rapidfuzz's opcodes are an optimal edit script: edits is the distance
                        wer = edits / len(rk) if rk else None
                    # words that are their own keys (lower-case plain lines): equal keys are equal words
                    items = self._pairs(rw, hw, ops, lang, rk is rw and hk is hw)
                keys = []  # a known pair's entry, or the key to look up once the chunk's new pairs are labelled
                for p in items:
                    if type(p) is RubricPair:
                        key = (lang, _identity(p))
                        entry = labels.get(key)
                        if entry is None:
                            entry = key
                            if key not in todo:
                                todo[key] = (uid, p, lang)
                        keys.append(entry)
                aligned.append((uid, lang, rw, hw, items, keys, edits, wer))
        except longform.LineTooLong as e:  # a stretch refused inside the line: which line it is
            if uid is None:
                raise
            raise in_utterance(e, uid) from None
        if todo:
            keep = s.keep
            found = self.labeler(list(todo.values()))
            for (key, (_, p, _lang)), lab in zip(todo.items(), found):
                pen = self.penalty(lab)
                js = pair_json(p.ref_text, p.hyp_text, p.op, lab, pen).encode()
                # the Label itself only when UtteranceScore objects are kept: the JSON and the event say the rest
                labels[key] = (lab if keep else None, pen, js, (lab.label, lab.error_type, pen, lab.disputed))
        out = ChunkResult()
        lines, figures, events = out.lines, out.figures, out.events
        scores = out.scores if s.scores else None
        for entry in aligned:
            if len(entry) == 6:  # the compiled path's: its record line in one piece
                line = kernel.finish(entry, labels, events, figures, scores)
                if line is not None:
                    lines.append(line)
                    out.n_lines += 1
                    if out.n_lines == PIECE:
                        _flush_lines(out)
                        lines = out.lines
            else:
                self._utterance(out, *entry)
                lines = out.lines
        out.tally = tally_part(out.figures, out.events)
        out.figures, out.events = [], []
        _flush_lines(out)
        return out

    def _utterance(self, out: ChunkResult, uid, lang, rw, hw, items, keys, edits, wer) -> None:
        s = self.s
        records, keep = s.records, s.keep
        labels = self.labels
        events = out.events
        next_key = iter(keys).__next__
        identical_json = self.identical_json[lang].__getitem__
        penalty, n_identical, n_events, n_format = 0.0, 0, 0, 0
        parts: list[bytes] = []  # the pairs' JSON, as UTF-8 (joined once, never encoded per line)
        pairs: list[ScoredPair] = []
        for p in items:
            if type(p) is tuple:  # identical words: counted; written from the words when asked
                i, _, n = p
                n_identical += n
                if records:
                    parts.extend(map(identical_json, rw[i : i + n]))
                if keep:
                    lab = self.identical[lang]
                    pairs += [
                        ScoredPair(w, w, "equal", lab.label, lab.error_type, lab.reason, 0.0, lab.disputed)
                        for w in rw[i : i + n]
                    ]
                continue
            entry = next_key()
            lab, pen, js, event = entry if len(entry) == 4 else labels[entry]  # an entry, or its key (2 items)
            penalty += pen
            n_events += 1
            events.append(event)
            if event[0] == "match" and p.ref != p.hyp:  # the same words but for case or punctuation
                n_format += 1
            if records:
                parts.append(js)
            if keep:
                pairs.append(
                    ScoredPair(p.ref_text, p.hyp_text, p.op, lab.label, lab.error_type, lab.reason, pen, lab.disputed)
                )
        ref_words = len(rw)
        laser = laser_score(penalty, ref_words)
        if laser is None:  # an empty reference: its pairs are not counted
            del events[len(events) - n_events :]
            n_identical = n_events = 0
        if s.semdist is None:  # laser_calibrated and its JSON: once per distinct score
            sd = None
            calibrated, laser_js = self.laser_json[laser]
        else:
            sd = s.semdist[uid]
            calibrated = None if s.people is None else s.people(laser, sd)
            laser_js = self._laser_json(laser, calibrated) + f', "semdist": {number_json(sd)}'
        out.figures.append((penalty, laser, ref_words, edits, n_identical, n_events, n_format, sd, calibrated))
        if records:
            number = self.number
            # zeros are not cached (``NumberMemo``): written here without a call
            wer_js = number[wer] if wer else "null" if wer is None else float.__repr__(wer)
            penalty_js = number[penalty] if penalty else float.__repr__(penalty)
            head = (
                f'{{"id": {string_json(uid)}, "lang": {self.lang_json[lang]}, {self.run_json}, {laser_js}, '
                f'"format_errors": {n_format}, "wer": {wer_js}, "penalty": {penalty_js}, '
                f'"ref_words": {ref_words}, "pairs": ['
            )
            if len(parts) > LONG_RECORD:  # a long-form line: its record made once, as UTF-8
                _flush_lines(out)
                out.records.append(_long_record(head, parts))
            else:
                out.lines += (head.encode(), b", ".join(parts), b"]}\n")
                out.n_lines += 1
                if out.n_lines == PIECE:
                    _flush_lines(out)
        if s.scores:
            out.scores.append((uid, laser, wer, calibrated, sd))
        if keep:
            u = UtteranceScore(uid, lang, ref_words, pairs, penalty, laser, wer, edits, people=s.people)
            u.semdist, u.has_semdist, u.format_errors = sd, s.semdist is not None, n_format
            out.utterances.append(u)

    def _laser_json(self, laser: float | None, calibrated: float | None) -> str:
        """``"laser": ...`` and, with a model of people, ``"laser_calibrated": ...``, as a record writes them."""
        text = f'"laser": {self.score[laser]}'
        return text if self.s.people is None else f'{text}, "laser_calibrated": {number_json(calibrated)}'

    def _laser_entry(self, laser: float | None) -> tuple[float | None, str]:
        """laser_calibrated of a score without SemDist, and the record's text of both. A score is
        never -0.0 (``laser_score`` floors at the literal 0.0), so caching 0.0 by value is safe."""
        calibrated = None if self.s.people is None else self.s.people(laser, None)
        return calibrated, self._laser_json(laser, calibrated)

    def _bound(self) -> None:
        if len(self.labels) > MAX_LABELS:
            self.labels.clear()
        if len(self.number) + len(self.score) + len(self.laser_json) > MAX_LABELS:
            self.number.clear()
            self.score.clear()
            self.laser_json.clear()
        if len(self.tokens) + len(self.norm) > MAX_TOKENS:
            caches = (self.tokens, self.key_ids, self.keys, self.norm, self.norm.multi, self.norm_ids)
            for cache in (*caches, self.wer_of_key, self.key_of_wer, self.mixed):
                cache.clear()
            for words in self.identical_json.values():
                words.clear()

    def _kernel(self, lang: str):
        """The compiled path for plain lines in ``lang``, when it can score them as this scorer
        would: identical words a match (runs), no SemDist, no UtteranceScore objects kept."""
        module, s = _plain_kernel(), self.s
        lab = self.identical[lang]
        if module is None or lab is None or s.keep or s.semdist is not None:
            self.kernels[lang] = None
            return None
        # an identical pair's JSON around its word: a plain word is its own JSON string's content
        js = pair_json("w", "w", "equal", lab, 0.0)
        before, between = '{"ref": "', '", "hyp": "'
        if not js.startswith(f"{before}w{between}w"):
            raise AssertionError(f"an identical pair's JSON is not shaped as expected: {js[:80]}")
        after = js[len(f"{before}w{between}w") :]
        kernel = self.kernels[lang] = module.Kernel(
            editops=_editops,
            pair_class=RubricPair,
            fillers=fillers(lang),
            lang=lang,
            string=string_json,
            identical=(before.encode(), between.encode(), after.encode()),
            head_mid=f', "lang": {self.lang_json[lang]}, {self.run_json}, '.encode(),
            laser_json=self.laser_json,
            region=self._region_of(lang),
            wanted=s.records or s.scores or s.keep,
            records=s.records,
            checked_pairs=longform.CHECKED_PAIRS,
            max_words=LONG_RECORD,
            max_ids=MAX_TOKENS,
        )
        return kernel

    def _region_of(self, lang: str) -> Callable:
        """The alignment programme for a plain line's stretch, as ``_pairs`` runs it (a plain
        word's key is its lower case)."""
        eq = self.equivalents.get(lang) or self.equivalents.setdefault(lang, equivalent(lang))

        def region(rs: Words, hs: Words, rk: Words, hk: Words, r0: int, h0: int) -> list[RubricPair]:
            check_region(len(rs), len(hs), r0)
            return _region(rs, hs, rk, hk, r0, h0, eq)

        return region

    def _probe(self, lang: str) -> None:
        """Whether identical words are a match with no penalty in ``lang`` for this judge."""
        (lab,) = self.labeler([("probe", RubricPair(("probe",), ("probe",), "equal", 0, 0), lang)])
        ok = lab.label == "match" and lab.error_type is None and not lab.disputed and self.penalty(lab) == 0
        self.identical[lang] = lab if ok else None
        self.identical_json[lang] = Memo(lambda word: pair_json(word, word, "equal", lab, 0.0).encode())

    # ---- alignment ---------------------------------------------------------------------------

    def _pairs(self, rw, hw, ops, lang, keyed: bool = False) -> list:
        """``rubric_align``'s pairs, with stretches of identical words as (i, j, n) runs (when the
        judge calls identical words a match) and every other pair as a ``RubricPair``. ``keyed``:
        the words are their keys, so the opcodes' equal stretches are identical words. Mirrored
        for plain lines in ``_plain.c`` (``align_line``), as ``_utterance`` is (``Kernel_finish``):
        a change here needs the same change there."""
        eq = self.equivalents.get(lang) or self.equivalents.setdefault(lang, equivalent(lang))
        const = self.identical[lang] is not None
        items: list = []
        pending = None
        tokens, keys = self.tokens, self.keys
        gaps = set()  # ops of the insertions and deletions made: a swap needs one of each
        for op in [*ops, None]:
            if op is not None and op[0] != "equal":
                if pending is None:
                    pending = (op[1], op[3])
                continue
            if pending is not None:
                r0, h0 = pending
                end_r, end_h = (op[1], op[3]) if op is not None else (len(rw), len(hw))
                rs, hs = rw[r0:end_r], hw[h0:end_h]
                if len(rs) + len(hs) == 1:  # the programme's only option: a lone deletion or insertion
                    gap = "delete" if rs else "insert"
                    gaps.add(gap)
                    items.append(RubricPair(tuple(rs), tuple(hs), gap, r0, h0))
                elif len(rs) == len(hs) == 1:  # keys differ: a substitution costs 1, anything else 2
                    items.append(RubricPair((rs[0],), (hs[0],), "substitute", r0, h0))
                elif not rs or not hs:  # one side only: the programme can only insert (delete) each word
                    gap = "delete" if rs else "insert"
                    gaps.add(gap)
                    items += [RubricPair((w,), (), gap, r0 + k, h0) for k, w in enumerate(rs)]
                    items += [RubricPair((), (w,), gap, r0, h0 + k) for k, w in enumerate(hs)]
                else:
                    check_region(len(rs), len(hs), r0)
                    rk, hk = [keys[tokens[w]] for w in rs], [keys[tokens[w]] for w in hs]
                    region = _region(rs, hs, rk, hk, r0, h0, eq)
                    gaps.update(p.op for p in region)
                    items += region
                pending = None
            if op is None:
                break
            _, i1, i2, j1, _ = op
            if const and (keyed or rw[i1:i2] == hw[j1 : j1 + i2 - i1]):
                items.append((i1, j1, i2 - i1))
                continue
            run = i1  # start of the current run of identical words
            for i in range(i1, i2):
                j = j1 + i - i1
                if not const or rw[i] != hw[j]:  # case or punctuation differ: the judge says what
                    if i > run:
                        items.append((run, j1 + run - i1, i - run))
                    items.append(RubricPair((rw[i],), (hw[j],), "equal", i, j))
                    run = i + 1
            if i2 > run:
                items.append((run, j1 + run - i1, i2 - run))
        if "insert" in gaps and "delete" in gaps:
            items = swaps(items, lambda ws: [keys[tokens[w]] for w in ws], lambda item: _single(item, rw, hw))
        return flag(items, rw, hw, lang)


def _script(rk: list, hk: list) -> tuple[list[tuple[str, int, int, int, int]], int]:
    """rapidfuzz's opcodes of the two key lists and how many edits they make. rapidfuzz makes its
    opcodes from its edit operations, so a short line's edits are counted by rapidfuzz: the
    operations' number (one call, no loop over the opcodes); a long one's come from
    ``longform.opcodes``, interruptible (the same opcodes either way)."""
    if longform.is_long(rk, hk):
        ops = longform.opcodes(rk, hk)
        return ops, sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")
    script = _editops(rk, hk)
    return script.as_opcodes().as_list(), len(script)


def _single(item, rw, hw) -> RubricPair | None:
    """An item as one equal pair, if it is one (a run of length 1 or an equal pair)."""
    if type(item) is tuple:
        i, j, n = item
        return RubricPair((rw[i],), (hw[j],), "equal", i, j) if n == 1 else None
    return item if item.op == "equal" else None
