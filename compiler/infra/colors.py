"""Colours: one vocabulary, checked wherever a spec writes a colour, emitted as the renderer draws it.

A colour is one of:

- a CSS named colour: the 148 names of CSS Color Module Level 4, section 6.1
  (https://www.w3.org/TR/css-color-4/#named-colors), or ``transparent``; in
  any case, as CSS reads them;
- hex: ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``;
- ``rgb()``, ``rgba()``, ``hsl()``, ``hsla()`` with numbers in range, comma or
  space separated (CSS Color 4, sections 5.1 and 7.1);
- what matplotlib users bring (``matplotlib.colors``): ``TABLEAU_COLORS``
  (``tab:blue`` ... ``tab:cyan``), ``C0`` ... ``C9`` (matplotlib's default
  colour cycle: the same ten), ``BASE_COLORS`` (``b g r c m y k w``) and a
  grey level, the text of a number from 0 (black) to 1 (white) such as ``.3``.

`resolve_color` is the one reader of a colour: the schema's ``color`` format
(validate.py), the scan of the free-form ``config`` and ``vega_lite``
(`free_form_problems`) and every place translate writes a colour call it. It
returns what the renderer draws: CSS names and hex as written, everything
else as hex (measured with vl-convert 1.9: its PNG renderer draws
``rebeccapurple``, a percentage alpha, the ``/ alpha`` syntax and a hue in
``deg`` black, and Vega draws ``tab:blue`` or ``.3`` black everywhere).

``config`` and ``vega_lite`` go to Vega-Lite as they are, so they are scanned
by key: every colour key (``color``, ``fill``, ``stroke``, ``background``,
``...Color``) must hold a colour, every font key (``font``, ``...Font``,
``fontStyle``, ``fontWeight``) a plain font name, and no string anywhere may
carry ``url(``, ``expression(``, ``javascript:``, ``@import`` or ``</style``:
an SVG, HTML page or gallery showing the chart would fetch or run it.
"""

from __future__ import annotations

import colorsys
import copy
import re
from decimal import ROUND_HALF_UP, Decimal

from .. import errors as msg
from ..errors import SpecError

