"""LASER: graded-penalty ASR scoring (no penalty / minor 0.5 / major 1.0 per word pair;
score = 1 - total penalty / reference words), with a rules judge, LLM judges and a trainable one."""

from voxjudge.asr.laser.align import RubricPair, rubric_align
from voxjudge.asr.laser.files import LaserFiles, ScoredFiles, score_files
from voxjudge.asr.laser.judges import is_offline
from voxjudge.asr.laser.llm_judges import judge_prompt
from voxjudge.asr.laser.result import LaserResult
from voxjudge.asr.laser.rubric import LABELS, ErrorType, LaserRubric
from voxjudge.asr.laser.rules import Label, classify, classify_words
from voxjudge.asr.laser.run import LaserOptions, run_laser
from voxjudge.asr.laser.scoring import ScoredPair, UtteranceScore, score, summarize
from voxjudge.asr.laser.utterances import align_utterance, utterance_language, words

__all__ = [
    "LABELS",
    "ErrorType",
    "Label",
    "LaserFiles",
    "LaserOptions",
    "LaserResult",
    "LaserRubric",
    "RubricPair",
    "ScoredFiles",
    "ScoredPair",
    "UtteranceScore",
    "align_utterance",
    "classify",
    "classify_words",
    "is_offline",
    "judge_prompt",
    "rubric_align",
    "run_laser",
    "score",
    "score_files",
    "summarize",
    "utterance_language",
    "words",
]
