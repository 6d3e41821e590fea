"""Help that teaches: a description for every command, stated defaults, and one or two examples
that run as written on the shipped data (from the project root) at the end of every --help, right
after ``pip install voxjudge`` or after the extra that ``EXTRAS`` names for the command.

Examples are independent: each creates what it needs (a study folder of its own), so they run in
any order, one after another, in one folder. tests/cli/test_help.py runs them that way, with the
modules of every extra an example does not name made unimportable, so they cannot rot."""

from __future__ import annotations

import argparse
import textwrap

ASR_EN = "examples/asr/en"
ASR_HI = "examples/asr/hi"
BREAKS = "examples/breaks"
PAIRWISE = "examples/pairwise"
HUMAN = "examples/human"

# Commands registered without a description of their own.
DESCRIPTIONS: dict[str, str] = {
    "asr": "Classic ASR error rates as jiwer 4.0 computes them (metrics), sclite-style alignments (align), two-system "
    "comparison with significance tests (compare), and LASER rubric scores that grade each word-pair error "
    "(score; judge-card, classify, export-pairs and train around it). The classic rates count a change of "
    "case or punctuation as an error unless --normalize says otherwise: --normalize basic ignores both, as the "
    "demo does; LASER's rubric judges case, punctuation and spelling variants itself.",
    "asr align": "Aligns every reference with its hypothesis and shows the word (or character) pairs, sclite "
    "style: substitutions, deletions and insertions marked, columns aligned by display width.",
    "asr classify": "Labels word pairs with the LASER rubric (match, no penalty, minor, major) and an error type "
    "and reason, with the offline rules, a trained classifier or an LLM judge.",
    "asr export-pairs": "Writes labelled word pairs as a CSV dataset and, with --chat, as chat-format JSONL "
    "(system, user, assistant) for fine-tuning an open model with a standard LoRA tool.",
    "breaks": "Phrase-break (prosodic boundary) evaluation against several valid references (LMRE): convert "
    "annotation conventions, build reference tables from annotators or an LLM, and score hypotheses.",
    "breaks convert": "Reads annotations in one convention (inline tags, ToBI, K-ToBI, Mandarin marks, pause "
    "buckets, word/label sequences) and writes them inline or as word/label sequences.",
    "breaks merge": "Combines reference tables text by text; phrasings found in several tables have their "
    "counts summed (the paper's Combined setting).",
    "breaks from-annotators": "Builds a reference table from human annotations: every distinct phrasing of a "
    "text becomes a reference, counted once per annotator.",
    "pairwise": "Pairwise prosody judging of TTS clips with the Live-ProsodyJudge protocol: both orders, "
    "several samples, swap-back, accuracy and position bias, best-of-N selection and distillation data.",
    "pairwise analyze": "Accuracy of a judge's aggregated verdicts against human A/B labels (overall and per "
    "dimension), position bias, one call against the protocol, and optionally V_w weight selection.",
    "pairwise compare": "Paired bootstrap of the accuracy difference of two judges on the same pairs (the "
    "same resampled pair indices for both).",
    "pairwise select": "Best of N candidates per text by a round-robin tournament of pairwise judgments in "
    "both orders; Hit@1/2/3 against human top-k beside the random baselines.",
    "pairwise distill": "Turns teacher judgments into chat-format SFT examples, keeping only confident votes "
    "(4-0, 3-1 or 3+abstain), balancing winners between slots and tagging a curriculum.",
    "studio": "A web app that collects the human judgments that validate a metric, under the same rubric "
    "text the model judge gets, and exports them as the evaluators' --human inputs (pip extra [studio]).",
    "studio init": "Creates a study in DIR: the items (read in the evaluators' own formats), the task's scale "
    "and how many annotators see each item; SQLite in DIR unless --db names a PostgreSQL URL.",
    "studio invite": "Adds an annotator (or an admin with --admin) and prints their personal link; only a hash "
    "of the token is stored.",
    "studio serve": "Runs the annotator and admin pages (127.0.0.1 unless --host says otherwise); every answer is "
    "committed on submit.",
    "studio export": "Writes the answers in the file the evaluator's --human option reads (A/B and candidate "
    "orders mapped back to the physical clips).",
    "stats": "Agreement of a metric with human scores: Pearson, Spearman and Kendall with bootstrap intervals.",
    "llm": "Model judges behind one wrapper (cache, limits, retries, accounting): check that one answers, or "
    "send a file of prompts through it.",
    "cache": "The persistent cache of model answers, shared by every model-judged command.",
    "cache stats": "Shows the number of cached answers and their size, per judge.",
    "cache clear": "Deletes cached answers, all of them or one judge's.",
    "demo": "Runs the offline evaluators on the shipped examples/: ASR metrics and significance, LASER beside "
    "WER, phrase breaks against one and two annotators, and the acoustic prosody judge. No key, no download.",
}

