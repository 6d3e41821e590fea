"""Test oracle: a non-recursive GBNF grammar as one Python regex, to check what a grammar accepts
without a model (llama.cpp exposes no "does this string match" call)."""

from __future__ import annotations

import re

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]"}


def _char(text: str, i: int) -> tuple[str, int]:
    if text[i] != "\\":
        return text[i], i + 1
    c = text[i + 1]
    if c in _ESCAPES:
        return _ESCAPES[c], i + 2
    width = {"x": 2, "u": 4, "U": 8}[c]
    return chr(int(text[i + 2 : i + 2 + width], 16)), i + 2 + width


def _rules(gbnf: str) -> dict[str, str]:
    rules = {}
    for line in gbnf.splitlines():
        if "::=" in line:
            name, _, body = line.partition("::=")
            rules[name.strip()] = body.strip()
    return rules


def _translate(body: str, rules: dict[str, str], depth: int = 0) -> str:
    assert depth < 50, "recursive grammar"
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c.isspace():
            i += 1
        elif c == '"':
            i += 1
            lit = []
            while body[i] != '"':
                ch, i = _char(body, i)
                lit.append(ch)
            i += 1
            out.append("(?:" + re.escape("".join(lit)) + ")")
        elif c == "[":
            i += 1
            negate = body[i] == "^"
            i += negate
            parts = []
            while body[i] != "]":
                lo, i = _char(body, i)
                if body[i] == "-" and body[i + 1] != "]":
                    hi, i = _char(body, i + 1)
                    parts.append(f"\\U{ord(lo):08x}-\\U{ord(hi):08x}")
                else:
                    parts.append(f"\\U{ord(lo):08x}")
            i += 1
            out.append("[" + ("^" if negate else "") + "".join(parts) + "]")
        elif c in "()|?*+":
            out.append("(?:" if c == "(" else c)
            i += 1
        else:
            m = re.match(r"[a-zA-Z0-9-]+", body[i:])
            assert m, body[i:]
            out.append("(?:" + _translate(rules[m.group(0)], rules, depth + 1) + ")")
            i += m.end()
    return "".join(out)


def gbnf_regex(gbnf: str) -> re.Pattern:
    rules = _rules(gbnf)
    return re.compile(_translate(rules["root"], rules), re.DOTALL)
