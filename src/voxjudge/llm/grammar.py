"""JSON Schema -> a grammar llama.cpp enforces while decoding, plus a bound on the answer's length.

llama-cpp-python's converter (``json_schema_to_gbnf``) writes the GBNF, in-process and inside its
OpenAI-compatible server alike (``response_format: {"type": "json_object", "schema": ...}``). Left
alone it is not safe: it drops ``minimum``/``maximum``, lets strings run unbounded and contain raw
control characters (invalid JSON), mistranslates most regex patterns, and the server silently falls
back to "any JSON" when it cannot convert. So this module first rewrites the schema into a
*grammar schema*: the part of the converter's input language it translates exactly.

* Every value in the grammar's language is valid under the original schema (a subset: free strings
  get a length cap, unbounded arrays an item cap, optional extras are never generated).
* Regex patterns are parsed with Python's own parser and re-emitted as literals, character classes,
  groups and bounded repeats, with JSON escaping built in; this is how the LMRE annotation pattern
  (exactly the text's words, an optional tag between words, the final tag) becomes a grammar.
* A feature no grammar can enforce (``uniqueItems``, ``not``, lookarounds, ...) is a
  ``GrammarError`` naming it and where it is. Nothing falls back to unconstrained JSON.
* The worst-case answer length is computed: bytes for fixed text (every token is at least one byte)
  and one token per character of free text. Free-text caps shrink to fit the token budget; if the
  fixed part alone does not fit, ``AnswerTooLong`` tells the caller to split the batch.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from voxjudge.llm.errors import ConfigError, PermanentError

MAX_CHARS = 200  # cap on one free string when the budget allows it
MIN_CHARS = 8  # below this a free string is useless: split the batch instead
MAX_ITEMS = 16  # cap on arrays the schema leaves unbounded
MAX_ENUM_RANGE = 2000  # integer ranges become enums up to this many values

_ANNOTATIONS = {"title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated"}
_KNOWN = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf",
}  # fmt: skip
# JSON text cannot hold these raw inside a string: '"', '\\' and control characters.
_FORBIDDEN = [(0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C), (0xD800, 0xDFFF)]
_INTEGER_TOKENS = 18  # '-' + 16 digits + space, as the converter's integer rule allows
_NUMBER_TOKENS = 53  # sign, 16 digits, '.', 16 digits, exponent with sign and 16 digits, space


class GrammarError(ConfigError):
    """A schema feature that a decoding grammar cannot enforce."""


class AnswerTooLong(PermanentError):
    """Even the shortest answer the grammar allows does not fit the token budget."""

    def __init__(self, needed: int, budget: int):
        super().__init__(f"answer needs up to {needed} tokens but only {budget} fit (split the batch)")
        self.needed, self.budget = needed, budget


@dataclass(frozen=True)
class AnswerGrammar:
    """``schema`` is the converter's input; ``max_tokens`` the worst-case answer length."""

    schema: dict[str, Any]
    max_tokens: int
    string_chars: int

    @property
    def gbnf(self) -> str:
        return schema_gbnf(json.dumps(self.schema))  # property order is answer order: keep it


def local_gbnf(grammar: AnswerGrammar) -> str | None:
    """The grammar's GBNF when llama-cpp-python (the converter) is installed here, else None."""
    try:
        import llama_cpp.llama_grammar  # noqa: F401
    except ImportError:
        return None
    return grammar.gbnf


