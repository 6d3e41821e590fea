"""Options and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import json
import math
import os
import string
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from voxjudge.cli.bootstrap_options import add_bootstrap_options, check_bootstrap_options  # noqa: F401 (shared bundle)
from voxjudge.errors import InputError


def add_input_options(p: argparse.ArgumentParser, *, speakers: bool = False) -> None:
    g = p.add_argument_group("input")
    g.add_argument(
        "--ids", action="store_true", default=None, help="text files are Kaldi style 'id text' (match utterances by id)"
    )
    g.add_argument(
        "--no-ids",
        dest="ids",
        action="store_false",
        default=None,  # the dest's default is --ids's: not given
        help="the text files have no ids: a first word that looks like one is a word (silences the warning)",
    )
    g.add_argument(
        "--format",
        default="auto",
        choices=["auto", "text", "kaldi", "tsv", "csv", "jsonl"],
        help="input format (default: by suffix: .tsv .csv .jsonl, else line-aligned text, or Kaldi with --ids)",
    )
    g.add_argument("--text-col", default="text", help="text column/field in TSV, CSV or JSONL input (default: text)")
    g.add_argument("--id-col", default="id", help="id column/field in TSV, CSV or JSONL input (default: id)")
    if speakers:
        g.add_argument(
            "--speaker-col", default="speaker", help="speaker column/field, used by --by-speaker (default: speaker)"
        )


NORMALIZE_HELP = (
    "a preset (none, basic, strict, hindi, marathi, arabic) or steps joined by '+', e.g. basic+devanagari; "
    "applied to both sides{before} (default: none{why}; presets and steps are listed below)"
)


def add_normalize_option(g, *, before: str = "", why: str = "") -> None:
    """``--normalize SPEC`` (``asr.normalize.get_normalizer``), the same for every asr command."""
    g.add_argument("--normalize", default="none", metavar="SPEC", help=NORMALIZE_HELP.format(before=before, why=why))


def add_text_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("text processing")
    add_normalize_option(g)
    g.add_argument(
        "--split",
        default="unicode",
        choices=["unicode", "jiwer"],
        help="word splitting: 'unicode' splits on any whitespace (default); 'jiwer' reproduces jiwer 4.0 exactly",
    )


def read_settings(args: argparse.Namespace) -> dict[str, Any]:
    """How ``add_input_options`` read a transcript file, as ``io.read_texts`` keywords."""
    return {
        "fmt": args.format,
        "ids": args.ids,
        "text_field": args.text_col,
        "id_field": args.id_col,
        "speaker_field": getattr(args, "speaker_col", "speaker"),
    }


def read_file(args: argparse.Namespace, path: str):
    from voxjudge.io import read_texts

    return read_texts(path, **read_settings(args))


def read_pair(args: argparse.Namespace, ref_path: str, hyp_path: str):
    from voxjudge.io import pair_texts

    paired = pair_texts(read_file(args, ref_path), read_file(args, hyp_path))
    warn_leading_ids(args, paired)
    return paired


def warn_leading_ids(args: argparse.Namespace, *paired) -> None:
    """Once per command: line-aligned files whose lines all begin with the same id-like token on
    both sides are probably Kaldi files read without --ids (the ids would count as words)."""
    if args.ids is not None:  # --ids or --no-ids was given
        return
    for p in paired:
        if p.leading_ids:
            shown = ", ".join(repr(t) for t in p.leading_ids[:3])
            print(
                f"voxjudge: warning: every line of both files begins with the same id-like token ({shown}, ...), "
                "and these count as words; pass --ids if they are utterance ids (Kaldi 'id text'), "
                "or --no-ids if they are words",
                file=sys.stderr,
            )
            return


def normalizer(args: argparse.Namespace):
    from voxjudge.asr.normalize import get_normalizer

    return get_normalizer(args.normalize)


def ignores_case_and_punctuation(spec: str) -> bool:
    from voxjudge.asr.normalize import get_normalizer

    norm = get_normalizer(spec)
    steps = set(norm.steps) if norm else set()
    return bool(steps & {"lower", "casefold"}) and "punct" in steps


@dataclass
class CasePunct:
    """What case and punctuation do to a run's word errors (``case_punct_counts``)."""

    before: Any  # ErrorCounts as the command counted them (None: not counted, see ``after``)
    after: Any  # ErrorCounts with case and punctuation ignored too; None on a corpus over the limit
    changed: int  # utterances whose texts have upper case, punctuation or non-NFC text


