"""The one compiled part: LASER's path for plain lines (``src/voxjudge/asr/laser/_plain.c``). It is
optional: where it cannot be compiled (no C compiler), the install goes on and the Python path
scores every line, with the same records and summary (``voxjudge --version`` says which runs)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("voxjudge.asr.laser._plain", ["src/voxjudge/asr/laser/_plain.c"], optional=True),
    ]
)
