"""Pair judges: something that hears a text and two clips (in a presented order) and scores both.

* ``LLMPairJudge``: an audio LLM through ``voxjudge.llm`` (Gemini, OpenAI audio models, an
  OpenAI-compatible vLLM server with an Omni model, or the fake provider). ``coupled`` mode asks
  once for every dimension plus a summary and an overall verdict; ``per-dimension`` mode asks once
  per dimension for a rationale and a score pair. Several samples come from one request (n).
* ``AcousticPairJudge``: the offline judge; rates each clip from its waveform, with the
  measurements of both clips as the rationale. It is deterministic (one judgment per order
  stands for every sample asked) and declares the dimensions it never measures (``measures``).

A dimension with a missing or unusable score is an *abstention*: recorded, counted, never guessed.
A dimension a judge never measures is not an abstention: the run declares it once.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Sequence
from typing import Any

from voxjudge.io.audio import audio_part
from voxjudge.llm import AudioPart, Item, Judge, Request, Task, TextPart, label_many
from voxjudge.llm.label import label_tasks
from voxjudge.llm.scripts import register_fake_script
from voxjudge.pairwise.acoustic import MEASURED, AcousticJudge
from voxjudge.pairwise.data import Pair
from voxjudge.pairwise.rubric import Dimension, Rubric
from voxjudge.pairwise.slots import PairJudge, SlotJudgment, orders

MODES = ("coupled", "per-dimension")


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


def _template(text: str) -> str:
    """A rubric prompt (``str.format`` placeholders, as rubric files write them) as a task
    template: ``$`` escaped, ``{text}`` the item's text, the rest filled from the rubric."""
    return text.replace("$", "$$")


def prosody_task(rubric: Rubric, mode: str, dimension: Dimension | None = None) -> Task:
    """The task of one prompting mode (and dimension), built from the rubric's prompts."""
    esc = lambda v: str(v).replace("$", "$$")  # noqa: E731
    if mode == "coupled":
        dims = "\n".join(f"- {d.id} {d.name}: {d.description}" for d in rubric.dimensions)
        user = _template(rubric.prompts["coupled"]).format(
            text="${text}", low=rubric.low, high=rubric.high, dimensions=esc(dims)
        )
        return Task(
            f"prosody-coupled-{rubric.name}",
            _template(rubric.prompts["system"]),
            user,
            coupled_schema(rubric),
            batched=False,
            batch_size=1,
            max_tokens_per_item=1500,
            schema_name="prosody_judgment",
        )
    assert dimension is not None
    user = _template(rubric.prompts["per_dimension"]).format(
        text="${text}",
        low=rubric.low,
        high=rubric.high,
        dimension=esc(f"{dimension.id} {dimension.name}: {dimension.description}"),
    )
    return Task(
        f"prosody-{dimension.id}-{rubric.name}",
        _template(rubric.prompts["system"]),
        user,
        per_dimension_schema(rubric),
        batched=False,
        batch_size=1,
        max_tokens_per_item=400,
        schema_name=f"prosody_{dimension.id}",
    )


