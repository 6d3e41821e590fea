"""Pairwise prosody judging (the Live-ProsodyJudge protocol): rubric dimensions, both-order
sampled judgments with swap-back, position-bias diagnostics, paired bootstrap comparison,
best-of-N tournaments, and distillation data with GRPO rewards."""

from voxjudge.io.audio import read_audio
from voxjudge.pairwise.acoustic import AcousticJudge
from voxjudge.pairwise.analysis import accuracy_report, compare_judges, position_bias, select_weights
from voxjudge.pairwise.data import CandidateSet, Pair, read_candidate_sets, read_pairs
from voxjudge.pairwise.distill import (
    FILTERS,
    build_sft,
    confident_winner,
    dimension_rewards,
    group_advantages,
    span_local_advantages,
    verdict_reward,
)
from voxjudge.pairwise.features import analyze
from voxjudge.pairwise.judges import AcousticPairJudge, LLMPairJudge
from voxjudge.pairwise.protocol import PairResult, aggregate, run_judgments
from voxjudge.pairwise.result import PairwiseResult
from voxjudge.pairwise.rubric import Dimension, Rubric
from voxjudge.pairwise.run import judge_pairs, select_among
from voxjudge.pairwise.slots import SlotJudgment
from voxjudge.pairwise.tournament import Selection, hit_rates, select_best

__all__ = [
    "FILTERS",
    "AcousticJudge",
    "AcousticPairJudge",
    "CandidateSet",
    "Dimension",
    "LLMPairJudge",
    "Pair",
    "PairResult",
    "PairwiseResult",
    "Rubric",
    "Selection",
    "SlotJudgment",
    "accuracy_report",
    "aggregate",
    "analyze",
    "build_sft",
    "compare_judges",
    "confident_winner",
    "dimension_rewards",
    "group_advantages",
    "hit_rates",
    "judge_pairs",
    "position_bias",
    "read_audio",
    "read_candidate_sets",
    "read_pairs",
    "run_judgments",
    "select_among",
    "select_best",
    "select_weights",
    "span_local_advantages",
    "verdict_reward",
]