# Counting again costs an alignment of every utterance with case or punctuation: past this many of
# their reference words, the note says that there are some, without counting what they cost.
CASE_PUNCT_WORDS = 200_000


def case_punct_counts(rows, spec: str, *, split: str = "unicode", current=None, batch: int = 20_000):
    """``CasePunct`` for ``rows`` ((reference, hypothesis) pairs; iterated twice, in batches):
    the corpus word counts as ``--normalize spec`` counts them (``current``, when the command has
    them already) and with case and punctuation ignored as well (``spec+basic``), the two sides of
    the case/punctuation note (``views.shared.render_case_punct_note``). None when ``spec``
    ignores both already.

    Cheap where it cannot matter: under ``none`` (and the default split), an utterance whose two
    texts have no upper case, no punctuation and are NFC counts the same both ways, so only the
    others are counted again (a lower-case, unpunctuated corpus: one scan, no alignment); past
    ``CASE_PUNCT_WORDS`` reference words to count again, nothing is counted (``after`` None)."""
    if ignores_case_and_punctuation(spec):
        return None
    from itertools import chain, islice

    from voxjudge.asr.error_counts import ErrorCounts
    from voxjudge.asr.measures import compute_metrics
    from voxjudge.asr.normalize import get_normalizer

    plain = spec.strip() in ("", "none")
    as_given, ignored = get_normalizer(spec), get_normalizer("basic" if plain else f"{spec}+basic")
    skip = _untouched_by_basic if plain and split == "unicode" else None

    def batches():
        it = iter(rows)
        while part := list(islice(it, batch)):
            yield part

    def changed_in(part):
        if skip is not None and skip("\n".join(chain.from_iterable(part))):
            return []
        return [(r, h) for r, h in part if skip is None or not (skip(r) and skip(h))]

    def count(part, norm) -> ErrorCounts:
        if not part:
            return ErrorCounts()
        refs, hyps = [r for r, _ in part], [h for _, h in part]
        result = compute_metrics(
            refs, hyps, normalizer=norm, split=split, units=("word",), per_utterance=False, char_counts=False
        )
        return result.corpus_word

    changed, words, kept = 0, 0, []
    for part in batches():  # the scan: what there is to count again, kept while it is small
        found = changed_in(part)
        changed += len(found)
        words += sum(r.count(" ") + 1 for r, _ in (part if current is None else found))
        if words <= CASE_PUNCT_WORDS:
            kept += found
    if words > CASE_PUNCT_WORDS:
        return CasePunct(current, None, changed)
    before = current
    if current is None:
        before = ErrorCounts()
        for part in batches():
            before = before + count(part, as_given)
    if not kept:
        return CasePunct(before, before, 0)
    changed_before, changed_after = count(kept, as_given), count(kept, ignored)
    after = ErrorCounts(*(b - x + y for b, x, y in zip(before, changed_before, changed_after)))
    return CasePunct(before, after, changed)


_PUNCT = None
_ASCII_MARKS = (string.punctuation + string.ascii_uppercase).encode()


def _untouched_by_basic(text: str) -> bool:
    """``--normalize basic`` leaves the words of ``text`` as they are: NFC, no upper case, no
    punctuation (ASCII text is checked on its bytes: the scan costs a few percent of a count)."""
    if text.isascii():
        data = text.encode()
        return len(data.translate(None, _ASCII_MARKS)) == len(data)
    global _PUNCT
    if _PUNCT is None:
        import regex

        _PUNCT = regex.compile(r"\p{P}")
    import unicodedata

    return text.lower() == text and unicodedata.is_normalized("NFC", text) and not _PUNCT.search(text)


def given_options(args: argparse.Namespace, add_options) -> list[str]:
    """The flags that ``add_options`` (a function adding arguments to a parser) defines and that
    ``args`` holds at another value than their default: the options the user gave."""
    scratch = argparse.ArgumentParser(add_help=False)
    add_options(scratch)
    return [
        a.option_strings[0]
        for a in scratch._actions
        if a.option_strings and getattr(args, a.dest, a.default) != a.default
    ]