class LLMPairJudge:
    """An audio LLM as a pair judge; every request goes through ``voxjudge.llm.label_many``."""

    def __init__(self, judge: Judge, rubric: Rubric, mode: str = "coupled", temperature: float = 1.0, seed: int = 0):
        if mode not in MODES:
            from voxjudge.errors import InputError

            raise InputError(f"unknown mode {mode!r}; choose coupled or per-dimension")
        if not judge.capabilities.audio:
            from voxjudge.errors import InputError

            raise InputError(f"{judge.spec.name} does not take audio input; use an audio model (gemini/, openai/)")
        if judge.spec.provider == "fake" and judge.spec.model == "prosody":
            fake_options(judge.spec.options)  # a bad value is refused before anything is judged
        self.llm, self.rubric, self.mode = judge, rubric, mode
        self.temperature, self.seed = temperature, seed
        self.name = judge.spec.full_name
        self.stopped: str | None = None

    def _item(self, pair: Pair, first: str, suffix: str = "") -> Item:
        clip1, clip2 = _clips(pair, first)
        parts = (TextPart("\nFirst clip:"), clip1, TextPart("\nSecond clip:"), clip2)
        return Item(f"{pair.pair_id}:{first}{suffix}", {"text": pair.text}, parts=parts)

    def planned_requests(self, pairs: Sequence[Pair], samples: int) -> list[Request]:
        """Every request judging ``pairs`` would send (for a dry run's estimate)."""
        return [
            task.request([item])
            for pair in pairs
            for first, n in orders(samples)
            if n
            for task, item, _ in self._asks(pair, first, n)
        ]

    @property
    def batched(self) -> bool:
        """On a cluster engine every ask of a run travels as one job (``judge_many``); locally
        pairs are asked one by one, which streams progress pair by pair."""
        return getattr(self.llm, "engine", None) is not None

    @property
    def engine(self) -> str:
        """Where the model calls run: "ray" or "local"."""
        return "ray" if self.batched else "local"

    def _asks(self, pair: Pair, first: str, samples: int) -> list[tuple[Task, Item, str | None]]:
        r = self.rubric
        if self.mode == "coupled":
            asks = [(prosody_task(r, "coupled"), self._item(pair, first), None)]
        else:
            asks = [
                (prosody_task(r, "per-dimension", d), self._item(pair, first, f":{d.id}"), d.id) for d in r.dimensions
            ]
        return [
            (t.with_options(samples=samples, temperature=self.temperature, seed=self.seed), it, dim)
            for t, it, dim in asks
        ]

    async def judge_many(self, plan: Sequence[tuple[Pair, str, int]], progress: Any = None) -> list[list[SlotJudgment]]:
        """``judge`` for every (pair, first, samples) of ``plan`` through one ``label_tasks``."""
        asks = [self._asks(pair, first, n) for pair, first, n in plan]
        tasks: dict[str, tuple[Task, list[Item]]] = {}
        for group in asks:
            for task, item, _ in group:
                tasks.setdefault(task.sha256 + f"/{task.samples}", (task, []))[1].append(item)
        outcomes = await label_tasks(self.llm, list(tasks.values()), progress=progress)
        results = {item_id: r for o in outcomes for item_id, r in o.results.items()}
        for o in outcomes:
            self.stopped = self.stopped or o.stopped
        out = []
        for (_, _, n), group in zip(plan, asks):
            if self.mode == "coupled":
                res = results[group[0][1].id]
                out.append([self._from_coupled(a, why) for a, why in zip(res.answers, res.reasons)])
                continue
            judgments = [SlotJudgment() for _ in range(n)]
            for _, item, dim in group:
                self._add_dimension(judgments, dim, results[item.id])
            out.append(judgments)
        return out

    async def _ask(self, task: Task, item: Item, samples: int):
        task = task.with_options(samples=samples, temperature=self.temperature, seed=self.seed)
        outcome = await label_many(self.llm, task, [item])
        self.stopped = self.stopped or outcome.stopped
        return outcome.results[item.id]

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        r = self.rubric
        if self.mode == "coupled":
            res = await self._ask(prosody_task(r, "coupled"), self._item(pair, first), samples)
            return [self._from_coupled(a, why) for a, why in zip(res.answers, res.reasons)]
        out = [SlotJudgment() for _ in range(samples)]

        async def one(dim) -> None:
            res = await self._ask(prosody_task(r, "per-dimension", dim), self._item(pair, first, f":{dim.id}"), samples)
            self._add_dimension(out, dim.id, res)

        await asyncio.gather(*(one(d) for d in r.dimensions))
        return out

    @staticmethod
    def _add_dimension(out: list[SlotJudgment], dim: str, res: Any) -> None:
        for k, (answer, why) in enumerate(zip(res.answers, res.reasons)):
            if answer is not None:
                out[k].first[dim] = float(answer["score_first"])
                out[k].second[dim] = float(answer["score_second"])
                out[k].rationale[dim] = answer["rationale"]
            else:
                out[k].error = ((out[k].error + "; ") if out[k].error else "") + f"{dim}: {why}"

    def _from_coupled(self, answer: Any, why: str | None) -> SlotJudgment:
        if answer is None:
            return SlotJudgment(error=why or "no valid answer")
        j = SlotJudgment(verdict=answer["verdict"])
        j.rationale["summary"] = answer["summary"]
        for dim, v in answer["dimensions"].items():
            j.first[dim] = float(v["score_first"])
            j.second[dim] = float(v["score_second"])
            j.rationale[dim] = v["rationale"]
        return j


