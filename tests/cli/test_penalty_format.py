"""Penalties in the terminal tables read to two decimals (a custom rubric's tiers can make sums
like 4.015625), and a nonzero penalty never reads as 0.00."""

from __future__ import annotations

import json
import re

from voxjudge.cli.main import main
from voxjudge.cli.views.shared import penalty


def test_penalty_is_rounded_to_two_decimals():
    assert penalty(4.015625) == "4.02"
    assert penalty(2.0126953125) == "2.01"
    assert penalty(3) == "3.00" and penalty(0.5) == "0.50"
    assert penalty(0) == "0.00" and penalty(0.0) == "0.00"
    assert penalty(2**-10) == "<0.01" and penalty(0.005) == "0.01"
    assert penalty(None) == "–"


def test_the_error_types_table_shows_rounded_penalties(capsys, examples):
    d = examples / "asr" / "en"
    argv = ["asr", "score", "--ref", str(d / "ref.txt"), "--hyp", str(d / "sys_b.txt"), "--ids", "--lang", "en"]
    assert main([*argv, "--json"]) == 0
    types = json.loads(capsys.readouterr().out)["error_types"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    table = out[out.index("Error types") :].split("\n\n")[0]
    shown = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("│").split("│")]
        if len(cells) == 3 and cells[0] in types:
            shown[cells[0]] = cells[2]
    assert set(shown) == set(types)
    for name, cell in types.items():
        assert re.fullmatch(r"\d+\.\d\d|<0\.01", shown[name]), shown[name]
        assert shown[name] == penalty(cell["penalty"])
