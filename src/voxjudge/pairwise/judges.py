"""Pair judges: something that hears a text and two clips (in a presented order) and scores both.

* ``LLMPairJudge``: an audio LLM through ``voxjudge.llm`` (Gemini, OpenAI audio models, an
  OpenAI-compatible vLLM server with an Omni model, or the fake provider). ``coupled`` mode asks
  once for every dimension plus a summary and an overall verdict; ``per-dimension`` mode asks once
  per dimension for a rationale and a score pair. Several samples come from one request (n).
* ``AcousticPairJudge``: the offline judge; rates each clip from its waveform and abstains on
  the dimensions it cannot measure.

A dimension with a missing or unusable score is an *abstention*: recorded, counted, never guessed.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

from voxjudge.io.audio import audio_part
from voxjudge.llm import AudioPart, Judge, Message, Request, TextPart
from voxjudge.llm.providers.fake import register_fake_script
from voxjudge.pairwise.acoustic import AcousticJudge
from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.rubric import Rubric

MODES = ("coupled", "per-dimension")


@dataclass
class SlotJudgment:
    """One sampled judgment in presented order: scores of the first and second slot."""

    first: dict[str, float] = field(default_factory=dict)
    second: dict[str, float] = field(default_factory=dict)
    rationale: dict[str, str] = field(default_factory=dict)
    verdict: str | None = None  # coupled mode: "first", "second" or "tie"
    error: str | None = None


class PairJudge(Protocol):
    name: str
    mode: str

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        """``samples`` judgments of ``pair`` with clip ``first`` ("A" or "B") presented first."""
        ...


def _score_schema(rubric: Rubric) -> dict[str, Any]:
    score = {"type": "integer", "minimum": rubric.low, "maximum": rubric.high}
    return {
        "type": "object",
        "properties": {"rationale": {"type": "string"}, "score_first": score, "score_second": score},
        "required": ["rationale", "score_first", "score_second"],
        "additionalProperties": False,
    }


def coupled_schema(rubric: Rubric) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "dimensions": {
                "type": "object",
                "properties": {d: _score_schema(rubric) for d in rubric.ids},
                "required": rubric.ids,
                "additionalProperties": False,
            },
            "summary": {"type": "string"},
            "verdict": {"type": "string", "enum": ["first", "second", "tie"]},
        },
        "required": ["dimensions", "summary", "verdict"],
        "additionalProperties": False,
    }


def per_dimension_schema(rubric: Rubric) -> dict[str, Any]:
    return _score_schema(rubric)


def _clips(pair: Pair, first: str) -> tuple[AudioPart, AudioPart]:
    a, b = audio_part(pair.audio_a), audio_part(pair.audio_b)  # validated: the bytes decode as audio
    return (a, b) if first == "A" else (b, a)


def _messages(rubric: Rubric, prompt: str, clip1: AudioPart, clip2: AudioPart) -> tuple[Message, ...]:
    return (
        Message.text("system", rubric.prompts["system"]),
        Message("user", (TextPart(prompt), TextPart("\nFirst clip:"), clip1, TextPart("\nSecond clip:"), clip2)),
    )


class LLMPairJudge:
    def __init__(self, judge: Judge, rubric: Rubric, mode: str = "coupled", temperature: float = 1.0, seed: int = 0):
        if mode not in MODES:
            from voxjudge.errors import InputError

            raise InputError(f"unknown mode {mode!r}; choose coupled or per-dimension")
        self.llm, self.rubric, self.mode = judge, rubric, mode
        self.temperature, self.seed = temperature, seed
        self.name = judge.spec.name

    def _request(self, pair: Pair, first: str, samples: int, prompt: str, schema: dict, name: str) -> Request:
        clip1, clip2 = _clips(pair, first)
        return Request(
            _messages(self.rubric, prompt, clip1, clip2),
            schema=schema,
            schema_name=name,
            temperature=self.temperature,
            seed=self.seed,
            max_tokens=1500 if self.mode == "coupled" else 400,
            n=samples,
            template=f"voxjudge-prosody-{self.mode}-{self.rubric.sha256}",
        )

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        r = self.rubric
        if self.mode == "coupled":
            dims = "\n".join(f"- {d.id} {d.name}: {d.description}" for d in r.dimensions)
            prompt = r.prompts["coupled"].format(text=pair.text, low=r.low, high=r.high, dimensions=dims)
            req = self._request(pair, first, samples, prompt, coupled_schema(r), "prosody_judgment")
            responses = await self.llm.complete(req, item_id=f"{pair.pair_id}:{first}")
            return [self._from_coupled(resp) for resp in responses]
        out = [SlotJudgment() for _ in range(samples)]

        async def one(dim) -> None:
            prompt = r.prompts["per_dimension"].format(
                text=pair.text, low=r.low, high=r.high, dimension=f"{dim.id} {dim.name}: {dim.description}"
            )
            req = self._request(pair, first, samples, prompt, per_dimension_schema(r), f"prosody_{dim.id}")
            for k, resp in enumerate(await self.llm.complete(req, item_id=f"{pair.pair_id}:{first}:{dim.id}")):
                if resp.ok:
                    out[k].first[dim.id] = float(resp.parsed["score_first"])
                    out[k].second[dim.id] = float(resp.parsed["score_second"])
                    out[k].rationale[dim.id] = resp.parsed["rationale"]
                else:
                    out[k].error = ((out[k].error + "; ") if out[k].error else "") + f"{dim.id}: {resp.error}"

        await asyncio.gather(*(one(d) for d in r.dimensions))
        return out

    def _from_coupled(self, resp) -> SlotJudgment:
        if not resp.ok:
            return SlotJudgment(error=resp.error)
        j = SlotJudgment(verdict=resp.parsed["verdict"])
        j.rationale["summary"] = resp.parsed["summary"]
        for dim, v in resp.parsed["dimensions"].items():
            j.first[dim] = float(v["score_first"])
            j.second[dim] = float(v["score_second"])
            j.rationale[dim] = v["rationale"]
        return j


class AcousticPairJudge:
    name = "acoustic"
    mode = "per-dimension"

    def __init__(self, rubric: Rubric):
        self.rubric = rubric
        self.acoustic = AcousticJudge()

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        res = await asyncio.to_thread(self.acoustic.compare, pair.audio_a, pair.audio_b, pair.text)
        if res.abstain:  # a clip without speech: every dimension abstains, with the reason
            return [SlotJudgment(error=res.abstain) for _ in range(samples)]
        dims = [d for d in self.rubric.ids if d in res.a and d in res.b]
        s1, s2 = (res.a, res.b) if first == "A" else (res.b, res.a)
        note = {d: "measured from the waveform" for d in dims}
        return [SlotJudgment({d: s1[d] for d in dims}, {d: s2[d] for d in dims}, dict(note)) for _ in range(samples)]


def _clip_quality(audio: AudioPart, dim: str) -> float:
    digest = hashlib.sha256(audio.sha256.encode() + dim.encode()).digest()
    return 2.0 + 6.0 * int.from_bytes(digest[:4], "big") / 2**32


def fake_prosody(request: Request, index: int, options: dict[str, str]) -> Any:
    """Fake audio judge: each clip has a hidden quality per dimension (from its bytes); the judge
    reports it with Gaussian ``noise`` and adds ``bias`` points to the second slot."""
    bias, noise = float(options.get("bias", 0.0)), float(options.get("noise", 0.5))
    clips = [p for m in request.messages for p in m.parts if isinstance(p, AudioPart)]
    rng = random.Random(f"{clips[0].sha256}{clips[1].sha256}{index}{request.schema_name}")

    def pair_for(dim: str) -> dict[str, Any]:
        s1 = _clip_quality(clips[0], dim) + rng.gauss(0, noise)
        s2 = _clip_quality(clips[1], dim) + rng.gauss(0, noise) + bias
        return {
            "rationale": f"{dim}: heard",
            "score_first": int(min(10, max(1, round(s1)))),
            "score_second": int(min(10, max(1, round(s2)))),
        }

    if request.schema_name.startswith("prosody_") and request.schema_name != "prosody_judgment":
        return pair_for(request.schema_name.removeprefix("prosody_"))
    dims = list(request.schema["properties"]["dimensions"]["properties"])
    scored = {d: pair_for(d) for d in dims}
    total = sum(v["score_second"] - v["score_first"] for v in scored.values())
    verdict = "second" if total > 0 else "first" if total < 0 else "tie"
    return {"dimensions": scored, "summary": "fake judgment", "verdict": verdict}


fake_prosody.takes_options = True  # type: ignore[attr-defined]
register_fake_script("prosody", fake_prosody)
