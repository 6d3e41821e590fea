"""Entry point: ``voxjudge <group> <command>``. Input errors become one line and exit status 2; a
full disk one line and exit status 1."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import threading

from voxjudge import __version__
from voxjudge.errors import InputError, VoxjudgeError

EXIT_OUTPUT = 1  # an output could not be written (a full disk)
EXIT_INPUT = 2
EXIT_MODEL = 3  # the documented 'incomplete' status: the model left work undone
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 128 + signal.SIGTERM  # as a shell reports a process that SIGTERM ended


class Terminated(KeyboardInterrupt):
    """SIGTERM (``timeout``, ``kill``, a scheduler or a container stopping): the command stops as
    on Ctrl-C, so its temporary files are removed and no records file is left half written."""


def _terminated(signum, frame) -> None:
    raise Terminated


_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


# Command modules in the order their commands are listed.
_MODULES = ("asr", "breaks", "pairwise", "stats", "llm", "demo", "studio")
# Top-level commands and the module that registers each, with their one-line help: start-up builds
# only the command that was asked for and lists the others from here (tests check the help matches).
_COMMANDS = {
    "asr": ("asr", "classic ASR metrics, alignments, system comparison, LASER rubric scores (asr score)"),
    "breaks": ("breaks", "multi-reference phrase-break evaluation (LMRE)"),
    "pairwise": ("pairwise", "pairwise prosody judging (Live-ProsodyJudge protocol)"),
    "stats": ("stats", "agreement statistics"),
    "llm": ("llm", "model judges: check that one answers"),
    "cache": ("llm", "the model response cache"),
    "demo": ("demo", "run the offline evaluators on the shipped examples/ (no API key, no download)"),
    "studio": ("studio", "collect human judgments in the browser (needs voxjudge[studio])"),
}


class _Version(argparse.Action):
    """``--version``: the version, and whether LASER's plain lines run compiled (asked only then)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from voxjudge.asr.laser.plain_kernel import kernel_name

        sys.stdout.write(f"voxjudge {__version__} (LASER plain lines: {kernel_name()})\n")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """A usage error is one line, as every other error is (argparse prints the whole usage first)."""

    def error(self, message: str):
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message} (see: {self.prog} --help)\n")

    def parse_args(self, args=None, namespace=None):
        # argparse reports arguments no command took from the top parser, so the message would
        # point to `voxjudge --help`: it comes from the command's own parser instead
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._command(sys.argv[1:] if args is None else args).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _command(self, argv) -> argparse.ArgumentParser:
        """The parser of the command ``argv`` names (its leading words), else this one."""
        parser: argparse.ArgumentParser = self
        for word in argv:
            sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
            if sub is None or word not in sub.choices:
                break
            parser = sub.choices[word]
        return parser


def _requested(argv: list[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``argv``, only the requested command is built in full (fast start-up)."""
    import importlib

    parser = _Parser(
        prog="voxjudge",
        description="Evaluate speech systems the way careful human raters would.",
        epilog="Run 'voxjudge <command> --help' for the options of each command.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version (and how LASER runs) and exit")
    groups = parser.add_subparsers(dest="group", metavar="<command>", required=True)
    wanted = None if argv is None else _COMMANDS.get(_requested(argv) or "", (None,))[0]
    for module in _MODULES:
        names = [name for name, (m, _) in _COMMANDS.items() if m == module]
        if argv is None or module == wanted or not names:
            importlib.import_module(f"voxjudge.cli.{module}").register(groups)
        else:
            for name in names:
                groups.add_parser(name, help=_COMMANDS[name][1])
    from voxjudge.cli.helptext import teach

    teach(parser)
    return parser


def _closed_streams_to_devnull() -> None:
    """A command run with stdout or stderr closed (``>&-``) has None there: what it prints goes
    nowhere, as asked, instead of an AttributeError; the descriptor is held by /dev/null so that
    no file opened later (a records file) takes its number and gets the output."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, os.O_WRONLY)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))


def _saved() -> str:
    """What a stopped command had already put in place, for its last line (or nothing)."""
    from voxjudge.io.writers import written

    paths = written()
    return f"; {', '.join(paths)} had already been written in full" if paths else ""


def run() -> None:
    """The ``voxjudge`` command: ``main``, then exit with its status. Once the command is done, a
    stop signal is ignored: it could only turn a finished run's status into 130 or 143."""
    sys.exit(main(_done_ignores_signals=True))


def main(argv: list[str] | None = None, *, _done_ignores_signals: bool = False) -> int:
    on_term = threading.current_thread() is threading.main_thread()  # (only there can Python take a signal)
    before = signal.signal(signal.SIGTERM, _terminated) if on_term else None
    ray_before, stop_ray = True, None
    try:  # from the start: a Ctrl-C while the command's modules load is one line too
        from voxjudge.io.writers import forget_written

        forget_written()
        _closed_streams_to_devnull()
        argv = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        from voxjudge.llm.ray_running import ray_running, stop_ray

        ray_before = ray_running()
        return int(args.func(args) or 0)
    except InputError as e:
        from voxjudge.cli.wording import worded

        print(f"voxjudge: error: {worded(e)}", file=sys.stderr)
        return EXIT_INPUT
    except VoxjudgeError as e:  # a model that failed for good (an embedder that cannot embed, a server gone)
        print(f"voxjudge: error: {e}", file=sys.stderr)
        return EXIT_MODEL
    except Terminated:
        print(f"voxjudge: terminated (SIGTERM){_saved()}", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print(f"voxjudge: interrupted{_saved()}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. piped into head); not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as e:
        if e.errno not in _NO_SPACE:
            raise
        where = f" ({e.filename})" if e.filename else ""
        if e.filename is None and _saved():  # the outputs were saved: printing the results failed
            print(f"voxjudge: error: {e.strerror} writing the results to the terminal{_saved()}", file=sys.stderr)
        else:
            print(f"voxjudge: error: {e.strerror}{where}: the run stopped; free space and run again", file=sys.stderr)
        return EXIT_OUTPUT
    finally:
        if not ray_before and stop_ray is not None:  # a Ray this command started (--engine ray) stops with it
            try:
                stop_ray()
            except KeyboardInterrupt:  # (Ctrl-C or SIGTERM while Ray stops: the command ends all the same)
                pass
        if on_term and _done_ignores_signals:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        elif on_term:
            signal.signal(signal.SIGTERM, before)


if __name__ == "__main__":
    run()
