"""The vllm/ provider's request translation, tested without vLLM; the real engine only where
vLLM, a GPU and a local model (``VOXJUDGE_VLLM_MODEL``) are present."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from voxjudge.llm import AudioPart, ConfigError, Message, Request, TextPart, parse_spec
from voxjudge.llm.providers.vllm import engine_kwargs, from_output, sampling_kwargs, to_chat_messages

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def test_engine_options_are_typed_and_unknown_ones_refused():
    spec = parse_spec("vllm/models/qwen?tensor_parallel_size=2&gpu_memory_utilization=0.8&enforce_eager=true")
    assert engine_kwargs(spec) == {
        "model": "models/qwen",
        "tensor_parallel_size": 2,
        "gpu_memory_utilization": 0.8,
        "enforce_eager": True,
    }
    with pytest.raises(ConfigError, match="unknown option 'tp'"):
        engine_kwargs(parse_spec("vllm/m?tp=2"))
    with pytest.raises(ConfigError, match="max_model_len='big' is not a int"):
        engine_kwargs(parse_spec("vllm/m?max_model_len=big"))
    with pytest.raises(ConfigError, match="enforce_eager='maybe'"):
        engine_kwargs(parse_spec("vllm/m?enforce_eager=maybe"))


def test_text_messages_stay_plain_and_audio_becomes_a_data_url():
    clip = AudioPart(b"RIFF....WAVE", "wav")
    request = Request(
        (Message.text("system", "be strict"), Message("user", (TextPart("which is better?"), clip))),
        schema=SCHEMA,
    )
    assert to_chat_messages(request) == [
        {"role": "system", "content": "be strict"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "which is better?"},
                {"type": "audio_url", "audio_url": {"url": "data:audio/wav;base64,UklGRi4uLi5XQVZF"}},
            ],
        },
    ]


def test_sampling_carries_n_seed_limits_and_the_schema():
    request = Request.simple("hi", schema=SCHEMA, temperature=0.7, seed=3, max_tokens=50)
    assert sampling_kwargs(request, 4) == {
        "n": 4,
        "temperature": 0.7,
        "max_tokens": 50,
        "seed": 3,
        "json_schema": SCHEMA,
    }
    unseeded = Request(request.messages, seed=None)
    assert "seed" not in sampling_kwargs(unseeded, 1) and "json_schema" not in sampling_kwargs(unseeded, 1)


def test_outputs_map_to_samples_and_token_usage():
    out = SimpleNamespace(
        prompt_token_ids=[1, 2, 3],
        outputs=[
            SimpleNamespace(text='{"ok": true}', token_ids=[5, 6], finish_reason="stop"),
            SimpleNamespace(text='{"ok": fal', token_ids=[5, 6, 7, 8], finish_reason="length"),
        ],
    )
    result = from_output(out)
    assert [(s.text, s.finish_reason) for s in result.samples] == [('{"ok": true}', "stop"), ('{"ok": fal', "length")]
    assert (result.usage.input_tokens, result.usage.output_tokens) == (3, 6) and result.structured


def _gpu_reason() -> str | None:
    try:
        import torch
        import vllm  # noqa: F401
    except ImportError:
        return "vLLM is not installed"
    if not torch.cuda.is_available():
        return "no GPU"
    if not os.environ.get("VOXJUDGE_VLLM_MODEL"):
        return "set VOXJUDGE_VLLM_MODEL to a local model directory (weights are never downloaded)"
    return None


@pytest.mark.slow
@pytest.mark.skipif(_gpu_reason() is not None, reason=str(_gpu_reason()))
def test_a_real_vllm_engine_answers_in_the_schema(tmp_path):
    from voxjudge.llm import Judge

    judge = Judge("vllm/" + os.environ["VOXJUDGE_VLLM_MODEL"], cache=tmp_path / "c.sqlite")
    response = judge.complete_sync(Request.simple('Answer {"ok": true}.', schema=SCHEMA, max_tokens=20))[0]
    judge.close()
    assert response.ok and isinstance(response.parsed["ok"], bool)