@lru_cache(maxsize=256)
def schema_gbnf(schema_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf  # the 'local' extra

    try:
        return json_schema_to_gbnf(schema_json)
    except Exception as exc:  # the converter asserts; a grammar schema it rejects is our bug to report
        raise GrammarError(f"llama-cpp-python could not convert the grammar schema: {exc}") from exc


def answer_grammar(
    schema: dict[str, Any], budget: int, *, max_chars: int = MAX_CHARS, max_items: int = MAX_ITEMS
) -> AnswerGrammar:
    """The grammar schema for ``schema`` with the longest free-text cap (≤ ``max_chars``) whose
    worst-case answer fits ``budget`` tokens."""
    low = min(MIN_CHARS, max_chars)
    smallest = _Rewriter(low, max_items).visit(schema, "")
    if smallest[1] > budget:
        raise AnswerTooLong(smallest[1], budget)
    hi = max_chars
    best = (low, smallest)
    while low < hi:  # the bound grows with the cap: binary search the largest cap that fits
        mid = (low + hi + 1) // 2
        got = _Rewriter(mid, max_items).visit(schema, "")
        if got[1] <= budget:
            low, best = mid, (mid, got)
        else:
            hi = mid - 1
    chars, (out, tokens) = best
    return AnswerGrammar(out, tokens, chars)


def check_schema(schema: dict[str, Any]) -> None:
    """Raise ``GrammarError`` if any part of ``schema`` cannot be enforced by a grammar."""
    _Rewriter(MAX_CHARS, MAX_ITEMS).visit(schema, "")


class _Rewriter:
    def __init__(self, chars: int, items: int):
        self.chars, self.items = chars, items

    def visit(self, schema: Any, path: str) -> tuple[dict[str, Any], int]:
        """(grammar schema, worst-case tokens including the converter's trailing space)."""
        where = path or "/"
        if schema is True or schema == {}:
            raise GrammarError(f"schema at {where} allows any value; give it a type so a grammar can bound it")
        if not isinstance(schema, dict):
            raise GrammarError(f"schema at {where} is not an object")
        for key in schema:
            if key not in _KNOWN and key not in _ANNOTATIONS:
                raise GrammarError(f"schema keyword {key!r} at {where} cannot be enforced by a decoding grammar")
        if "const" in schema:
            return self._enum([schema["const"]])
        if "enum" in schema:
            return self._enum(list(schema["enum"]))
        if "anyOf" in schema:
            base = {k: v for k, v in schema.items() if k != "anyOf"}
            alts = [self.visit({**base, **alt}, f"{path}/anyOf/{k}") for k, alt in enumerate(_alternatives(schema))]
            return {"anyOf": [a for a, _ in alts]}, max(t for _, t in alts)
        kind = schema.get("type")
        if isinstance(kind, list):
            alts = [self.visit({**schema, "type": t}, path) for t in kind]
            return {"anyOf": [a for a, _ in alts]}, max(t for _, t in alts)
        if kind is None:
            kind = _implied_type(schema, where)
        handler = {
            "object": self._object,
            "array": self._array,
            "string": self._string,
            "integer": self._integer,
            "number": self._number,
            "boolean": lambda s, p: ({"type": "boolean"}, 6),
            "null": lambda s, p: ({"type": "null"}, 5),
        }.get(kind)
        if handler is None:
            raise GrammarError(f"unknown type {kind!r} at {where}")
        return handler(schema, path)

    @staticmethod
    def _enum(values: list[Any]) -> tuple[dict[str, Any], int]:
        if not values:
            raise GrammarError("an empty enum admits no answer")
        # the converter writes each constant with json.dumps defaults
        return {"enum": values}, max(len(json.dumps(v).encode()) for v in values) + 1

    def _object(self, schema: dict[str, Any], path: str) -> tuple[dict[str, Any], int]:
        props = schema.get("properties") or {}
        required = [r for r in schema.get("required", []) if r in props]
        missing = [r for r in schema.get("required", []) if r not in props]
        if missing:
            raise GrammarError(f"required property {missing[0]!r} at {path or '/'} has no schema under 'properties'")
        out_props, tokens = {}, 4  # "{" space ... "}" space
        for name, sub in props.items():
            out_props[name], t = self.visit(sub, f"{path}/{name}")
            tokens += len(json.dumps(name).encode()) + 3 + t  # key space ":" space value
        tokens += 2 * max(0, len(props) - 1)  # "," space
        return {"type": "object", "properties": out_props, "required": required}, tokens

    def _array(self, schema: dict[str, Any], path: str) -> tuple[dict[str, Any], int]:
        if "items" not in schema or not isinstance(schema["items"], dict):
            raise GrammarError(f"array at {path or '/'} needs one 'items' schema for a grammar to follow")
        low = int(schema.get("minItems", 0))
        high = int(schema["maxItems"]) if "maxItems" in schema else max(low, self.items)
        if high < low:
            raise GrammarError(f"array at {path or '/'} has maxItems below minItems")
        item, t = self.visit(schema["items"], f"{path}/items")
        return {"type": "array", "items": item, "minItems": low, "maxItems": high}, 4 + high * t + 2 * max(0, high - 1)

    def _string(self, schema: dict[str, Any], path: str) -> tuple[dict[str, Any], int]:
        low = int(schema.get("minLength", 0))
        if "pattern" in schema:
            if "minLength" in schema or "maxLength" in schema:
                raise GrammarError(f"string at {path or '/'} has both a pattern and a length: not supported")
            body, tokens = _Pattern(self.chars).translate(schema["pattern"], path or "/")
            return {"type": "string", "pattern": "^" + body + "$"}, tokens + 3
        high = int(schema["maxLength"]) if "maxLength" in schema else max(low, self.chars)
        high = min(high, max(low, self.chars))
        if high < low:
            raise GrammarError(f"string at {path or '/'} has maxLength below minLength")
        free = _class_text([(0, 0x10FFFF)])
        return {"type": "string", "pattern": f"^{free}{{{low},{high}}}$"}, high + 3

    @staticmethod
    def _integer(schema: dict[str, Any], path: str) -> tuple[dict[str, Any], int]:
        low, high = _bound(schema, "minimum", "exclusiveMinimum", 1), _bound(schema, "maximum", "exclusiveMaximum", -1)
        if low is None and high is None:
            return {"type": "integer"}, _INTEGER_TOKENS
        if low is None or high is None or high - low + 1 > MAX_ENUM_RANGE:
            raise GrammarError(
                f"integer at {path or '/'} needs both a minimum and a maximum at most {MAX_ENUM_RANGE} apart "
                "for a grammar to enforce its range"
            )
        values = list(range(math.ceil(low), math.floor(high) + 1))
        return _Rewriter._enum(values)

    @staticmethod
    def _number(schema: dict[str, Any], path: str) -> tuple[dict[str, Any], int]:
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if key in schema:
                raise GrammarError(f"{key!r} on a number at {path or '/'} cannot be enforced by a grammar")
        return {"type": "number"}, _NUMBER_TOKENS


def _alternatives(schema: dict[str, Any]) -> list[dict[str, Any]]:
    alts = schema["anyOf"]
    if not isinstance(alts, list) or not alts or not all(isinstance(a, dict) for a in alts):
        raise GrammarError("anyOf needs a non-empty list of schemas")
    return alts


def _implied_type(schema: dict[str, Any], where: str) -> str:
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    if "pattern" in schema or "minLength" in schema or "maxLength" in schema:
        return "string"
    raise GrammarError(f"schema at {where} has no type; give it one so a grammar can bound it")


def _bound(schema: dict[str, Any], inclusive: str, exclusive: str, step: int) -> float | None:
    values = []
    if inclusive in schema:
        values.append(schema[inclusive])
    if isinstance(schema.get(exclusive), (int, float)) and not isinstance(schema.get(exclusive), bool):
        values.append(schema[exclusive] + step)
    if not values:
        return None
    return max(values) if step > 0 else min(values)


# ---- regex patterns -> the converter's pattern dialect --------------------------------------


class _Pattern:
    """Python's regex parser gives the structure; each piece is re-emitted so that llama-cpp-python's
    pattern translation maps it to GBNF matching the piece's JSON encoding."""

    def __init__(self, chars: int):
        self.chars = chars

    def translate(self, pattern: str, where: str) -> tuple[str, int]:
        from re import _parser as parser  # the stdlib's own regex parser (sre_parse)

        try:
            tree = parser.parse(pattern)
        except re.error as exc:
            raise GrammarError(f"pattern at {where} is not a valid regex: {exc}") from None
        if tree.state.flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE):
            raise GrammarError(f"pattern flags at {where} cannot be enforced by a grammar")
        items = list(tree)
        # JSON Schema patterns search; generating only full matches keeps the answer valid.
        while items and _is_at(items[0], ("AT_BEGINNING", "AT_BEGINNING_STRING")):
            items.pop(0)
        while items and _is_at(items[-1], ("AT_END", "AT_END_STRING")):
            items.pop()
        self.where = where
        return self._seq(items)

    def _seq(self, items: list) -> tuple[str, int]:
        parts, tokens = [], 0
        for op, arg in items:
            text, t = self._node(str(op), arg)
            parts.append(text)
            tokens += t
        return "".join(parts), tokens

    def _node(self, op: str, arg: Any) -> tuple[str, int]:
        if op == "LITERAL":
            return _literal_text(chr(arg))
        if op in ("NOT_LITERAL", "ANY", "IN"):
            ranges = _class_ranges(op, arg, self.where)
            return _class_text(ranges), _max_bytes(ranges)
        if op == "SUBPATTERN":
            group, add, remove, body = arg
            if add or remove:
                raise GrammarError(f"inline regex flags in the pattern at {self.where} are not supported")
            text, t = self._seq(list(body))
            return (f"({text})" if text else ""), t
        if op == "BRANCH":
            alts = [self._seq(list(b)) for b in arg[1]]
            if any(not text for text, _ in alts):
                raise GrammarError(f"an empty alternative in the pattern at {self.where} is not supported; use ?")
            return "(" + "|".join(text for text, _ in alts) + ")", max(t for _, t in alts)
        if op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = arg
            text, t = self._seq(list(body))
            high = max(low, self.chars) if high > 10**6 else high  # MAXREPEAT: unbounded -> capped
            if not text or high == 0:
                return "", 0
            if (low, high) == (0, 1):
                return f"({text})?", t
            return f"({text}){{{low},{high}}}", high * t
        raise GrammarError(f"regex feature {op} in the pattern at {self.where} cannot be enforced by a grammar")


