"""Terminal tables aligned by display width (wcwidth), so Devanagari, Tamil or CJK cells line up
with their header: rich measures some Indic clusters one cell narrower than terminals draw them.

Same calls as ``rich.table.Table`` for what the commands use (title, add_column with justify,
add_row); ``console().print(table)`` prints it unwrapped."""

from __future__ import annotations

from typing import Any


def display_width(text: str) -> int:
    """Terminal cells for ``text`` (code points for control characters, which wcwidth rejects)."""
    if text.isascii() and text.isprintable():
        return len(text)  # one cell each; skips importing wcwidth (most of a small table's time)
    from wcwidth import wcswidth

    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _fit(text: str, width: int, justify: str) -> str:
    gap = width - display_width(text)
    if justify == "right":
        return " " * gap + text
    if justify == "center":
        return " " * (gap // 2) + text + " " * (gap - gap // 2)
    return text + " " * gap


class Table:
    def __init__(self, title: str | None = None, **_: Any) -> None:
        self.title = title
        self.headers: list[str] = []
        self.justify: list[str] = []
        self.rows: list[list[str]] = []

    def add_column(self, header: str = "", justify: str = "left", **_: Any) -> None:
        self.headers.append(str(header))
        self.justify.append(justify)

    def add_row(self, *cells: Any) -> None:
        row = ["" if c is None else str(c) for c in cells]
        self.rows.append(row + [""] * (len(self.headers) - len(row)))

    def render(self) -> str:
        widths = [
            max([display_width(h), *(display_width(r[k]) for r in self.rows)]) for k, h in enumerate(self.headers)
        ]

        def line(left: str, fill: str, mid: str, right: str) -> str:
            return left + mid.join(fill * (w + 2) for w in widths) + right

        def cells(values: list[str], bar: str) -> str:
            return bar + bar.join(f" {_fit(v, w, j)} " for v, w, j in zip(values, widths, self.justify)) + bar

        out = []
        total = sum(widths) + 3 * len(widths) + 1
        if self.title:
            out.append(_fit(self.title, total, "center").rstrip() if display_width(self.title) < total else self.title)
        out.append(line("┏", "━", "┳", "┓"))
        out.append(cells(self.headers, "┃"))
        out.append(line("┡", "━", "╇", "┩"))
        out += [cells(r, "│") for r in self.rows]
        out.append(line("└", "─", "┴", "┘"))
        return "\n".join(out)

    def __rich__(self):
        from rich.text import Text

        return Text(self.render(), no_wrap=True, overflow="ignore")

    def __str__(self) -> str:
        return self.render()
