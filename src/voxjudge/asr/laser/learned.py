"""The learned pair judge: a linear model over what the rules see, applied with numpy only.

Features of a word pair are named strings with values: the rules' label and error type, which
annotator-convention variant classes make the two sides equal, the characters that differ (after
the spelling fold, position-free), edit distances, word counts, function/auxiliary words, and
whether each side is a word of the language (``lexicon.py``). The
weights live in a JSON file (vocabulary, classes, weights, intercepts); inference is a sparse dot
product and an argmax, deterministic and fast. Training (scikit-learn) is in ``training.py``.

The hybrid judge lets the rules settle what they are sure of (identical, the same after the
spelling fold, the same number, a compound joined or split, omissions, additions, swaps) and
gives every other pair to the model; every label keeps a reason.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from rapidfuzz.distance import Levenshtein

from voxjudge.asr.laser.align import RubricPair
from voxjudge.asr.laser.fold import fold
from voxjudge.asr.laser.lang import colloquial_equal, is_function_word, numbers_equal
from voxjudge.asr.laser.lang_conventions import Conventions
from voxjudge.asr.laser.lexicon import is_known
from voxjudge.asr.laser.phonetics import evidence, prefetch_items
from voxjudge.asr.laser.rubric import LaserRubric
from voxjudge.asr.laser.rules import Label, classify, same_stem
from voxjudge.errors import InputError

FORMAT = "voxjudge-laser-linear-1"
# with fold-equal and exact compounds: rules settle these (the training pairs are all in Devanagari,
# so a Latin-script loan word is outside what the model has seen)
CERTAIN_TYPES = {"numerical_phrase", "abbreviation", "synonym", "transliteration_variant"}
LICENCE_NOTICE = (
    "Trained on word pairs from the LASER-metric dataset (dataset_hin.csv), Copyright (c) 2025 Amparulekar, "
    "MIT licence; see LICENSE-laser-metric.txt shipped beside the data."
)


def features(ref: tuple[str, ...], hyp: tuple[str, ...], lang: str, conv: Conventions, rule: Label) -> dict[str, float]:
    fr, fh = " ".join(fold(w) for w in ref), " ".join(fold(w) for w in hyp)
    kr, kh = conv.key(fr.replace(" ", "")), conv.key(fh.replace(" ", ""))
    f: dict[str, float] = {
        "bias_rule=" + rule.label: 1.0,
        "rule_type=" + str(rule.error_type): 1.0,
        f"words={min(len(ref), 3)}:{min(len(hyp), 3)}": 1.0,
        "edit_fold=" + str(min(Levenshtein.distance(fr, fh), 4)): 1.0,
        "edit_key=" + str(min(Levenshtein.distance(kr, kh), 4)): 1.0,
        "sim_fold": Levenshtein.normalized_similarity(fr, fh),
        "sim_key": Levenshtein.normalized_similarity(kr, kh),
        "short=" + str(min(len(fr), len(fh), 5)): 1.0,
    }
    if len(ref) == len(hyp) == 1:
        found = conv.variants(ref[0], hyp[0])
        for name in found or ("none",):
            f["variant=" + name] = 1.0
        if same_stem(fr, fh, lang):
            f["same_stem"] = 1.0
        if conv.same_auxiliary(ref[0], hyp[0]):
            f["same_auxiliary"] = 1.0
    elif len(ref) == len(hyp):
        differing = sum(fold(a) != fold(b) for a, b in zip(ref, hyp))
        f["phrase_diff=" + str(min(differing, 3))] = 1.0
        for a, b in zip(ref, hyp):
            if fold(a) != fold(b):
                for name in conv.variants(a, b) or ("none",):
                    f["phrase_variant=" + name] = 1.0
    else:
        short, long_ = (ref, hyp) if len(ref) < len(hyp) else (hyp, ref)
        extra = [w for w in long_ if fold(w) not in {fold(x) for x in short}]
        f["extra_words=" + str(min(len(extra), 3))] = 1.0
        for w in extra:
            if conv.is_agreement_word(w):
                f["extra_aux"] = 1.0
            elif is_function_word(w, lang):
                f["extra_function"] = 1.0
    # both sides words of the language -> likely two different words; one unknown -> likely a spelling
    known_r, known_h = all(is_known(w, lang) for w in ref), all(is_known(w, lang) for w in hyp)
    f[f"known={int(known_r)}{int(known_h)}"] = 1.0
    if kr == kh:
        f["key_equal"] = 1.0
    if any(is_function_word(w, lang) for w in ref + hyp):
        f["function_word"] = 1.0
    if any(conv.is_agreement_word(w) for w in ref + hyp):
        f["aux_word"] = 1.0
    ev = evidence(ref, hyp, lang)  # phonemes (espeak-ng): alike, or how alike
    if ev.sound is not None:
        if ev.alike:
            f["sound_alike"] = 1.0
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(fr, fh):
        if tag != "equal":
            f[f"diff={fr[i1:i2]}>{fh[j1:j2]}"] = 1.0
    return f


def sparse_entries(feats: list[dict[str, float]], vocab: dict[str, int]) -> tuple[list[int], list[int], list[float]]:
    """(row, column, value) of every named feature the vocabulary knows (unknown names are dropped)."""
    rows, cols, vals = [], [], []
    for row, f in enumerate(feats):
        for name, value in f.items():
            col = vocab.get(name)
            if col is not None:
                rows.append(row)
                cols.append(col)
                vals.append(value)
    return rows, cols, vals


@dataclass(frozen=True)
class LinearModel:
    lang: str
    classes: tuple[str, ...]
    vocab: dict[str, int]
    weights: np.ndarray  # (classes, features)
    intercept: np.ndarray
    meta: dict[str, Any]

    def predict(self, feats: list[dict[str, float]]) -> list[tuple[str, float]]:
        rows, cols, vals = sparse_entries(feats, self.vocab)
        scores = np.tile(self.intercept, (len(feats), 1))
        # one vectorised scatter-add instead of a numpy call per feature
        np.add.at(scores, np.array(rows, dtype=np.intp), self.weights[:, cols].T * np.array(vals)[:, None])
        scores -= scores.max(axis=1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=1, keepdims=True)
        best = probs.argmax(axis=1)
        return [(self.classes[k], float(probs[r, k])) for r, k in enumerate(best)]

    def as_json(self) -> str:
        """Canonical text: sorted keys, rounded weights, one feature per line (diffs stay readable)."""
        dump = lambda v: json.dumps(v, ensure_ascii=False, sort_keys=True)  # noqa: E731
        head = {"format": FORMAT, "lang": self.lang, "classes": list(self.classes), **self.meta}
        head["intercept"] = [_round(x) for x in self.intercept]
        lines = [f"{dump(k)}: {dump(head[k])}," for k in sorted(head)]
        feats = [f"{dump(n)}: {dump([_round(x) for x in self.weights[:, self.vocab[n]]])}" for n in sorted(self.vocab)]
        return "{\n" + "\n".join(lines) + '\n"features": {\n' + ",\n".join(feats) + "\n}\n}\n"

    @classmethod
    def from_json(cls, text: str, where: str) -> LinearModel:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError("format")
            names = list(data["features"])
            weights = np.array([data["features"][n] for n in names], dtype=float).T.reshape(len(data["classes"]), -1)
            meta = {k: v for k, v in data.items() if k not in ("format", "lang", "classes", "intercept", "features")}
            return cls(
                str(data["lang"]),
                tuple(data["classes"]),
                {n: k for k, n in enumerate(names)},
                weights,
                np.array(data["intercept"], dtype=float),
                meta,
            )
        except (ValueError, KeyError, TypeError):
            raise InputError(f"{where}: not a voxjudge LASER model ({FORMAT} JSON)") from None


def _round(x: float) -> float:
    # Rounded so that a retrain reproduces the file byte for byte despite last-bit BLAS differences.
    return round(float(x), 4) + 0.0


def shipped_model_path(lang: str) -> Path | None:
    p = resources.files("voxjudge.asr.laser").joinpath("models", f"{lang}.json")
    return Path(str(p)) if p.is_file() else None


def shipped_data_path() -> Path:
    return Path(str(resources.files("voxjudge.asr.laser").joinpath("data", "laser_hindi_pairs_train.csv")))


def load_model(path: str | Path, rubric: LaserRubric, *, allow_rubric_mismatch: bool = False) -> LinearModel:
    """A model file; refused when it was trained under another rubric than ``rubric``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: model file not found") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a voxjudge LASER model ({FORMAT} JSON)") from None
    model = LinearModel.from_json(text, str(path))
    trained_on = model.meta.get("rubric_sha256")
    if trained_on != rubric.sha256 and not allow_rubric_mismatch:
        raise InputError(
            f"{path}: model was trained under rubric {trained_on}, this run uses rubric {rubric.sha256}; "
            "retrain it with 'voxjudge asr train' or pass {allow_rubric_mismatch}",
            options={"allow_rubric_mismatch": "allow_rubric_mismatch=True"},
        )
    return model


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def settled_by_rules(pair: RubricPair, rule: Label, lang: str) -> bool:
    """Pairs the rules decide without the model."""
    if pair.op in ("equal", "insert", "delete", "swap") or rule.label == "match":
        return True
    if rule.error_type in CERTAIN_TYPES:
        return True
    fr, fh = [fold(w) for w in pair.ref], [fold(w) for w in pair.hyp]
    if fr == fh or "".join(fr) == "".join(fh):
        return True  # the same after the spelling fold, or a compound joined/split
    # listed spoken forms (मेरे को/मुझे): a list lookup, not a judgement call
    return numbers_equal(pair.ref, pair.hyp, lang) or colloquial_equal(pair.ref, pair.hyp, lang)


