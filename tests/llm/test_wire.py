"""Wire-format conversion: pure functions, no network."""

from __future__ import annotations

import io
import json
import wave

import pytest

from voxjudge.llm import AudioPart, Message, Request, TextPart
from voxjudge.llm.errors import PermanentError
from voxjudge.llm.providers._common import classify, is_strict_compatible, parse_retry_after
from voxjudge.llm.providers.anthropic import from_anthropic_response, to_anthropic_payload
from voxjudge.llm.providers.gemini import from_gemini_response, to_gemini_request
from voxjudge.llm.providers.local import from_llama_response, to_llama_messages
from voxjudge.llm.providers.openai import from_openai_response, to_openai_payload

SCHEMA = {
    "type": "object",
    "properties": {"winner": {"type": "string", "enum": ["A", "B"]}},
    "required": ["winner"],
    "additionalProperties": False,
}


def wav_bytes(seconds: float = 0.5, rate: int = 16000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\x00\x00" * int(rate * seconds))
    return buf.getvalue()


@pytest.fixture
def audio_request():
    clip = AudioPart(wav_bytes(), "wav")
    return Request(
        (
            Message.text("system", "You judge prosody."),
            Message("user", (TextPart("Which clip is better?"), clip)),
        ),
        schema=SCHEMA,
        schema_name="verdict",
        temperature=0.7,
        seed=3,
        max_tokens=50,
    )


def test_openai_payload_with_audio_schema_and_samples(audio_request):
    p = to_openai_payload(audio_request, "gpt-4o-audio-preview", 3)
    assert p["model"] == "gpt-4o-audio-preview" and p["n"] == 3 and p["seed"] == 3 and p["temperature"] == 0.7
    assert p["messages"][0] == {"role": "system", "content": "You judge prosody."}
    text, audio = p["messages"][1]["content"]
    assert text == {"type": "text", "text": "Which clip is better?"}
    assert audio["type"] == "input_audio" and audio["input_audio"]["format"] == "wav"
    assert audio["input_audio"]["data"] == audio_request.messages[1].parts[1].base64
    rf = p["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["name"] == "verdict"
    assert rf["json_schema"]["schema"] == SCHEMA and rf["json_schema"]["strict"] is True


def test_openai_fallback_puts_schema_in_prompt(audio_request):
    p = to_openai_payload(audio_request, "m", 1, structured=False)
    assert "response_format" not in p and "n" not in p
    last = p["messages"][-1]["content"][-1]
    assert last["type"] == "text" and '"enum": ["A", "B"]' in last["text"]


def test_openai_rejects_other_audio_formats():
    req = Request((Message("user", (AudioPart(b"x", "flac"),)),))
    with pytest.raises(PermanentError, match="wav or mp3"):
        to_openai_payload(req, "m", 1)


def test_openai_response_parsing():
    data = {
        "choices": [
            {"index": 1, "message": {"content": "b"}, "finish_reason": "length"},
            {"index": 0, "message": {"content": "a"}, "finish_reason": "stop"},
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }
    r = from_openai_response(data)
    assert [(s.text, s.finish_reason) for s in r.samples] == [("a", "stop"), ("b", "length")]
    assert (r.usage.input_tokens, r.usage.output_tokens) == (12, 3)
    with pytest.raises(PermanentError):
        from_openai_response({"choices": []})


def test_anthropic_tool_use_payload_and_response():
    req = Request.simple("Pick one.", system="Be strict.", schema=SCHEMA, schema_name="verdict", max_tokens=20)
    p = to_anthropic_payload(req, "claude-x")
    assert p["system"] == "Be strict." and p["max_tokens"] == 20
    assert p["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Pick one."}]}]
    assert p["tools"][0]["input_schema"] == SCHEMA and p["tool_choice"] == {"type": "tool", "name": "verdict"}
    data = {
        "content": [
            {"type": "text", "text": "thinking"},
            {"type": "tool_use", "name": "verdict", "input": {"winner": "B"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 30, "output_tokens": 9},
    }
    r = from_anthropic_response(data)
    assert json.loads(r.samples[0].text) == {"winner": "B"} and r.structured and r.usage.output_tokens == 9
    plain = to_anthropic_payload(req, "claude-x", tools=False)
    assert "tools" not in plain and "JSON Schema" in plain["messages"][-1]["content"][-1]["text"]


def test_anthropic_refuses_audio(audio_request):
    with pytest.raises(PermanentError, match="do not take audio"):
        to_anthropic_payload(audio_request, "claude-x")


def test_gemini_request_and_response(audio_request):
    body = to_gemini_request(audio_request, 2)
    user = body["contents"][0]
    assert user["role"] == "user" and user["parts"][0] == {"text": "Which clip is better?"}
    assert user["parts"][1]["inline_data"]["mime_type"] == "audio/wav"
    assert user["parts"][1]["inline_data"]["data"] == audio_request.messages[1].parts[1].data
    cfg = body["config"]
    assert cfg["candidate_count"] == 2 and cfg["seed"] == 3 and cfg["system_instruction"] == "You judge prosody."
    assert cfg["response_json_schema"] == SCHEMA and cfg["response_mime_type"] == "application/json"
    data = {
        "candidates": [
            {"content": {"parts": [{"text": '{"winner": '}, {"text": '"A"}'}]}, "finish_reason": "STOP"},
            {"content": {"parts": [{"text": "x", "thought": True}, {"text": '{"winner": "B"}'}]}},
        ],
        "usage_metadata": {"prompt_token_count": 100, "candidates_token_count": 8},
    }
    r = from_gemini_response(data, structured=True)
    assert [s.text for s in r.samples] == ['{"winner": "A"}', '{"winner": "B"}']
    assert r.usage.input_tokens == 100
    with pytest.raises(PermanentError, match="no candidates"):
        from_gemini_response({"candidates": [], "prompt_feedback": {"block_reason": "SAFETY"}})


def test_local_messages_carry_the_schema_only_when_unconstrained():
    req = Request.simple("Pick.", system="You judge.", schema=SCHEMA)
    assert to_llama_messages(req) == [
        {"role": "system", "content": "You judge."},
        {"role": "user", "content": "Pick."},
    ]
    assert "JSON Schema" in to_llama_messages(req, schema_in_prompt=True)[-1]["content"]
    r = from_llama_response({"choices": [{"message": {"content": "{}"}, "finish_reason": "stop"}], "usage": {}})
    assert r.samples[0].text == "{}"


def test_audio_part_seconds_and_hash(tmp_path):
    path = tmp_path / "clip.wav"
    path.write_bytes(wav_bytes(1.5))
    clip = AudioPart.from_path(path)
    assert clip.seconds() == pytest.approx(1.5) and len(clip.sha256) == 64
    (tmp_path / "empty.wav").write_bytes(b"")
    from voxjudge.errors import InputError

    with pytest.raises(InputError, match="empty"):
        AudioPart.from_path(tmp_path / "empty.wav")
    with pytest.raises(InputError, match="not found"):
        AudioPart.from_path(tmp_path / "missing.wav")


def test_strict_compatibility_check():
    assert is_strict_compatible(SCHEMA)
    assert not is_strict_compatible({"type": "object", "properties": {"a": {}}, "required": []})


class _Resp:
    def __init__(self, headers):
        self.headers = headers


class _StatusError(Exception):
    def __init__(self, status, headers=None):
        super().__init__(f"status {status}")
        self.status_code = status
        self.response = _Resp(headers or {})


class APITimeoutError(Exception):
    pass


def test_error_classification():
    e = classify(_StatusError(429, {"retry-after": "7"}), "openai")
    assert type(e).__name__ == "TransientError" and e.retry_after == 7.0 and e.status == 429
    assert type(classify(_StatusError(503), "x")).__name__ == "TransientError"
    assert type(classify(_StatusError(400), "x")).__name__ == "PermanentError"
    assert type(classify(APITimeoutError("slow"), "x")).__name__ == "TransientError"
    assert type(classify(ConnectionResetError(), "x")).__name__ == "TransientError"
    assert parse_retry_after({"retry-after-ms": "1500"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