def require_measured(rubric: Rubric, name: str = "acoustic", measures: Sequence[str] = MEASURED) -> None:
    """An ``InputError`` when the judge measures none of the rubric's dimensions: its run would
    judge nothing and look complete."""
    if not any(d in measures for d in rubric.ids):
        from voxjudge.errors import InputError

        raise InputError(
            f"the {name} judge measures none of {', '.join(rubric.ids)}; it measures {', '.join(measures)}"
        )


class AcousticPairJudge:
    name = "acoustic"
    mode = "per-dimension"
    deterministic = True  # the waveform is measured, not sampled
    measures = MEASURED

    def __init__(self, rubric: Rubric):
        require_measured(rubric)
        self.rubric = rubric
        self.acoustic = AcousticJudge()

    async def judge(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        return await asyncio.to_thread(self.judge_now, pair, first, samples)

    def judge_now(self, pair: Pair, first: str, samples: int) -> list[SlotJudgment]:
        """``judge`` in the calling thread (a Ray task runs it so)."""
        res = self.acoustic.compare(pair.audio_a, pair.audio_b, pair.text)
        if res.abstain:  # neither clip holds speech: every dimension abstains, with the reasons
            return [SlotJudgment(error=res.abstain) for _ in range(samples)]
        if res.forfeit:
            # the clip with speech wins every dimension the judge measures against no reading; the
            # ones it never measures stay absent (nobody heard them)
            r, dims = self.rubric, [d for d in self.rubric.ids if d in self.measures]
            win, lose = {d: float(r.high) for d in dims}, {d: float(r.low) for d in dims}
            a, b = (win, lose) if res.forfeit == "A" else (lose, win)
            why = f"clip {res.forfeit} wins: {res.reason}"
            note = {d: why + (f"; {res.notes[d]}" if d in res.notes else "") for d in dims}
        else:
            dims = [d for d in self.rubric.ids if d in res.a and d in res.b]
            a, b = res.a, res.b
            note = {d: res.notes[d] for d in dims}
            why = None
        s1, s2 = (a, b) if first == "A" else (b, a)
        return [
            SlotJudgment({d: s1[d] for d in dims}, {d: s2[d] for d in dims}, dict(note), flag=why)
            for _ in range(samples)
        ]


def judge_settings(judge: PairJudge, rubric: Rubric, samples: int, seed: int) -> dict[str, Any]:
    """What a judged run records about its judge: name, mode, samples asked and run per order,
    and the rubric dimensions the judge never measures (declared once, not abstained on)."""
    deterministic = bool(getattr(judge, "deterministic", False))
    measures = getattr(judge, "measures", None)
    out: dict[str, Any] = {
        "judge": judge.name,
        "mode": judge.mode,
        "samples": samples,
        "sampling_seed": seed,
        "deterministic": deterministic,
        "judgments_per_order": {first: (min(n, 1) if deterministic else n) for first, n in orders(samples)},
        "not_measured": [d for d in rubric.ids if measures is not None and d not in measures],
    }
    return out


def _clip_quality(audio: AudioPart, dim: str) -> float:
    digest = hashlib.sha256(audio.sha256.encode() + dim.encode()).digest()
    return 2.0 + 6.0 * int.from_bytes(digest[:4], "big") / 2**32


def fake_options(options: dict[str, str]) -> tuple[float, float]:
    """The fake judge's ``bias`` and ``noise``; a value that is not a number is a ``ConfigError``."""
    from voxjudge.llm.errors import ConfigError

    out = []
    for key, default in (("bias", 0.0), ("noise", 0.5)):
        try:
            out.append(float(options.get(key, default)))
        except ValueError:
            raise ConfigError(f"fake/prosody: option {key}={options[key]!r} is not a number") from None
    return out[0], out[1]


def fake_prosody(request: Request, index: int, options: dict[str, str]) -> Any:
    """Fake audio judge: each clip has a hidden quality per dimension (from its bytes); the judge
    reports it with Gaussian ``noise`` and adds ``bias`` points to the second slot."""
    bias, noise = fake_options(options)
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
