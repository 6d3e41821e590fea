from __future__ import annotations

import subprocess
import sys

import voxjudge


def test_import_is_light():
    code = (
        "import sys, voxjudge; heavy = {'numpy', 'scipy', 'rapidfuzz', 'rich', 'regex', 'openai', 'anthropic'};"
        "print(sorted(heavy & set(sys.modules)))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "[]"


def test_every_public_name_resolves():
    for name in voxjudge.__all__:
        assert getattr(voxjudge, name) is not None
    assert voxjudge.wer("a b", "a c") == 0.5
