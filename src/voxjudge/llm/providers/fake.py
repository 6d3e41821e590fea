"""Scripted judge for tests and demos, registered exactly like a real provider.

``fake/<script>`` where script is a registered name (``echo``, ``schema``, or one added with
``register_fake_script``) or the path of a JSONL file whose lines are replayed in order (then
from the top): ``{"text": ...}``, ``{"json": ...}``, ``{"error": "transient"|"permanent",
"status": 429, "retry_after": 1}``, each optionally with ``"latency"`` in seconds.

Options: ``latency`` (seconds per call), ``error_rate`` (share of calls failing with a transient
503, seeded), ``fail_first`` (the first k calls fail with 429), ``seed``. Position bias and other
judge behaviour are written as script callables, which get the request and the sample index.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from voxjudge.io.readers import split_lines
from voxjudge.llm.errors import ConfigError, PermanentError, TransientError
from voxjudge.llm.registry import Capabilities
from voxjudge.llm.scripts import (  # noqa: F401  (FakeReply, register_fake_script: their old home)
    _SCRIPTS,
    FakeReply,
    Script,
    example_from_schema,
    register_fake_script,
)
from voxjudge.llm.spec import JudgeSpec
from voxjudge.llm.types import Completion, ProviderResult, Request, Usage
from voxjudge.llm.usage import estimate_request_tokens, estimate_tokens


def _jsonl_script(path: Path) -> Script:
    try:
        lines = [json.loads(line) for line in split_lines(path.read_text(encoding="utf-8")) if line.strip()]
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}: fake script line is not JSON") from None
    if not lines:
        raise ConfigError(f"{path}: fake script is empty")
    state = {"next": 0}

    def script(request: Request, index: int) -> Any:
        entry = lines[state["next"] % len(lines)]
        state["next"] += 1
        if "error" in entry:
            kind = TransientError if entry["error"] != "permanent" else PermanentError
            if kind is TransientError:
                return TransientError(
                    "fake: scripted error", status=entry.get("status", 503), retry_after=entry.get("retry_after")
                )
            return PermanentError("fake: scripted error", status=entry.get("status", 400))
        text = entry["text"] if "text" in entry else json.dumps(entry.get("json"), ensure_ascii=False)
        return FakeReply(text, entry.get("finish_reason", "stop"), entry.get("latency"))

    return script


class FakeBackend:
    supports_n = True
    capabilities = Capabilities(n_samples=True, audio=True)

    def __init__(self, spec: JudgeSpec):
        self.spec = spec
        name = spec.model
        if name in _SCRIPTS:
            self.script = _SCRIPTS[name]
        elif name.endswith(".jsonl") and Path(name).is_file():
            self.script = _jsonl_script(Path(name))
        else:
            raise ConfigError(
                f"fake: no script {name!r}; use one of {', '.join(sorted(_SCRIPTS))} or a .jsonl file path"
            )
        opts = spec.options
        try:
            self.latency = float(opts.get("latency", 0))
            self.error_rate = float(opts.get("error_rate", 0))
            self.fail_first = int(opts.get("fail_first", 0))
            self.rng = random.Random(int(opts.get("seed", 0)))
        except ValueError as e:
            raise ConfigError(f"fake: bad option value in {spec.name}: {e}") from None
        if opts.get("constrained", "").lower() in ("1", "true", "yes", "on"):
            # Stands in for a grammar-constrained backend in tests of capability branching.
            self.capabilities = Capabilities(n_samples=True, audio=True, constrained=True)
        self.calls = 0

    async def complete(self, request: Request, n: int) -> ProviderResult:
        self.calls += 1
        latency = self.latency
        if self.calls <= self.fail_first:
            await asyncio.sleep(latency)
            raise TransientError("fake: rate limited", status=429, retry_after=0.0)
        if self.error_rate and self.rng.random() < self.error_rate:
            await asyncio.sleep(latency)
            raise TransientError("fake: injected server error", status=503)
        samples = []
        takes_options = getattr(self.script, "takes_options", False)
        for index in range(n):
            out = self.script(request, index, self.spec.options) if takes_options else self.script(request, index)
            if isinstance(out, BaseException):
                await asyncio.sleep(latency)
                raise out
            if isinstance(out, FakeReply):
                latency = out.latency if out.latency is not None else latency
                samples.append(Completion(out.text, out.finish_reason))
            elif isinstance(out, str):
                samples.append(Completion(out, "stop"))
            else:
                samples.append(Completion(json.dumps(out, ensure_ascii=False), "stop"))
        if latency:
            await asyncio.sleep(latency)
        usage = Usage(estimate_request_tokens(request), sum(estimate_tokens(s.text) for s in samples))
        return ProviderResult(samples, usage, latency=latency, structured=request.schema is not None)

    async def aclose(self) -> None:
        return None