# CSS Color Module Level 4, section 6.1: every named colour and its sRGB value.
CSS_COLORS: dict[str, str] = {
    "aliceblue": "#f0f8ff", "antiquewhite": "#faebd7", "aqua": "#00ffff", "aquamarine": "#7fffd4",
    "azure": "#f0ffff", "beige": "#f5f5dc", "bisque": "#ffe4c4", "black": "#000000", "blanchedalmond": "#ffebcd",
    "blue": "#0000ff", "blueviolet": "#8a2be2", "brown": "#a52a2a", "burlywood": "#deb887", "cadetblue": "#5f9ea0",
    "chartreuse": "#7fff00", "chocolate": "#d2691e", "coral": "#ff7f50", "cornflowerblue": "#6495ed",
    "cornsilk": "#fff8dc", "crimson": "#dc143c", "cyan": "#00ffff", "darkblue": "#00008b", "darkcyan": "#008b8b",
    "darkgoldenrod": "#b8860b", "darkgray": "#a9a9a9", "darkgreen": "#006400", "darkgrey": "#a9a9a9",
    "darkkhaki": "#bdb76b", "darkmagenta": "#8b008b", "darkolivegreen": "#556b2f", "darkorange": "#ff8c00",
    "darkorchid": "#9932cc", "darkred": "#8b0000", "darksalmon": "#e9967a", "darkseagreen": "#8fbc8f",
    "darkslateblue": "#483d8b", "darkslategray": "#2f4f4f", "darkslategrey": "#2f4f4f", "darkturquoise": "#00ced1",
    "darkviolet": "#9400d3", "deeppink": "#ff1493", "deepskyblue": "#00bfff", "dimgray": "#696969",
    "dimgrey": "#696969", "dodgerblue": "#1e90ff", "firebrick": "#b22222", "floralwhite": "#fffaf0",
    "forestgreen": "#228b22", "fuchsia": "#ff00ff", "gainsboro": "#dcdcdc", "ghostwhite": "#f8f8ff",
    "gold": "#ffd700", "goldenrod": "#daa520", "gray": "#808080", "green": "#008000", "greenyellow": "#adff2f",
    "grey": "#808080", "honeydew": "#f0fff0", "hotpink": "#ff69b4", "indianred": "#cd5c5c", "indigo": "#4b0082",
    "ivory": "#fffff0", "khaki": "#f0e68c", "lavender": "#e6e6fa", "lavenderblush": "#fff0f5",
    "lawngreen": "#7cfc00", "lemonchiffon": "#fffacd", "lightblue": "#add8e6", "lightcoral": "#f08080",
    "lightcyan": "#e0ffff", "lightgoldenrodyellow": "#fafad2", "lightgray": "#d3d3d3", "lightgreen": "#90ee90",
    "lightgrey": "#d3d3d3", "lightpink": "#ffb6c1", "lightsalmon": "#ffa07a", "lightseagreen": "#20b2aa",
    "lightskyblue": "#87cefa", "lightslategray": "#778899", "lightslategrey": "#778899", "lightsteelblue": "#b0c4de",
    "lightyellow": "#ffffe0", "lime": "#00ff00", "limegreen": "#32cd32", "linen": "#faf0e6", "magenta": "#ff00ff",
    "maroon": "#800000", "mediumaquamarine": "#66cdaa", "mediumblue": "#0000cd", "mediumorchid": "#ba55d3",
    "mediumpurple": "#9370db", "mediumseagreen": "#3cb371", "mediumslateblue": "#7b68ee",
    "mediumspringgreen": "#00fa9a", "mediumturquoise": "#48d1cc", "mediumvioletred": "#c71585",
    "midnightblue": "#191970", "mintcream": "#f5fffa", "mistyrose": "#ffe4e1", "moccasin": "#ffe4b5",
    "navajowhite": "#ffdead", "navy": "#000080", "oldlace": "#fdf5e6", "olive": "#808000", "olivedrab": "#6b8e23",
    "orange": "#ffa500", "orangered": "#ff4500", "orchid": "#da70d6", "palegoldenrod": "#eee8aa",
    "palegreen": "#98fb98", "paleturquoise": "#afeeee", "palevioletred": "#db7093", "papayawhip": "#ffefd5",
    "peachpuff": "#ffdab9", "peru": "#cd853f", "pink": "#ffc0cb", "plum": "#dda0dd", "powderblue": "#b0e0e6",
    "purple": "#800080", "rebeccapurple": "#663399", "red": "#ff0000", "rosybrown": "#bc8f8f",
    "royalblue": "#4169e1", "saddlebrown": "#8b4513", "salmon": "#fa8072", "sandybrown": "#f4a460",
    "seagreen": "#2e8b57", "seashell": "#fff5ee", "sienna": "#a0522d", "silver": "#c0c0c0", "skyblue": "#87ceeb",
    "slateblue": "#6a5acd", "slategray": "#708090", "slategrey": "#708090", "snow": "#fffafa",
    "springgreen": "#00ff7f", "steelblue": "#4682b4", "tan": "#d2b48c", "teal": "#008080", "thistle": "#d8bfd8",
    "tomato": "#ff6347", "turquoise": "#40e0d0", "violet": "#ee82ee", "wheat": "#f5deb3", "white": "#ffffff",
    "whitesmoke": "#f5f5f5", "yellow": "#ffff00", "yellowgreen": "#9acd32",
}
TRANSPARENT = "transparent"
# Names the renderer does not know (vl-convert's PNG draws them black): written as hex.
RENDERER_UNKNOWN = frozenset({"rebeccapurple"})

# matplotlib.colors.TABLEAU_COLORS, in order: also the default cycle C0..C9.
TABLEAU_COLORS: dict[str, str] = {
    "tab:blue": "#1f77b4", "tab:orange": "#ff7f0e", "tab:green": "#2ca02c", "tab:red": "#d62728",
    "tab:purple": "#9467bd", "tab:brown": "#8c564b", "tab:pink": "#e377c2", "tab:gray": "#7f7f7f",
    "tab:olive": "#bcbd22", "tab:cyan": "#17becf",
}
CYCLE_COLORS: dict[str, str] = {f"C{index}": value for index, value in enumerate(TABLEAU_COLORS.values())}
# matplotlib.colors.BASE_COLORS, as matplotlib.colors.to_hex writes them.
BASE_COLORS: dict[str, str] = {
    "b": "#0000ff", "g": "#008000", "r": "#ff0000", "c": "#00bfbf",
    "m": "#bf00bf", "y": "#bfbf00", "k": "#000000", "w": "#ffffff",
}