def hybrid_labeler(model: LinearModel, rubric: LaserRubric, calibrations: dict | None = None):
    """A pair labeler: rules where they are sure, the model elsewhere (reasons from both); the
    rules under the evidence calibration learned for each language when ``calibrations`` are given."""
    from voxjudge.asr.laser.calibration_file import conventions_source

    # the model's language keeps the conventions it was trained under; the others are calibrated
    source = conventions_source(rubric, {k: v for k, v in (calibrations or {}).items() if k != model.lang})
    plain = conventions_source(rubric)

    def label(items: list[tuple[str, RubricPair, str]]) -> list[Label]:
        out: list[Label] = []
        todo, feats = [], []
        prefetch_items(items)
        for k, (_, pair, lang) in enumerate(items):
            conv = plain(lang) if lang == model.lang else source(lang)
            rule = classify(pair, lang, conv)
            out.append(rule)
            if lang == model.lang and not settled_by_rules(pair, rule, lang):
                todo.append(k)
                feats.append(features(pair.ref, pair.hyp, lang, conv, rule))
        for k, (tier, p) in zip(todo, model.predict(feats) if feats else []):
            rule = out[k]
            if tier == rule.label:
                out[k] = Label(tier, rule.error_type, f"{rule.reason} (learned model agrees, p={p:.2f})")
            else:
                out[k] = Label(
                    tier,
                    _type_for(tier, rule),
                    f"learned from annotators' labels (p={p:.2f}); rules said {rule.label}: {rule.reason}",
                )
        return out

    return label


def _type_for(tier: str, rule: Label) -> str | None:
    if tier == "match":
        return None
    if tier == "no_penalty":
        return "alternate_spelling"
    if tier == "minor":
        return "grammar_agreement" if rule.error_type == "grammar_agreement" else "spelling_minor"
    return "wrong_word"
