"""Schema -> grammar: what the grammar accepts (checked with a GBNF-to-regex oracle), its length
bound (hand-computed), the features it refuses by name, and every schema voxjudge itself sends."""

from __future__ import annotations

import json
import re

import pytest
from gbnf_oracle import gbnf_regex
from hypothesis import given, settings
from hypothesis import strategies as st

from voxjudge.breaks.builder import item_schema
from voxjudge.breaks.labels import LabelSet
from voxjudge.llm.grammar import AnswerTooLong, GrammarError, answer_grammar, check_schema
from voxjudge.llm.task import batch_schema

WORDS = ["Their", '"poor"', "parents", "were", "just", "starving", "as", "usual.", "a\\b", "नमस्ते"]


def lmre_schema(words=WORDS):
    return batch_schema(item_schema(words, LabelSet()), ["t1"])


def annotation_pattern(g):
    return g.schema["properties"]["items"]["items"]["properties"]["annotation"]["pattern"]


def test_pinned_words_pattern_is_rewritten_for_the_json_text():
    g = answer_grammar(lmre_schema(), 10_000)
    rewritten = re.compile(annotation_pattern(g)[1:-1])  # read as a Python regex over the JSON text
    original = re.compile(item_schema(WORDS, LabelSet())["properties"]["annotation"]["pattern"])
    good = 'Their <AP> "poor" parents <IP> were just starving as usual. a\\b नमस्ते <SB>'
    assert original.fullmatch(good)
    assert rewritten.fullmatch(json.dumps(good, ensure_ascii=False)[1:-1])
    for bad in (good.replace("poor", "rich"), good.replace(" <SB>", ""), good.replace("<AP>", "<AP> <IP>")):
        assert not rewritten.fullmatch(json.dumps(bad, ensure_ascii=False)[1:-1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["", " <AP>", " <IP>", " <SB>"]), min_size=len(WORDS) - 1, max_size=len(WORDS) - 1))
def test_every_tagging_of_the_words_is_in_the_grammar(tags):
    text = "".join(w + t + " " for w, t in zip(WORDS, tags)) + WORDS[-1] + " <SB>"
    g = answer_grammar(lmre_schema(), 10_000)
    assert re.fullmatch(annotation_pattern(g)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='ab."\\ <>\n\t\u00e9', max_size=12))
def test_rewritten_free_pattern_only_admits_valid_strings(s):
    # A pattern with classes, dots and unbounded repeats: whatever JSON text the rewritten pattern
    # admits decodes to a string the original pattern accepts.
    original = r"^a[^b]*\.(x|y)?.+$"
    g = answer_grammar({"type": "string", "pattern": original}, 10_000)
    encoded = json.dumps(s, ensure_ascii=False)[1:-1]
    if re.fullmatch(g.schema["pattern"][1:-1], encoded):
        assert re.search(original, s)


def test_length_bound_is_hand_computed():
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 1,
              "maximum": 5}}, "required": ["ok", "n"]}  # fmt: skip
    g = answer_grammar(schema, 1000)
    # '{ "ok" : false , "n" : 5 } ' with every optional space: 2 + (4+3+6) + 2 + (3+3+2) + 2
    assert g.max_tokens == 27
    assert g.schema["properties"]["n"] == {"enum": [1, 2, 3, 4, 5]}


def test_free_strings_shrink_to_fit_the_budget_and_too_long_is_refused():
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}
    roomy, tight = answer_grammar(schema, 1000), answer_grammar(schema, 40)
    assert roomy.string_chars == 200 and tight.string_chars < 200 and tight.max_tokens <= 40
    assert tight.schema["properties"]["reason"]["pattern"].endswith(f"{{0,{tight.string_chars}}}$")
    with pytest.raises(AnswerTooLong):
        answer_grammar(lmre_schema(), 20)


@pytest.mark.parametrize(
    ("schema", "named"),
    [
        ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, "uniqueItems"),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "oneOf"),
        ({"type": "integer", "minimum": 0}, "minimum and a maximum"),
        ({"type": "number", "maximum": 1.5}, "'maximum' on a number"),
        ({"type": "string", "pattern": "^(?=a)a$"}, "ASSERT"),
        ({"type": "string", "pattern": "^(a)\\1$"}, "GROUPREF"),
        ({"type": "object", "properties": {"x": {}}}, "/x allows any value"),
        ({"type": "string", "format": "email"}, "'format'"),
    ],
)
def test_unenforceable_features_are_errors_that_name_them(schema, named):
    with pytest.raises(GrammarError, match=re.escape(named)):
        check_schema(schema)


def _task_schemas():
    from voxjudge.asr.laser.llm_judges import pair_item_schema, sentence_schema
    from voxjudge.asr.laser.rubric import LaserRubric
    from voxjudge.pairwise.judges import coupled_schema, per_dimension_schema
    from voxjudge.pairwise.rubric import Rubric

    laser, prosody = LaserRubric.load(), Rubric.default()
    return {
        "laser-pairs": (batch_schema(pair_item_schema(laser), ["p1", "p2"]), 2 * 120 + 64),
        "laser-sentence": (sentence_schema(laser), 2000),
        "pairwise-coupled": (coupled_schema(prosody), 1500),
        "pairwise-dimension": (per_dimension_schema(prosody), 400),
        "lmre": (lmre_schema(), 264),
    }


@pytest.mark.parametrize("name", list(_task_schemas()))
def test_every_task_schema_becomes_a_grammar_whose_answers_validate(name):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (the 'local' extra) converts schemas to GBNF")
    from voxjudge.llm.parse import validate

    schema, budget = _task_schemas()[name]
    g = answer_grammar(schema, budget)
    assert g.max_tokens <= budget
    accepts = gbnf_regex(g.gbnf)
    example = _example(g.schema)
    text = json.dumps(example, ensure_ascii=False)
    assert accepts.fullmatch(text), text
    validate(json.loads(text), schema)
    assert not accepts.fullmatch(text[:-1])
    assert not accepts.fullmatch(text.replace("}", ', "extra": 1}', 1))


def _example(schema):
    """The first value the grammar schema allows, with one free character per string."""
    if "enum" in schema:
        return schema["enum"][-1]
    if "anyOf" in schema:
        return _example(schema["anyOf"][0])
    kind = schema["type"]
    if kind == "object":
        return {k: _example(v) for k, v in schema["properties"].items()}
    if kind == "array":
        return [_example(schema["items"])] * max(1, schema["minItems"])
    if kind == "string":
        body = schema["pattern"][1:-1]
        if body.startswith("[^") or body.startswith("[\\x20"):
            return "é \u00e9 x"
        return _lmre_text(body)
    return {"integer": 3, "number": -1.5, "boolean": True, "null": None}[kind]


def _lmre_text(body):
    words = [w for w in WORDS]
    return " ".join(words) + " <SB>"


def test_control_characters_and_quotes_never_reach_free_strings_raw():
    pytest.importorskip("llama_cpp", reason="llama-cpp-python (the 'local' extra) converts schemas to GBNF")
    g = answer_grammar({"type": "object", "properties": {"r": {"type": "string"}}, "required": ["r"]}, 500)
    accepts = gbnf_regex(g.gbnf)
    assert accepts.fullmatch('{"r": "fine, é"}')
    assert not accepts.fullmatch('{"r": "line\nbreak"}')
    assert not accepts.fullmatch('{"r": "a"b"}')