# Colour-blind-safe category palettes, by the name a colour scale's `scheme` (or a marker map's
# `palette`) takes; Vega knows none of them, so chartc writes their colours as the scale's range.
# Okabe & Ito, "Color Universal Design (CUD): how to make figures and presentations that are
# friendly to colorblind people" (2002/2008; the eight colours as Wong, "Points of view: Color
# blindness", Nature Methods 8, 441, 2011, lists them), orange first and black last as
# ggplot2's ggokabeito orders them for categories. Paul Tol, "Colour Schemes", SRON technical
# note SRON/EPS/TN/09-002, issue 3.2 (2021), figures 1-3: the bright, vibrant and muted
# qualitative schemes in the note's order (muted without its pale grey for bad data).
PALETTES: dict[str, tuple[str, ...]] = {
    "okabe-ito": ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"),
    "tol-bright": ("#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB"),
    "tol-vibrant": ("#EE7733", "#0077BB", "#33BBEE", "#EE3377", "#CC3311", "#009988", "#BBBBBB"),
    "tol-muted": ("#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933",
                  "#AA4499"),
}

# Not colours here, but their meaning has one: matplotlib's 'none' (no colour) is CSS's transparent.
NEAR_MISSES = {"none": TRANSPARENT}

HEX = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
GREY = re.compile(r"[01](?:\.\d*)?|\.\d+")
FUNCTION = re.compile(r"(rgba?|hsla?)\((.*)\)", re.IGNORECASE | re.DOTALL)
NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def color_choices() -> tuple[str, ...]:
    """Every colour name `resolve_color` accepts, for did-you-mean hints."""
    return (*CSS_COLORS, TRANSPARENT, *TABLEAU_COLORS, *CYCLE_COLORS, *BASE_COLORS)


def resolve_color(text: str) -> str:
    """Check a colour and translate it to what the renderer draws.

    Args:
        text: a colour as a spec writes it (``tab:blue``, ``.3``, ``#1f77b4``).

    Returns:
        CSS names (but `RENDERER_UNKNOWN`) and hex as written, without
        surrounding spaces; every other form as ``#rrggbb`` (``#rrggbbaa``
        when it has an alpha below 1). A colour it returns resolves to itself.

    Raises:
        SpecError: not a colour (stage ``schema``, at the root path: callers
            place it), with a did-you-mean or the accepted forms as its hint.
    """
    if not isinstance(text, str):
        raise SpecError(msg.not_a_color(text), stage="schema", hint=msg.color_hint(None))
    marker = unsafe_marker(text)
    if marker is not None:
        raise SpecError(msg.unsafe_text(text, marker), stage="schema", hint=msg.unsafe_text_hint())
    color = text.strip()
    lowered = color.lower()
    if lowered in CSS_COLORS:
        return CSS_COLORS[lowered] if lowered in RENDERER_UNKNOWN else color
    if lowered == TRANSPARENT or HEX.fullmatch(color):
        return color
    named = TABLEAU_COLORS.get(lowered) or CYCLE_COLORS.get(color) or BASE_COLORS.get(color)
    if named:
        return named
    if GREY.fullmatch(color):
        return _grey(text, color)
    function = FUNCTION.fullmatch(color)
    if function:
        return _function(text, function.group(1).lower(), function.group(2))
    near = NEAR_MISSES.get(lowered, color)
    raise SpecError(msg.not_a_color(text), stage="schema",
                    hint=msg.color_hint(msg.did_you_mean(near, color_choices())))


def _grey(text: str, color: str) -> str:
    level = Decimal(color)
    if level > 1:
        raise SpecError(msg.color_arguments(text, "grey"), stage="schema", hint=msg.color_form_hint("grey"))
    return _hex([level * 255] * 3)


def _function(text: str, name: str, body: str) -> str:
    """``rgb()``/``rgba()``/``hsl()``/``hsla()`` as hex; rgba is rgb with an alpha, as in CSS Color 4."""
    form = name[:3]
    if "," in body:
        parts = [part.strip() for part in body.split(",")]
        alpha = parts.pop() if len(parts) == 4 else None
    else:  # CSS Color 4's space-separated form: rgb(31 119 180 / 50%)
        main, slash, after = body.partition("/")
        parts, alpha = main.split(), (after.strip() if slash else None)
    channels = _rgb(parts) if form == "rgb" else _hsl(parts)
    opacity = Decimal(1) if alpha is None else _alpha(alpha)
    if channels is None or opacity is None:
        raise SpecError(msg.color_arguments(text, form), stage="schema", hint=msg.color_form_hint(form))
    return _hex(channels + ([opacity * 255] if opacity < 1 else []))


def _decimal(token: str, unit: str = "") -> Decimal | None:
    """The number of `token` written with `unit` (``%``, ``deg``) or none, else None."""
    if unit and token.lower().endswith(unit):
        token = token[:-len(unit)]
    elif unit:
        return None
    return Decimal(token) if NUMBER.fullmatch(token) else None


