"""Text widths as the renderer measures them, and text wrapped to a width.

Vega measures text when it lays a chart out (a label's limit, an overlap
between tick labels), but only once the chart is drawn; chartc needs widths
before that, to wrap a long legend label or annotation into lines so that
nothing is cut (a label past its `labelLimit` ends in "…") or runs out of
the plot. vl-convert draws the default `sans-serif` with Arial's metrics
(Liberation Sans: measured, "0123456789" is 5.5615 em wide, Arial's 556 per
digit), so the widths below are Arial's advance widths, per 1000 em. An
accented letter counts as its base letter; any other character not in the
table as `OTHER_WIDTH`, a full em (a CJK character's width, wider than most),
so an estimate errs towards wrapping a little early, never towards overflowing.
Text drawn in chartc's own font (`infra.fonts`, every chart's unless a theme
or the config names another) is measured with that font's advance widths
instead, read from the font file itself.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ...infra import fonts

# Arial / Helvetica advance widths (1/1000 em) of printable ASCII.
_ASCII_WIDTHS = (
    # space ! " # $ % & ' ( ) * + , - . /
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    # 0-9
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556,
    # : ; < = > ? @
    278, 278, 584, 584, 584, 556, 1015,
    # A-Z
    667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833,
    722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611,
    # [ \ ] ^ _ `
    278, 278, 278, 469, 556, 333,
    # a-z
    556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833,
    556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500,
    # { | } ~
    334, 260, 334, 584,
)
CHARACTER_WIDTHS = {
    **{chr(32 + index): width for index, width in enumerate(_ASCII_WIDTHS)},
    # What chartc writes itself in labels and equations, and common signs.
    "¹": 333, "²": 333, "³": 333, "·": 278, "−": 584, "×": 584, "±": 584, "°": 400, "µ": 556,
    "–": 556, "—": 1000, "…": 1000, "≈": 584, "≤": 584, "≥": 584, "\u00a0": 278,
}
OTHER_WIDTH = 1000
# A drawn text is checked with an estimate that errs short: a character in
# neither table counts as half an em (most scripts' letters are wider).
OTHER_DRAWN_WIDTH = 500
# The font's own widths are in 1/2048 em (`a` is 1139/2048 = 556.15/1000): 1%
# more covers that rounding over any length of text.
MARGIN = 1.01


def text_width(text: str, font_size: float, font: str = "sans-serif", *, bold: bool = False) -> float:
    """The width in px of one line of text (an estimate that errs wide).

    Args:
        text: one line.
        font_size: the font size in px.
        font: the font family: chartc's own is measured with its widths, any other with Arial's.
        bold: chartc's font in its bold face (any other font is measured in its regular one).

    Returns:
        The width Vega measures for it, or a little more.
    """
    table = fonts.widths(font, bold) or CHARACTER_WIDTHS
    return sum(_character_width(char, table, OTHER_WIDTH) for char in text) * font_size / 1000 * MARGIN


def drawn_width(text: str, font_size: float, font: str = "sans-serif", *, bold: bool = False) -> float:
    """The width in px of one line of text as the renderer drew it, for checking a render (errs short).

    The same widths as `text_width` (chartc's font's own, Arial's for any other
    font), without its margin, and a character in neither table counted as
    half an em: a check that reads it reports only text that really overlaps
    or really runs past an edge.

    Args:
        text: one line.
        font_size: the font size in px.
        font: the font family the text was drawn in.
        bold: whether it was drawn bold.

    Returns:
        The width Vega measured for it, or a little less.
    """
    table = fonts.widths(font, bold) or CHARACTER_WIDTHS
    return sum(_character_width(char, table, OTHER_DRAWN_WIDTH) for char in text) * font_size / 1000


def _character_width(char: str, table: dict, other: float) -> float:
    width = table.get(char)
    if width is None:  # é as e; anything else `other`
        width = table.get(unicodedata.normalize("NFD", char)[:1], other)
    return width


def wrap_text(text: str, width: float, font_size: float, font: str = "sans-serif") -> list[str]:
    """Text broken into lines no wider than `width`, at spaces where it can be.

    A word wider than a line on its own is broken between characters. Text
    that fits comes back as one line, unchanged.

    Args:
        text: the text (its own line breaks are kept).
        width: the widest a line may be, in px.
        font_size: the font size in px.
        font: the font family (see `text_width`).

    Returns:
        The lines, in order.
    """
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if text_width(candidate, font_size, font) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            line = ""
            for char in word:  # a word too long for a line of its own
                if line and text_width(line + char, font_size, font) > width:
                    lines.append(line)
                    line = ""
                line += char
        lines.append(line)
    return lines


@dataclass(frozen=True, slots=True)
class TextStyle:
    """How the chart's legend labels are drawn; annotations are drawn alike.

    `font` and `size` are those the renderer resolves for a legend label
    (`config.legend.labelFont`, else the `guide-label` style's, else
    `config.font`); `label_limit` is True when the config sets
    `legend.labelLimit` itself (then chartc leaves it). `text_font` is the
    font a text mark gets without one of its own (`config.text.font`, else
    `config.mark.font`, else `config.font`); `text_size` the size chartc's
    annotations are drawn at (a paper preset's label size; else their own).
    """

    font: str = "sans-serif"
    size: float = 10
    label_limit: bool = False
    text_font: str = "sans-serif"
    text_size: float | None = None


def label_style(config: dict) -> TextStyle:
    """The legend labels' font and size under a chart's Vega-Lite `config` (theme and user settings merged).

    Args:
        config: the chart's Vega-Lite config.

    Returns:
        Font family and size, as Vega draws legend labels with it.
    """
    def section(mapping: dict, key: str) -> dict:
        value = mapping.get(key)
        return value if isinstance(value, dict) else {}

    legend, guide = section(config, "legend"), section(section(config, "style"), "guide-label")
    font = legend.get("labelFont", guide.get("font", config.get("font")))
    text_font = section(config, "text").get("font", section(config, "mark").get("font", config.get("font")))
    size = legend.get("labelFontSize", guide.get("fontSize"))
    default = TextStyle()
    return TextStyle(font=font if isinstance(font, str) else default.font,
                     size=size if isinstance(size, (int, float)) and size > 0 else default.size,
                     label_limit="labelLimit" in legend,
                     text_font=text_font if isinstance(text_font, str) else default.text_font)
