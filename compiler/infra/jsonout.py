"""JSON as chartc writes it: canonical text for files, and JSON safe inside an HTML page.

`canonical_json` is the one form of every JSON file chartc writes (the
Vega-Lite export, ``--vl.json`` on stdout, the gallery's manifest): the same
value always gives the same bytes. `html_safe_json` embeds a value in a
``<script>`` element without letting it close the element.
"""

from __future__ import annotations

import json
import math


def canonical_json(value) -> str:
    """Sorted keys, no NaN/Infinity (written as null), two-space indent, trailing newline.

    Args:
        value: JSON-like data (dicts, lists, tuples, strings, numbers, booleans, None).

    Returns:
        The text; the same value always gives the same text.
    """
    return json.dumps(_finite(value), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


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