def _within(value: Decimal | None, high: int) -> Decimal | None:
    return value if value is not None and 0 <= value <= high else None


def _rgb(parts: list[str]) -> list[Decimal] | None:
    """Red, green, blue on 0..255: three numbers 0..255, or three percentages."""
    if len(parts) != 3:
        return None
    if all(part.endswith("%") for part in parts):
        values = [_within(_decimal(part, "%"), 100) for part in parts]
        return None if None in values else [value * Decimal("2.55") for value in values]
    values = [_within(_decimal(part), 255) for part in parts]
    return None if None in values else values


def _hsl(parts: list[str]) -> list[Decimal] | None:
    """Red, green, blue on 0..255 from a hue (degrees) and saturation and lightness percentages."""
    if len(parts) != 3:
        return None
    hue = _decimal(parts[0])
    if hue is None:
        hue = _decimal(parts[0], "deg")
    saturation, lightness = (_within(_decimal(part, "%"), 100) for part in parts[1:])
    if hue is None or saturation is None or lightness is None:
        return None
    red, green, blue = colorsys.hls_to_rgb(float(hue % 360) / 360, float(lightness) / 100, float(saturation) / 100)
    # Rounded to nine places first, so 0.5 that floats make 0.4999... still rounds up.
    return [Decimal(f"{channel * 255:.9f}") for channel in (red, green, blue)]


def _alpha(token: str) -> Decimal | None:
    if token.endswith("%"):
        value = _within(_decimal(token, "%"), 100)
        return None if value is None else value / 100
    return _within(_decimal(token), 1)


def _hex(channels: list[Decimal]) -> str:
    """``#rrggbb(aa)``, each channel rounded half up, as CSS rounds (0.3 grey is #4d4d4d)."""
    return "#" + "".join(f"{int(c.quantize(Decimal(1), rounding=ROUND_HALF_UP)):02x}" for c in channels)


# ------------------------------------------------------------------ text that reaches SVG or CSS

# Text that makes a viewer fetch or run something, or ends the page's style sheet.
UNSAFE_MARKERS = ("url(", "expression(", "javascript:", "@import", "</style")
# A CSS escape (\75 or \u) and a comment: `u\72l(` and `expression/**/(` are what they spell.
CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?|\\(.)", re.DOTALL)
CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
# URL parsers drop tabs and line breaks: `java\tscript:` is `javascript:`.
URL_IGNORED = re.compile(r"[\t\n\r\f\x00]")


def unsafe_marker(text: str) -> str | None:
    """The first of `UNSAFE_MARKERS` that `text` carries (through CSS escapes and comments), or None."""
    plain = CSS_ESCAPE.sub(_unescape, text)
    plain = URL_IGNORED.sub("", CSS_COMMENT.sub("", plain)).lower()
    return next((marker for marker in UNSAFE_MARKERS if marker in plain), None)


def _unescape(match: re.Match) -> str:
    if match.group(1):
        code = int(match.group(1), 16)
        return chr(code) if 0 < code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF else "\ufffd"
    return match.group(2)


# Vega-Lite keys whose value is a colour, besides every key ending in `Color`
# (gridColor, labelColor, fillColor, ...).
COLOR_KEYS = frozenset({"color", "fill", "stroke", "background"})
# Font family lists (font, labelFont, ...) and the font words written beside them.
FONT_KEY = re.compile(r"(?:font|[a-z]\w*Font)(?:Style|Weight)?")
# What a font family list needs: names, spaces, commas, and - _ . ' (no quote, angle bracket or
# ampersand: vl-convert aborts the process on `<` or `&` in a font, and on `"` in a fontStyle).
FONT_TEXT = re.compile(r"[\w ,.'-]*")
# `config.range` lists that hold colours (`symbol` holds shapes).
COLOR_RANGES = frozenset({"category", "diverging", "heatmap", "ordinal", "ramp"})


def is_color_key(key: object) -> bool:
    """Whether a Vega-Lite key takes a colour: `COLOR_KEYS` and every ``...Color``."""
    return isinstance(key, str) and (key in COLOR_KEYS or (key.endswith("Color") and key != "Color"))


