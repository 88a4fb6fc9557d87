"""Math in labels (infra/mathtext.py, translate/mathtext.py): `$R^2$` drawn as R², and the math it refuses.

Expected text is written as Unicode code points, independently of the tables
the converter reads; the drawn text is read from the SVG the renderer writes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from chartc import errors as msg
from chartc.errors import SpecError
from chartc.infra.mathtext import MathProblem, render_math
from chartc.pipeline import export_bytes

from conftest import compile_text

CONVERTED = [
    ("$R^2$", "R\u00b2"),
    ("$\\alpha$", "\u03b1"),
    ("$10^{-3}$", "10\u207b\u00b3"),
    ("$x_i$", "x\u1d62"),
    ("$a \\times b$", "a \u00d7 b"),
    ("$\\mu \\pm \\sigma$", "\u03bc \u00b1 \u03c3"),
    ("$\\eta \\leq 10^{-4}$", "\u03b7 \u2264 10\u207b\u2074"),
    ("$x \\geq 0$", "x \u2265 0"),
    ("$\\infty$", "\u221e"),
    ("$\\frac{1}{2}$", "1/2"),
    ("$\\frac{a+b}{2}$", "(a+b)/2"),
    ("$x_{max}$", "x\u2098\u2090\u2093"),
    ("$W^T$", "W\u1d40"),
    ("$90^\\circ$", "90\u00b0"),
    ("$\\sqrt{2}$", "\u221a2"),
    ("$\\mathrm{d}x$", "dx"),
    ("loss ($\\log_{10}$)", "loss (log\u2081\u2080)"),
    ("$\\Delta t$ in s", "\u0394 t in s"),
    ("Cost ($)", "Cost ($)"),            # one `$`: no math
    ("\\$5 for $n$ runs", "$5 for n runs"),  # an escaped `$` is a dollar
    ("no math", "no math"),
]


@pytest.mark.parametrize("text,expected", CONVERTED)
def test_math_is_written_as_unicode(text, expected):
    assert render_math(text) == expected


REFUSED = [
    ("$\\mathbf{x}$", msg.math_unknown_command("\\mathbf")),
    ("$\\alpah$", msg.math_unknown_command("\\alpah")),
    ("$x^q$", msg.math_no_script_form("q", "superscript")),
    ("$x_b$", msg.math_no_script_form("b", "subscript")),
    ("$10^{-3$", msg.math_unbalanced("a '{' is never closed")),
    ("$x}$", msg.math_unbalanced("a '}' closes nothing")),
    ("$x^$", msg.math_unbalanced("'^' has no argument")),
    ("$\\frac{1}$", msg.math_unbalanced("'\\\\frac' has no argument")),
    ("$e^{x^2}$", msg.math_nested_script()),
]


@pytest.mark.parametrize("text,message", REFUSED)
def test_math_without_a_unicode_form_is_refused_with_its_code(text, message):
    with pytest.raises(MathProblem) as refused:
        render_math(text)
    assert refused.value.message == message and refused.value.message.code == message.code


def test_an_unknown_command_hint_suggests_the_closest():
    with pytest.raises(MathProblem) as refused:
        render_math("$\\alpah$")
    assert refused.value.hint.startswith(msg.did_you_mean("alpah", ["alpha"]))


CHART = """
    title: '$R^2$ of the fits, $\\alpha = 0.05$'
    data:
      values: [{x: 1, y: 2, m: a}, {x: 2, y: 3, m: b}, {x: 3, y: 5, m: a}, {x: 4, y: 6, m: b}]
    layers:
      - mark: point
        encoding:
          x: {field: x, title: '$x_i$ ($\\mu$m)'}
          y: {field: y, axis: {title: '$\\sigma \\times 10^{-3}$'}}
        markers:
          field: m
          styles:
            a: {shape: circle, label: '$\\beta \\leq 1$'}
            b: {shape: square, label: '$\\lambda_{max}$'}
      - trend:
          label: 'fit $R^2$ = {r2:.2f}'
          annotate: {position: top-left, text: '$n$ = {n}'}
        encoding: {x: x, y: y}
"""


def drawn_text(svg: bytes) -> list[str]:
    return ["".join(element.itertext()) for element in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]


def test_titles_axes_legend_labels_trend_labels_and_annotations_are_drawn_as_unicode(tmp_path):
    compiled = compile_text(tmp_path, CHART)
    texts = drawn_text(export_bytes(compiled, "svg"))
    r2 = np.corrcoef([1, 2, 3, 4], [2, 3, 5, 6])[0, 1] ** 2  # the fit's R², independently
    for expected in ("R\u00b2 of the fits, \u03b1 = 0.05", "x\u1d62 (\u03bcm)", "\u03c3 \u00d7 10\u207b\u00b3",
                     "\u03b2 \u2264 1", "\u03bb\u2098\u2090\u2093", f"fit R\u00b2 = {r2:.2f}", "n = 4"):
        assert expected in texts
    assert not any("$" in text or "\\" in text for text in texts)
    assert export_bytes(compile_text(tmp_path, CHART), "svg") == export_bytes(compiled, "svg")


@pytest.mark.parametrize("where,text,line,column", [
    ("title", "'$\\mathbf{x}$'", 1, 8),
    ("axis", "'$x^q$'", 7, 28),
])
def test_refused_math_is_a_positioned_error_at_its_text(tmp_path, where, text, line, column):
    spec = CHART.replace("'$R^2$ of the fits, $\\alpha = 0.05$'", text) if where == "title" else \
        CHART.replace("'$x_i$ ($\\mu$m)'", text)
    with pytest.raises(SpecError) as refused:
        compile_text(tmp_path, spec)
    [error] = refused.value.errors
    assert error.code in ("E725", "E726")
    assert error.path == (("title",) if where == "title" else ("layers", 0, "encoding", "x", "title"))
    assert (error.location.line, error.location.column) == (line + 1, column)
    assert re.search(r"math|Unicode", error.message) and error.hint
