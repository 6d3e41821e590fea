"""The README's Python API snippet runs as written, from the project root."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_python_api_snippet_runs_as_written():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python API", 1)[1]
    snippet = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    done = subprocess.run([sys.executable, "-c", snippet], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