# One or two runnable examples per parser ("" is the top level).
EXAMPLES: dict[str, list[str]] = {
    "": [
        f"voxjudge asr metrics --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_a.txt --ids --normalize basic",
        "voxjudge demo",
    ],
    "asr": [
        f"voxjudge asr metrics --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_a.txt --ids --normalize basic",
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids",
    ],
    "asr metrics": [
        f"voxjudge asr metrics --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_a.txt --ids --normalize basic --by-speaker",
        f"voxjudge asr metrics --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --normalize hindi "
        "--unit grapheme --json",
        f"voxjudge asr metrics --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_a.txt --ids --normalize basic "
        "--embedder openai/text-embedding-3-small --dry-run",
    ],
    "asr align": [
        f"voxjudge asr align --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_a.txt --ids --normalize basic --errors-only "
        "--limit 3",
        f"voxjudge asr align --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_a.txt --ids --out pairs.csv",
    ],
    "asr compare": [
        f"voxjudge asr compare --ref {ASR_EN}/ref.txt --hyp-a {ASR_EN}/sys_a.txt --hyp-b {ASR_EN}/sys_b.txt "
        "--ids --normalize basic",
        f"voxjudge asr compare --ref {ASR_EN}/ref.txt --hyp-a {ASR_EN}/sys_a.txt --hyp-b {ASR_EN}/sys_b.txt "
        "--ids --normalize basic --embedder fake/hash --max-cost 0.05 --rpm 600 --json",
    ],
    "asr score": [
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --human {ASR_HI}/human_b.tsv "
        "--report laser.html",
        f"voxjudge asr score --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_b.txt --ids --lang en --json",
        f"voxjudge asr score --ref {ASR_EN}/ref.txt --hyp {ASR_EN}/sys_b.txt --ids --judge rules "
        "--embedder openai/text-embedding-3-small --dry-run",
    ],
    "asr judge-card": [
        f"voxjudge asr judge-card --preferences {HUMAN}/hats_sample.tsv --ratings {HUMAN}/ratings_sample.csv",
        f"voxjudge asr judge-card --preferences {HUMAN}/hats_sample.tsv --judge default --judge rules "
        "--resamples 2000 --json",
        f"voxjudge asr judge-card --ratings {HUMAN}/ratings_sample.csv --ratings-group-col utterance "
        "--methods pearson,kendall",
    ],
    "asr classify": [
        f"voxjudge asr align --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --out pairs.csv && "
        "voxjudge asr classify pairs.csv --lang hi --out labels.csv",
    ],
    "asr export-pairs": [
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --out scored.jsonl && "
        "voxjudge asr export-pairs scored.jsonl --out pairs.csv --chat pairs.chat.jsonl",
    ],
    "asr train": [
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --out scored.jsonl && "
        "voxjudge asr train scored.jsonl --out hindi.model.json",
    ],
    "breaks": [f"voxjudge breaks score --ref {BREAKS}/table.jsonl --hyp {BREAKS}/hypotheses.tsv"],
    "breaks convert": [f"voxjudge breaks convert {BREAKS}/annotator_a.txt --to sequence"],
    "breaks merge": [
        f"voxjudge breaks from-annotators {BREAKS}/annotator_a.txt --out a.jsonl && "
        f"voxjudge breaks from-annotators {BREAKS}/annotator_b.txt --out b.jsonl && "
        "voxjudge breaks merge a.jsonl b.jsonl --out combined.jsonl",
    ],
    "breaks from-annotators": [
        f"voxjudge breaks from-annotators {BREAKS}/annotator_a.txt {BREAKS}/annotator_b.txt --out table.jsonl",
    ],
    "breaks build-refs": [
        f"voxjudge breaks build-refs --texts {BREAKS}/texts.txt --pool {BREAKS}/pool.txt "
        "--judge fake/schema --out table.jsonl --dry-run",
    ],
    "breaks score": [
        f"voxjudge breaks score --ref {BREAKS}/table.jsonl --hyp {BREAKS}/hypotheses.tsv "
        f"--human {BREAKS}/human.tsv --report lmre.html",
        f"voxjudge breaks score --ref {BREAKS}/table.jsonl --hyp {BREAKS}/hypotheses.tsv --metric em --json",
    ],
    "pairwise": [f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --out judgments.jsonl"],
    "pairwise judge": [
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --out judgments.jsonl",
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --judge fake/prosody --samples 4 --out fake.jsonl",
    ],
    "pairwise analyze": [
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --out judgments.jsonl && "
        f"voxjudge pairwise analyze judgments.jsonl --pairs {PAIRWISE}/pairs.jsonl",
    ],
    "pairwise compare": [
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --out acoustic.jsonl && "
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --judge fake/prosody --samples 4 --out fake.jsonl && "
        f"voxjudge pairwise compare acoustic.jsonl fake.jsonl --pairs {PAIRWISE}/pairs.jsonl --resamples 2000",
    ],
    "studio": [
        f"voxjudge studio init study --task pairwise --items {PAIRWISE}/pairs.jsonl --per-item 3",
    ],
    "studio init": [
        f"voxjudge studio init ratings --task asr-sentence --items {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids",
    ],
    "studio invite": [
        f"voxjudge studio init pilot --task pairwise --items {PAIRWISE}/pairs.jsonl && "
        "voxjudge studio invite pilot --annotator maria",
    ],
    "studio serve": [
        f"voxjudge studio init listening --task pairwise --items {PAIRWISE}/pairs.jsonl && "
        "voxjudge studio serve listening --port 8750",
    ],
    "studio export": [
        f"voxjudge studio init answers --task pairwise --items {PAIRWISE}/pairs.jsonl && "
        "voxjudge studio export answers --out pairs_human.jsonl",
    ],
    "pairwise select": [f"voxjudge pairwise select --candidates {PAIRWISE}/candidates.jsonl"],
    "pairwise distill": [
        f"voxjudge pairwise judge --pairs {PAIRWISE}/pairs.jsonl --samples 4 --out teacher.jsonl && "
        f"voxjudge pairwise distill teacher.jsonl --pairs {PAIRWISE}/pairs.jsonl --keep 3-1 --out sft.jsonl",
    ],
    "stats": [
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --out scored.jsonl && "
        f"voxjudge stats agree --metric scored.jsonl --metric-col laser --human {ASR_HI}/human_b.tsv",
    ],
    "stats agree": [
        f"voxjudge asr score --ref {ASR_HI}/ref.txt --hyp {ASR_HI}/sys_b.txt --ids --out scored.jsonl && "
        f"voxjudge stats agree --metric scored.jsonl --metric-col laser --human {ASR_HI}/human_b.tsv",
    ],
    "llm": ["voxjudge llm ping --judge fake/schema"],
    "llm ping": ["voxjudge llm ping --judge fake/schema", "voxjudge llm ping --judge fake/schema --json"],
    "llm run": [
        "voxjudge llm run examples/llm/prompts.jsonl --judge fake/schema --schema examples/llm/answer.schema.json "
        "--out answers.jsonl",
        "voxjudge llm run examples/llm/prompts.jsonl --judge fake/schema --n 3 --dry-run",
    ],
    "cache": ["voxjudge cache stats"],
    "cache stats": ["voxjudge cache stats", "voxjudge cache stats --json"],
    "cache clear": ["voxjudge cache clear --judge fake/schema"],
    "demo": ["voxjudge demo"],
}

# Commands whose examples need a pip extra (every example of the command needs it).
EXTRAS: dict[str, str] = {
    "asr score": "report",  # an example writes --report (matplotlib)
    "breaks score": "report",
    "asr train": "train",
    "studio": "studio",
    "studio init": "studio",
    "studio invite": "studio",
    "studio serve": "studio",
    "studio export": "studio",
}

# Appended to the help of every command that has --normalize.
_NORMALIZE_NOTE = "normalization presets and steps (--normalize):"


class HelpFormatter(argparse.HelpFormatter):
    """Wraps each paragraph of a description or epilog, keeps indented lines (examples, tables) as
    written, and says every option's default."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for block in text.split("\n\n"):
            lines = block.split("\n")
            if all(line.startswith("  ") or not line.strip() for line in lines[1:]) and len(lines) > 1:
                out.append("\n".join(indent + line for line in lines))  # a heading with indented lines
            elif block.startswith("  "):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(
                    textwrap.fill(" ".join(block.split()), width, initial_indent=indent, subsequent_indent=indent)
                )
        return "\n\n".join(out)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        # a flag's default is its absence: "(default: True)" under --no-ids would read as "on"
        no_default = action.default is None or isinstance(action.default, bool) or action.default == argparse.SUPPRESS
        if "default" in text or no_default or action.required:
            return text
        if not action.option_strings:
            return text
        return text + " (default: %(default)s)"


def _normalize_note() -> str:
    from voxjudge.asr.normalize import describe

    return _NORMALIZE_NOTE + "\n" + "\n".join("  " + line for line in describe().split("\n"))


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield path, parser
    for action in parser._actions:  # noqa: SLF001 - argparse keeps subparsers here
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            for name, sub in action.choices.items():
                yield from _walk(sub, (*path, name))


def commands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every parser in the tree by its command path ("" for the top level)."""
    return [(" ".join(path), p) for path, p in _walk(parser)]


def teach(parser: argparse.ArgumentParser) -> None:
    """Give every parser in the tree its description, stated defaults and examples."""
    for name, p in commands(parser):
        p.formatter_class = HelpFormatter
        if not p.description and name in DESCRIPTIONS:
            p.description = DESCRIPTIONS[name]
        parts = [p.epilog] if p.epilog else []
        if any("--normalize" in a.option_strings for a in p._actions):  # noqa: SLF001
            parts.append(_normalize_note())
        if EXAMPLES.get(name):
            parts.append(f"examples ({example_setting(name)}):\n" + "\n".join("  " + e for e in EXAMPLES[name]))
        p.epilog = "\n\n".join(parts) or None


def example_setting(name: str) -> str:
    """Where and after which install the examples of command ``name`` run."""
    extra = EXTRAS.get(name)
    return "from the project root" + (f", after pip install 'voxjudge[{extra}]'" if extra else "")


def example_commands() -> list[tuple[str, str]]:
    """``(command, example)`` for every example, for the test that runs them."""
    return [(name, e) for name, examples in EXAMPLES.items() for e in examples]


__all__ = ["DESCRIPTIONS", "EXAMPLES", "EXTRAS", "HelpFormatter", "commands", "example_commands", "teach"]