def refuse_unused(flags: list[str], rest: str, *, verb=("goes", "go"), sep: str = " and ", error=InputError) -> None:
    """Options given where they cannot change the run are refused in one line, never ignored: the
    flags, their verb (one flag, several) and ``rest``, in which {it} reads "it" or "them"."""
    if flags:
        one = len(flags) == 1
        raise error(f"{sep.join(flags)} {verb[0] if one else verb[1]} {rest.format(it='it' if one else 'them')}")


def say_note(text: str | None) -> None:
    """A note for the user on stderr (stdout stays the command's output)."""
    if text:
        print(text, file=sys.stderr)


def _clean(obj: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    return obj


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(_clean(obj), ensure_ascii=False, indent=2) + "\n")


def check_outputs(records=(), files=(), inputs=()) -> None:
    """Before any work: every output path can be written (record outputs: by a known suffix), and
    none is one of the command's ``inputs``."""
    from voxjudge.io.writers import check_outputs as check

    check(records=records, files=files, inputs=inputs)


def write_all(outputs: dict) -> None:
    """Every output of a command, whole or none. Values: text, a list of records (NaN -> null), or
    a ``RecordStream`` already written."""
    from voxjudge.io.writers import RecordStream, write_outputs

    write_outputs(
        {
            p: c if isinstance(c, (str, bytes, RecordStream)) else [_clean(r) for r in c]
            for p, c in outputs.items()
            if p is not None
        }
    )


def write_out(path: str | None, records: list[dict]) -> None:
    if path:
        write_all({path: records})


def write_text(path: str, lines: list[str]) -> None:
    """Write lines to a file whole or not at all."""
    write_all({path: "\n".join(lines) + "\n"})


def use_color(stream=None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def console():
    from rich.console import Console

    # Piped output gets a fixed, roomy width instead of rich's 80-column fallback.
    width = None if sys.stdout.isatty() else 120
    return Console(highlight=False, soft_wrap=True, width=width)


def add_align_limit(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-align-minutes",
        type=float,
        default=None,
        metavar="M",
        help="refuse a line whose alignment would take longer than M minutes, before aligning it (the run "
        "stops there, exit status 2, nothing written); estimated from the length of what differs (the common "
        "start and end cost nothing) at speeds measured on a 2-core machine: about 1.45M words against as "
        "many for 10 min; 0 for no limit (default: 10). Memory grows with the time allowed: the refusal "
        "gives both estimates, and a higher limit lets a line take that memory too",
    )


@contextmanager
def align_limit(args: argparse.Namespace) -> Iterator[None]:
    """``--max-align-minutes`` in force for the command's work."""
    from voxjudge.asr import longform

    minutes = args.max_align_minutes
    if minutes is not None and not (minutes >= 0 and math.isfinite(minutes)):
        raise InputError(f"--max-align-minutes must be 0 or more minutes, not {minutes:g}")
    with longform.limit(longform.DEFAULT_MINUTES if minutes is None else minutes):
        yield


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[[int, int], None] | None]:
    """A transient progress bar on stderr, only when stderr is a terminal. A long alignment
    (``asr.longform``) shows what it is aligning and how long it should take while it runs (the
    elapsed time keeps counting)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from voxjudge.asr import longform

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        def say(text: str | None) -> None:
            bar.update(task, description=text or description)
            bar.refresh()

        with longform.announcing(say):
            yield update


def fmt_rate(value: float) -> str:
    return f"{100 * value:.2f}%"


def speaker_labels(ids: list[str], speakers: list[str | None], sep: str) -> list[str]:
    """Speaker per utterance: the speaker column when present, else the id prefix before ``sep``."""
    if all(s is not None for s in speakers):
        return [str(s) for s in speakers]
    if not any(sep in uid for uid in ids):
        raise InputError(
            f"--by-speaker: no speaker column and no id contains the separator {sep!r}; "
            "add a speaker column or set --speaker-sep"
        )
    return [uid.split(sep, 1)[0] for uid in ids]


def alias(p: argparse.ArgumentParser, option: str, *old: str) -> None:
    """Accept ``old`` spellings of ``option`` without listing them in --help or in messages, so
    renamed options keep working in scripts. (The parser looks options up in this table.)"""
    action = p._option_string_actions[option]  # noqa: SLF001 - argparse's option table
    for name in old:
        p._option_string_actions[name] = action  # noqa: SLF001