def _sites(value, path: tuple, rows: bool = False):
    """(path, kind, value) of every colour, font and other string in free-form Vega-Lite.

    kind is ``color``, ``font``, ``computed`` (an ``{expr: ...}`` where a
    colour or font goes), ``unscaled`` (a colour channel's scale that draws
    the data's own values as colours) or ``text``. Inline rows
    (``data.values``, ``datasets``) are only text: a row's ``color`` column is
    data, not a style.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            where = path + (key,)
            if rows:
                yield from _sites(item, where, rows=True)
            elif (key == "values" and path[-1:] == ("data",)) or key == "datasets":
                yield from _sites(item, where, rows=True)
            elif is_color_key(key):
                yield from _color_sites(item, where)
            elif isinstance(key, str) and FONT_KEY.fullmatch(key):
                yield from _font_sites(item, where)
            elif key == "range" and isinstance(item, dict):
                for name, entry in item.items():
                    if name in COLOR_RANGES and isinstance(entry, list):
                        for index, color in enumerate(entry):
                            yield from _color_sites(color, where + (name, index))
                    else:
                        yield from _sites(entry, where + (name,))
            else:
                yield from _sites(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _sites(item, path + (index,), rows)
    elif isinstance(value, str):
        yield path, "text", value


def _color_sites(value, path: tuple):
    """A colour key's value: a colour, null, a gradient, or a channel (value, condition, scale.range)."""
    if isinstance(value, str):
        yield path, "color", value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _color_sites(item, path + (index,))
    elif isinstance(value, dict) and "expr" in value:
        yield path + ("expr",), "computed", value["expr"]
    elif isinstance(value, dict):
        for key, item in value.items():
            where = path + (key,)
            if key in ("value", "condition"):
                yield from _color_sites(item, where)
            elif key == "scale" and _draws_data_as_colors(item):
                yield where, "unscaled", item
            elif key == "scale" and isinstance(item, dict) and isinstance(item.get("range"), list):
                for index, color in enumerate(item["range"]):
                    yield from _color_sites(color, where + ("range", index))
                yield from _sites({k: v for k, v in item.items() if k != "range"}, where)
            else:  # a gradient's stops, a channel's field, legend or test
                yield from _sites(item, where)


def _draws_data_as_colors(scale) -> bool:
    """A colour channel's scale that draws data values as colours, unchecked (`scale: null`, identity)."""
    if scale is None:
        return True
    return isinstance(scale, dict) and (
        scale.get("type") == "identity" or (isinstance(scale.get("range"), dict) and "field" in scale["range"]))


def _font_sites(value, path: tuple):
    if isinstance(value, str):
        yield path, "font", value
    elif isinstance(value, dict) and "expr" in value:
        yield path + ("expr",), "computed", value["expr"]
    else:
        yield from _sites(value, path)


def free_form_problems(value, path: tuple) -> list[SpecError]:
    """Colours, fonts and unsafe text in a free-form mapping passed to Vega-Lite.

    Args:
        value: the spec's ``config`` or ``vega_lite``.
        path: its spec path, ``("config",)``.

    Returns:
        One `SpecError` (stage ``schema``, no location yet) per colour that
        `resolve_color` refuses, font that is not a plain family list,
        colour or font computed by an expression, colour channel whose scale
        draws the data's values as colours (``scale: null``, an identity
        scale, a range from a field), and string carrying one of
        `UNSAFE_MARKERS`; each at its spec path.
    """
    problems = []
    for where, kind, item in _sites(value, path):
        if kind == "color":
            try:
                resolve_color(item)
            except SpecError as error:
                problems.append(SpecError(error.message, where, stage="schema", hint=error.hint))
            continue
        if kind == "computed":
            problems.append(SpecError(msg.computed_style(where[-2]), where, stage="schema",
                                      hint=msg.computed_style_hint()))
            continue
        if kind == "unscaled":
            problems.append(SpecError(msg.unscaled_colors(where[-2]), where, stage="schema",
                                      hint=msg.unscaled_colors_hint()))
            continue
        marker = unsafe_marker(item) if isinstance(item, str) else None
        if marker is not None:
            problems.append(SpecError(msg.unsafe_text(item, marker), where, stage="schema",
                                      hint=msg.unsafe_text_hint()))
        elif kind == "font" and not FONT_TEXT.fullmatch(item):
            refused = sorted({char for char in item if not FONT_TEXT.fullmatch(char)})
            problems.append(SpecError(msg.unsafe_font(item, refused), where, stage="schema",
                                      hint=msg.unsafe_font_hint()))
    return problems


def resolve_free_form(value):
    """A copy of a free-form mapping with every colour translated by `resolve_color`.

    Args:
        value: the spec's ``config`` or ``vega_lite``, already checked by
            `free_form_problems`.

    Returns:
        A deep copy; `value` itself is left unchanged.
    """
    resolved = copy.deepcopy(value)
    for where, kind, item in _sites(value, ()):
        if kind == "color":
            node = resolved
            for key in where[:-1]:
                node = node[key]
            node[where[-1]] = resolve_color(item)
    return resolved