def _is_at(item: tuple, names: tuple[str, ...]) -> bool:
    return str(item[0]) == "AT" and str(item[1]) in names


def _literal_text(ch: str) -> tuple[str, int]:
    """One decoded character as converter-pattern text for its JSON encoding."""
    encoded = json.dumps(ch, ensure_ascii=False)[1:-1]
    out = []
    for c in encoded:
        if c == "\\":
            out.append("\\\\")  # the converter keeps "\\" as a GBNF escape: one backslash
        elif c == ".":
            out.append("[.]")  # "\." would reach GBNF as an unknown escape
        elif c in "[](){}|*+?":
            out.append("\\" + c)
        else:
            out.append(c)  # '"' included: the converter escapes it for GBNF
    return "".join(out), len(encoded.encode())


_CATEGORIES = {
    "CATEGORY_DIGIT": [(0x30, 0x39)],
    "CATEGORY_WORD": [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
    "CATEGORY_SPACE": [(0x20, 0x20)],  # tabs and newlines would need escapes in JSON
}
_NEGATED = {"CATEGORY_NOT_DIGIT": "CATEGORY_DIGIT", "CATEGORY_NOT_WORD": "CATEGORY_WORD"}


def _class_ranges(op: str, arg: Any, where: str) -> list[tuple[int, int]]:
    """Code point ranges of a class, minus what JSON would need escaped (a subset stays valid)."""
    if op == "ANY":
        ranges, negate = [(0x0A, 0x0A)], True
    elif op == "NOT_LITERAL":
        ranges, negate = [(arg, arg)], True
    else:
        ranges, negate = [], False
        for kind, value in arg:
            kind = str(kind)
            if kind == "NEGATE":
                negate = True
            elif kind == "LITERAL":
                ranges.append((value, value))
            elif kind == "RANGE":
                ranges.append(value)
            elif kind == "CATEGORY" and str(value) in _CATEGORIES:
                ranges += _CATEGORIES[str(value)]
            elif kind == "CATEGORY" and str(value) in _NEGATED:
                ranges += _complement(_CATEGORIES[_NEGATED[str(value)]])
            else:
                raise GrammarError(f"regex class member {kind} {value} in the pattern at {where} is not supported")
    if negate:
        ranges = _complement(ranges)
    ranges = _subtract(_merge(ranges), _FORBIDDEN)
    if not ranges:
        raise GrammarError(f"a character class in the pattern at {where} admits only characters JSON must escape")
    return ranges


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out, start = [], 0
    for lo, hi in _merge(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= 0x10FFFF:
        out.append((start, 0x10FFFF))
    return out


def _subtract(ranges: list[tuple[int, int]], remove: list[tuple[int, int]]) -> list[tuple[int, int]]:
    keep = _complement(remove)
    out = []
    for lo, hi in ranges:
        for klo, khi in keep:
            a, b = max(lo, klo), min(hi, khi)
            if a <= b:
                out.append((a, b))
    return out


def _class_text(ranges: list[tuple[int, int]]) -> str:
    """A GBNF character class the converter copies verbatim (every member as a \\x/\\u/\\U escape)."""
    ranges = _subtract(_merge(ranges), _FORBIDDEN)

    def esc(cp: int) -> str:
        if chr(cp).isascii() and chr(cp).isalnum():
            return chr(cp)
        return f"\\x{cp:02X}" if cp < 0x100 else f"\\u{cp:04X}" if cp < 0x10000 else f"\\U{cp:08X}"

    return "[" + "".join(esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}" for lo, hi in ranges) + "]"


def _max_bytes(ranges: list[tuple[int, int]]) -> int:
    return len(chr(max(hi for _, hi in ranges)).encode())
