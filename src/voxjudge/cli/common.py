"""Options and output helpers shared by the commands."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from voxjudge.cli.bootstrap_options import add_bootstrap_options, check_bootstrap_options  # noqa: F401 (shared bundle)
from voxjudge.errors import InputError


def add_input_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input")
    g.add_argument("--ids", action="store_true", help="text files are Kaldi style 'id text' (match utterances by id)")
    g.add_argument(
        "--format",
        default="auto",
        choices=["auto", "text", "kaldi", "tsv", "csv", "jsonl"],
        help="input format (default: by suffix: .tsv .csv .jsonl, else line-aligned text, or Kaldi with --ids)",
    )
    g.add_argument("--text-col", default="text", help="text column/field in TSV, CSV or JSONL input (default: text)")
    g.add_argument("--id-col", default="id", help="id column/field in TSV, CSV or JSONL input (default: id)")
    g.add_argument(
        "--speaker-col", default="speaker", help="speaker column/field, used by --by-speaker (default: speaker)"
    )


def add_text_options(p: argparse.ArgumentParser) -> None:
    from voxjudge.asr.normalize import describe

    g = p.add_argument_group("text processing")
    g.add_argument(
        "--normalize",
        default="none",
        metavar="SPEC",
        help="normalization preset or steps joined by '+' (default: none). " + describe().replace("\n", "; "),
    )
    g.add_argument(
        "--split",
        default="unicode",
        choices=["unicode", "jiwer"],
        help="word splitting: 'unicode' splits on any whitespace (default); 'jiwer' reproduces jiwer 4.0 exactly",
    )


def read_file(args: argparse.Namespace, path: str):
    from voxjudge.io import read_texts

    return read_texts(
        path,
        fmt=args.format,
        ids=args.ids,
        text_field=args.text_col,
        id_field=args.id_col,
        speaker_field=args.speaker_col,
    )


def read_pair(args: argparse.Namespace, ref_path: str, hyp_path: str):
    from voxjudge.io import pair_texts

    return pair_texts(read_file(args, ref_path), read_file(args, hyp_path))


def normalizer(args: argparse.Namespace):
    from voxjudge.asr.normalize import get_normalizer

    return get_normalizer(args.normalize)


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


def write_out(path: str | None, records: list[dict]) -> None:
    if path:
        from voxjudge.io.writers import write_records

        write_records(path, [_clean(r) for r in records])


def write_text(path: str, lines: list[str]) -> None:
    """Write lines to a file whole or not at all (temp file + rename)."""
    import os
    import tempfile

    target = Path(path)
    if not target.parent.exists():
        raise InputError(f"{target}: directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def use_color(stream=None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def console():
    from rich.console import Console

    # Piped output gets a fixed, roomy width instead of rich's 80-column fallback.
    width = None if sys.stdout.isatty() else 120
    return Console(highlight=False, soft_wrap=True, width=width)


@contextmanager
def progress_bar(description: str) -> Iterator[Callable[[int, int], None] | None]:
    """A transient progress bar on stderr, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeRemainingColumn,
    )

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

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
