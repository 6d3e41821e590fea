from __future__ import annotations

from voxjudge.asr import align
from voxjudge.asr.display import display_width, render_alignment


def test_pairs_cover_every_position_with_empty_side_for_gaps():
    a = align("the cat sat on the mat", "the bat sat down on the")
    ops = [(p.ref, p.hyp, p.op) for p in a.pairs()]
    assert ops == [
        ("the", "the", "equal"),
        ("cat", "bat", "substitute"),
        ("sat", "sat", "equal"),
        ("", "down", "insert"),
        ("on", "on", "equal"),
        ("the", "the", "equal"),
        ("mat", "", "delete"),
    ]
    c = a.counts
    assert (c.hits, c.substitutions, c.deletions, c.insertions) == (4, 1, 1, 1)


def test_character_alignment():
    a = align("abc", "abd", unit="char")
    assert [p.op for p in a.pairs()] == ["equal", "equal", "substitute"]


def test_display_width_counts_cells_not_code_points():
    assert display_width("cat") == 3
    assert display_width("猫") == 2
    assert display_width("e\u0301") == 1
    assert display_width("सफ़र") < len("सफ़र")


def _columns(line: str) -> list[int]:
    """Display-width offsets at which each space-separated cell starts."""
    starts, prev_space = [], True
    for k, ch in enumerate(line):
        if ch != " " and prev_space:
            starts.append(display_width(line[:k]))
        prev_space = ch == " "
    return starts


def test_rendered_rows_line_up_for_devanagari_and_cjk():
    for ref, hyp in [("हिंदी में सफ़र", "हिन्दी में सफर"), ("我 喜欢 猫", "我 爱 猫 狗"), ("café x", "cafe\u0301 y")]:
        text = render_alignment(align(ref, hyp))
        _, ref_line, hyp_line, ops_line = text.split("\n")
        assert _columns(ref_line) == _columns(hyp_line)
        assert set(_columns(ops_line)) <= set(_columns(ref_line))


def test_color_only_when_asked():
    a = align("a b", "a c")
    assert "\x1b[" not in render_alignment(a)
    assert "\x1b[33m" in render_alignment(a, color=True)


def test_gaps_are_asterisks_as_wide_as_the_other_side():
    text = render_alignment(align("a", "a 猫"))
    assert "**" in text.split("\n")[1]


def test_align_stays_the_function_after_its_module_is_imported():
    # the module is named apart from the function: importing it cannot shadow the export
    import importlib

    import voxjudge.asr

    importlib.import_module("voxjudge.asr.alignment")
    assert callable(voxjudge.asr.align) and voxjudge.asr.align("a b", "a c").pairs()
