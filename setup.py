"""The one compiled part: LASER's path for plain lines (``src/voxjudge/asr/laser/_plain.c``). It is
optional: where it cannot be compiled (no C compiler), the install goes on and the Python path
scores every line, with the same records and summary (``voxjudge --version`` says which runs).
The module carries the sha256 of the source it was built from: in a checkout whose source has
changed since (an editable install not rebuilt), the Python path runs instead of a stale build."""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "src/voxjudge/asr/laser/_plain.c"
digest = hashlib.sha256((Path(__file__).parent / SOURCE).read_bytes()).hexdigest()

setup(
    ext_modules=[
        Extension(
            "voxjudge.asr.laser._plain",
            [SOURCE],
            define_macros=[("SOURCE_SHA256", f'"{digest}"')],
            optional=True,
        ),
    ]
)
