"""chartc's own font, "chartc Sans": its folder, its family name, its advance widths, the glyphs it must have.

The font is DejaVu Sans 2.37 cut to the blocks chartc draws and renamed
(scripts/build_fonts.py writes the files here, LICENSE.txt beside them). The
renderer registers this folder when it starts (`render.export`), so a chart
whose config names `FAMILY` is drawn with it on any machine; the translator
names it for every chart (`config.font`: titles, axes, legends, annotations)
unless a theme or the spec names another.
`widths` gives the translator the font's own advance widths, so the text it
wraps is measured in the font that draws it.

May import: the standard library.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

FONT_DIRECTORY = Path(__file__).resolve().parent
FAMILY = "chartc Sans"

# Every character chartc writes itself (numbers in equations and labels: 1.2×10⁻³, −, ·, ², R², ±, …) and
# the ones a label or a title is expected to hold (Greek, sub- and superscripts, common signs).
# tests/test_fonts.py renders them all in `FAMILY` and checks that none falls back to another font.
EMITTED_GLYPHS = (
    "".join(chr(code) for code in range(0x20, 0x7F))
    + "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ᵀ"
    + "".join(chr(code) for code in range(0x391, 0x3AA) if code != 0x3A2)
    + "".join(chr(code) for code in range(0x3B1, 0x3CA))
    + "×−·±÷≤≥≈≠∞√∑∏∫∂∇∈∝∼→←↔⇒′″°µ…–—‘’“”•½¼¾é\ufffd"
)


@functools.cache
def _table() -> dict:
    return json.loads((FONT_DIRECTORY / "widths.json").read_text(encoding="utf-8"))


def widths(family: str, bold: bool = False) -> dict[str, float] | None:
    """Character -> advance width (1/1000 em) in `family`, when it is chartc's font; None for any other family.

    Args:
        family: a CSS font family as a chart's config names it (``chartc Sans``, or a list starting with it).
        bold: the bold face's widths.
    """
    first = family.split(",")[0].strip().strip("'\"")
    if first != FAMILY:
        return None
    return _table()["widths"]["Bold" if bold else "Regular"]
