"""Messages of the translate stage (stages/translate/): the Vega-Lite chartc writes.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations


from .registry import code


@code("E701")
def vega_lite_invalid(reason: str) -> str:
    """Vega-Lite that fails its schema.

    The Vega-Lite chartc wrote, merged with the spec's `vega_lite:` override, fails Vega-Lite's schema.
    The problem is placed at the override key that wrote it; fix or remove that key.
    """
    return f"the merged Vega-Lite is invalid: {reason}"


def vega_lite_invalid_hint(vl_path: str, suggestion: str | None = None) -> str:
    if suggestion:  # a misspelled value: "did you mean 'point'?"
        return f"{suggestion} Vega-Lite rejects this value (at {vl_path} in the compiled chart)"
    return f"Vega-Lite rejects this value (at {vl_path} in the compiled chart)"


# ------------------------------------------------------------------ field names Vega-Lite reads as paths

@code("E709")
def field_backslash(name: str) -> str:
    """A column name with a backslash.

    Vega-Lite reads a field name as a path and writes it for Vega with '.', '[' and ']' escaped, but not '\\':
    Vega then reads the backslash as an escape and looks up another field, so the chart would be drawn
    from nothing. chartc escapes every other character itself (`eval.loss`, `a[0]` are drawn as columns);
    a backslash has to leave the name.
    """
    return f"Vega-Lite cannot read the field {name!r}: a backslash in a field name makes Vega look up another field"


def field_backslash_hint() -> str:
    return ("rename the column, or copy it under a name without the backslash with a `calculate` transform "
            "(in an expression, datum['...'] reads any name) and draw the copy")


# ------------------------------------------------------------------ categories a reader cannot tell apart

@code("W770")
def colors_merge_for_deficiency(first: str, second: str, conditions: list[str], delta: float, more: int = 0) -> str:
    """Two categories that a colour-blind reader cannot tell apart.

    The two categories are drawn alike (same shape, dash and fill) but for their colour, and under
    the named colour-vision deficiencies (simulated with Machado, Oliveira & Fernandes 2009 at full
    severity) their colours come closer than a CIEDE2000 difference of 10: about one man in twelve
    sees red and green this way. Categories that differ by shape, dash, fill or place (the colour's
    field also on x, y or a facet) as well are not reported. The closest pair is named, and how
    many other pairs merge. `--strict` makes this an error.

    Example:
        data: {values: [{x: 1, y: 1, m: a}, {x: 2, y: 2, m: b}]}
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: m
          styles:
            a: {color: "#d62728"}
            b: {color: "#2ca02c"}
    """
    others = f" ({more} more pair{'s' if more > 1 else ''} alike)" if more else ""
    return (f"{first!r} and {second!r} differ only by colour, and under {' and '.join(conditions)} their "
            f"colours are ΔE00 {delta:.1f} apart (under 10): such a reader cannot tell them apart{others}")


def colors_merge_for_deficiency_hint() -> str:
    return ("use a colour-blind-safe palette (scale: {scheme: okabe-ito} on a colour channel; also tol-bright, "
            "tol-muted, tol-vibrant; in a marker map, their colours), or give them different shapes or dashes")


@code("W771")
def colors_merge_in_grey(first: str, second: str, delta: float, more: int = 0) -> str:
    """Two categories that print as the same grey.

    The two categories are drawn alike (same shape, dash and fill) but for their colour, and their
    colours have nearly the same luminance: printed in greyscale (each colour as the grey of its CIE
    luminance) they come closer than a CIEDE2000 difference of 10. A palette cannot fix this for
    many categories (Okabe-Ito's orange and sky blue print alike); shapes and dashes can. The
    closest pair is named, and how many other pairs merge. `--strict` makes this an error.

    Example:
        data: {values: [{x: 1, y: 1, m: a}, {x: 2, y: 2, m: b}]}
        mark: point
        encoding: {x: x, y: y}
        markers:
          field: m
          styles:
            a: {color: "#1f77b4"}
            b: {color: "#d62728"}
    """
    others = f" ({more} more pair{'s' if more > 1 else ''} alike)" if more else ""
    return (f"{first!r} and {second!r} differ only by colour, and printed in greyscale their greys are "
            f"ΔE00 {delta:.1f} apart (under 10): the print cannot tell them apart{others}")


def colors_merge_in_grey_hint() -> str:
    return ("give them different shapes (markers) or dashes (lines), or colours of clearly different "
            "lightness")


# ------------------------------------------------------------------ math in labels (infra/mathtext.py)

@code("E725")
def math_unknown_command(command: str) -> str:
    """A LaTeX command that math in a label does not support.

    Text between `$` signs is math, written as Unicode text: Greek letters, common operators and
    relations, `\\frac`, `\\sqrt`, `\\mathrm`, `\\text`, superscripts and subscripts (the full list
    is in docs/reference.md, "Math in labels"). Other commands (`\\mathbf`, `\\begin`, ...) have no
    plain-text form. Write `\\$` for a literal dollar sign in a text with two of them.

    Example:
        data: {values: [{x: 1, y: 2}]}
        mark: point
        title: '$\\mathbf{x}$ against y'
        encoding: {x: x, y: y}
    """
    return f"math text cannot write {command}: it has no Unicode text form"


# Commands for letter styles that plain text does not have.
LETTER_STYLES = ("mathbf", "boldsymbol", "bm", "mathcal", "mathfrak", "mathscr", "mathtt")


def math_unknown_command_hint(suggestion: str | None, letters: str | None = None, command: str = "") -> str:
    if letters is not None:
        return f"\\mathbb takes one of {', '.join(letters)}"
    if command.lstrip("\\") in LETTER_STYLES:
        return "text labels have no bold, calligraphic or typewriter letters: write the letter plain ($x$)"
    found = f"{suggestion} " if suggestion else ""
    return (f"{found}math in labels takes Greek letters, common symbols, \\frac, \\sqrt, \\mathrm and \\text "
            "(docs/reference.md, \"Math in labels\"); write \\$ for a literal dollar sign")


@code("E726")
def math_no_script_form(char: str, kind: str) -> str:
    """A superscript or subscript character that Unicode has no form for.

    Math in labels writes `x^2` and `x_i` with Unicode's superscript and subscript characters,
    which exist for the digits, `+ - = ( )`, most Latin letters and a few Greek ones, but not for
    every letter (no superscript `q`, no subscript `b`, `c`, `d`, `f`, `g`, `q`, `w`, `y`, `z` or
    capital), nor for punctuation.

    Example:
        data: {values: [{x: 1, y: 2}]}
        mark: point
        title: "$x_{b}$ against y"
        encoding: {x: x, y: y}
    """
    return f"Unicode has no {kind} form of {char!r}"


def math_no_script_form_hint(available: str) -> str:
    shown = " ".join(char for char in available if char.isalnum() or char in "+−=()")
    return f"write it on the line instead ($x(b)$ rather than $x_b$); these have a script form: {shown}"


@code("E727")
def math_unbalanced(what: str) -> str:
    """Math with unbalanced braces or a missing argument.

    In math text braces group (`10^{-3}`), so every `{` needs its `}`; `^`, `_`, `\\frac` (two) and
    `\\sqrt` need their arguments. Trend labels and annotations are format templates: there a
    brace is written doubled (`$10^{{-3}}$`).

    Example:
        data: {values: [{x: 1, y: 2}]}
        mark: point
        title: "$10^{-3$ against y"
        encoding: {x: x, y: y}
    """
    return f"math text is incomplete: {what}"


def math_unbalanced_hint() -> str:
    return "close every '{' with '}', and give ^, _, \\frac{a}{b} and \\sqrt{x} their arguments"


@code("E728")
def math_nested_script() -> str:
    """A superscript or subscript inside another one.

    Unicode has one level of superscripts and subscripts: `e^{x^2}` or `x_{i_j}` cannot be written
    as text.

    Example:
        data: {values: [{x: 1, y: 2}]}
        mark: point
        title: "$e^{x^2}$ against y"
        encoding: {x: x, y: y}
    """
    return "math text cannot write a superscript or subscript inside another one"


def math_nested_script_hint() -> str:
    return "write the inner script on the line, e.g. e^{x^2} as exp(x^2): $\\exp(x^2)$"
