"""JSON as chartc writes it: canonical text for files, and JSON safe inside an HTML page.

`canonical_json` is the one form of every JSON file chartc writes (the
Vega-Lite export, ``--vl.json`` on stdout, the gallery's manifest): the same
value always gives the same bytes. `html_safe_json` embeds a value in a
``<script>`` element without letting it close the element.
"""

from __future__ import annotations

import json
import math
import re

# Where orjson's text differs from `json.dumps`: a float whose decimal exponent
# is -5 (orjson 0.00001, Python 1e-05) or -6..-9 (orjson 1e-6, Python 1e-06).
# Measured on 6·10⁵ floats of every magnitude and on every code point of text:
# nothing else differs. Such numbers are rewritten in orjson's text; a string
# that holds one of these forms sends the value to the standard encoder.
_ORJSON_DIFFERS = re.compile(r"0\.0000|e-\d(?!\d)")
# Such a number where it stands alone as a value: the indented text puts each scalar on a line of its own,
# after its key if in an object (a key is a complete string; a string value never starts with a digit).
_DIFFERING_NUMBER = re.compile(r'( *(?:"(?:[^"\\\n]|\\.)*": )?)(-?(?:0\.0000\d*|\d(?:\.\d+)?e-\d))(,?)')


def canonical_json(value) -> str:
    """Sorted keys, no NaN/Infinity (written as null), two-space indent, trailing newline.

    Written by orjson when the text is the standard encoder's to the byte
    (~20x faster at 10⁵ rows: `json.dumps` with an indent runs in pure
    Python); else, and without orjson, by `json.dumps`.

    Args:
        value: JSON-like data (dicts, lists, tuples, strings, numbers, booleans, None).

    Returns:
        The text; the same value always gives the same text.
    """
    fast = _orjson_text(value)
    if fast is not None:
        return fast
    return json.dumps(_finite(value), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _orjson_text(value) -> str | None:
    """`canonical_json`'s text by orjson (which writes NaN and infinities as null), or None where it may differ."""
    try:
        import orjson
    except ImportError:
        return None
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # what orjson does not take (an integer past 64 bits, a float subclass, deep nesting)
        return None
    # The numbers orjson writes otherwise, rewritten as the standard encoder writes them (`float.__repr__`,
    # the same shortest digits): one such number in 10^5 rows would send the whole text to the pure-Python
    # encoder (~2 s at 5 MB). A line where the form is not such a number alone (a string) is left to it.
    parts, at = [], 0
    for found in _ORJSON_DIFFERS.finditer(text):
        if found.start() < at:
            continue
        start, end = text.rfind("\n", 0, found.start()) + 1, text.find("\n", found.end())
        end = len(text) if end < 0 else end
        line = _DIFFERING_NUMBER.fullmatch(text, start, end)
        if line is None:
            return None
        parts += [text[at:start], line[1], repr(float(line[2])), line[3]]
        at = end
    return "".join(parts) + text[at:] + "\n"


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def html_safe_json(value) -> str:
    """JSON that cannot close a <script> element or start an HTML comment.

    `<`, `>` and `&` become \\u escapes (still the same JSON value), and so do
    U+2028/U+2029, which end a line in older JavaScript.
    """
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text
