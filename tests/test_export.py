"""Stage 6: the files people open, checked by format, not by pixels.

One hostile chart (markup in its title and data) is compiled and rendered
once per module; every test reads those bytes.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from chartc import compile_spec, export_chart
from chartc import errors as msg
from chartc.errors import Location, SpecError
from chartc.infra.files import write_all, write_atomic
from chartc.infra.jsonout import _orjson_text, canonical_json, html_safe_json
from chartc.render.export import export_format, normalize_svg_ids, render
from conftest import label

SCRIPT = "</script><script>alert(1)</script>"
SPEC = f"""\
title: '{SCRIPT}'
data:
  values:
    - {{label: '</script><script>alert(2)</script>', n: 1}}
    - {{label: '<!-- & \u2028', n: 2}}
mark: bar
encoding:
  x: label
  y: n
  tooltip: [label]
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = tmp_path_factory.mktemp("export") / "hostile.yaml"
    path.write_text(SPEC, encoding="utf-8")
    return compile_spec(path)


@pytest.fixture(scope="module")
def outputs(compiled):
    return {fmt: render(compiled.vega_lite, fmt) for fmt in ("vl.json", "svg", "png", "pdf", "html")}


# ------------------------------------------------------------------ formats

def test_vega_lite_json_is_canonical(compiled, outputs):
    text = outputs["vl.json"].decode("utf-8")
    assert text == canonical_json(compiled.vega_lite)
    assert json.loads(text)["title"]["text"] == SCRIPT


def standard_canonical(value) -> str:
    """The canonical form by the standard library alone (its pure-Python indented encoder), NaN as null."""
    def finite(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: finite(x) for k, x in v.items()}
        return [finite(x) for x in v] if isinstance(v, (list, tuple)) else v
    return json.dumps(finite(value), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


@pytest.mark.parametrize("value", [
    {"b": [1e-05, 2.5e-06, 1e-09, 1e-10, 0.0001, 1e16, 1e22, -0.0, 5e-324, 1.7976931348623157e308], "a": {}},
    {"rows": [{"x": 0.1 * i, "y": i ** 3, "t": f"r{i}\u2028é\x01<"} for i in range(200)], "n": float("nan")},
    {"big": 2 ** 70, "inf": [float("inf"), float("-inf")], "t": (1, 2.5, None, True)},
    {"text": "0.00001 and 1e-7 in a string", "z": [[], {}]},
], ids=["small-floats", "rows", "past-64-bits", "lookalike-text"])
def test_canonical_json_is_the_standard_encoders_text_to_the_byte(value):
    """canonical_json writes with orjson where it can; the bytes are always those of json.dumps."""
    assert canonical_json(value) == standard_canonical(value)


def test_canonical_json_rewrites_orjsons_small_numbers_rather_than_encoding_in_python():
    """Numbers of exponent -5 to -9 (orjson's 0.00001 and 1e-6 are Python's 1e-05 and 1e-06) are rewritten in
    orjson's text, under keys that look like JSON themselves; the text is still json.dumps's to the byte."""
    rng = np.random.default_rng(5)
    numbers = (rng.uniform(-1, 1, 20_000) * 10.0 ** rng.integers(-12, 3, 20_000)).tolist()
    value = {"rows": [{"x": v, 'k": 1, "\\"': -v, "n": i} for i, v in enumerate(numbers)],
             "tiny": [1e-05, -2.5e-06, 1e-09, 9.99e-10, 1e-10, 0.0001, 5e-324]}
    assert _orjson_text(value) == standard_canonical(value)
    for lookalike in ({**value, "text": "a 1e-7 in a string"}, {**value, 'k": 0.00001': 1}):
        assert _orjson_text(lookalike) is None and canonical_json(lookalike) == standard_canonical(lookalike)


def test_svg_parses_and_keeps_the_title_as_text(outputs):
    root = ET.fromstring(outputs["svg"])
    assert root.tag.endswith("svg")
    texts = ["".join(node.itertext()) for node in root.iter() if node.tag.endswith("text")]
    assert SCRIPT in texts
    assert not [node for node in root.iter() if node.tag.endswith("script")]


def test_png_magic_bytes(outputs):
    assert outputs["png"].startswith(b"\x89PNG\r\n\x1a\n")


def test_pdf_magic_bytes(outputs):
    assert outputs["pdf"].startswith(b"%PDF-")


def test_svg_ids_do_not_depend_on_what_was_rendered_before(compiled, outputs):
    assert render(compiled.vega_lite, "svg") == outputs["svg"]
    assert normalize_svg_ids('<clipPath id="clip7"/><g clip-path="url(#clip7)"/><clipPath id="clip9"/>') == \
        '<clipPath id="clip1"/><g clip-path="url(#clip1)"/><clipPath id="clip2"/>'


# ------------------------------------------------------------------ html

def test_html_is_self_contained(outputs):
    page = outputs["html"].decode("utf-8")
    assert "vegaEmbed(" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.IGNORECASE)
    assert not re.search(r"<script[^>]*\ssrc\s*=", page, re.IGNORECASE)
    assert "<link" not in page.lower() and "@import" not in page
    assert len(page) > 500_000  # Vega, Vega-Lite and vega-embed are inlined


def test_html_markup_in_title_and_data_stays_inert(outputs):
    page = outputs["html"].decode("utf-8")
    lowered = page.lower()
    # Only the page's own two script elements open and close.
    assert lowered.count("<script") == 2
    assert lowered.count("</script") == 2
    assert "<!--" not in page
    assert "alert(1)" in page and "alert(2)" in page  # present, but only as escaped text
    assert "<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>" in page


def test_html_embeds_exactly_the_compiled_spec(compiled, outputs):
    page = outputs["html"].decode("utf-8")
    start = page.index('vegaEmbed("#chart", ') + len('vegaEmbed("#chart", ')
    end = page.index(', {"actions"', start)
    assert json.loads(page[start:end]) == compiled.vega_lite


def test_html_safe_json():
    text = html_safe_json({"t": "</script>&<!--\u2028\u2029"})
    assert not set("<>&\u2028\u2029") & set(text)
    assert json.loads(text) == {"t": "</script>&<!--\u2028\u2029"}


# ------------------------------------------------------------------ files

@pytest.mark.parametrize("name, fmt", [
    ("a.vl.json", "vl.json"), ("a.json", "vl.json"), ("a.svg", "svg"), ("A.PNG", "png"),
    ("a.pdf", "pdf"), ("a.html", "html"), ("a.txt", None), ("a", None), ("a.svg.bak", None),
])
def test_export_format(name, fmt):
    assert export_format(name) == fmt


def test_export_chart_writes_the_format_its_suffix_names(compiled, outputs, tmp_path):
    for fmt, suffix in (("svg", ".svg"), ("vl.json", ".vl.json")):
        out = export_chart(compiled, tmp_path / f"sub/chart{suffix}")
        assert out.read_bytes() == outputs[fmt]
    with pytest.raises(ValueError):
        export_chart(compiled, tmp_path / "chart.txt")


@pytest.mark.parametrize("suffix", [".svg", ".png", ".pdf"])
def test_export_chart_raises_a_positioned_spec_error_when_the_renderer_refuses(tmp_path, suffix):
    # Vega-Lite compiles this label expression; Vega refuses the bare name `x` only when drawing
    # (as tests/test_cli.py::test_a_chart_the_renderer_refuses_is_a_diagnostic_not_a_stack).
    spec = tmp_path / "bare.yaml"
    spec.write_text('data: {values: [{a: 1, b: 2}]}\nmark: point\nencoding: {x: a, y: b}\n'
                    'vega_lite: {encoding: {x: {axis: {labelExpr: "x"}}}}\n')
    chart = compile_spec(spec)
    out = tmp_path / f"bare{suffix}"
    with pytest.raises(SpecError) as raised:
        export_chart(chart, out)
    assert type(raised.value) is SpecError  # not the renderer's own exception, which the API does not name
    reason = 'Unrecognized signal name: "x"'
    assert raised.value.diagnostic() == (
        f"{spec}:4:35: {label(msg.render_refused(reason))}: vega_lite.encoding.x.axis.labelExpr: "
        f"{msg.render_refused(reason)} "
        f"({msg.render_refused_hint()})")
    assert (raised.value.location, raised.value.path, raised.value.stage) == (
        Location(str(spec), 4, 35), ("vega_lite", "encoding", "x", "axis", "labelExpr"), "render")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.yaml"]  # no file, no temporary one


def test_write_atomic_replaces_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "out.svg"
    write_atomic(target, b"old")
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.svg"]


def test_write_atomic_never_takes_a_users_file_for_a_temporary_one(tmp_path):
    users = tmp_path / ".out.svg.abcd1234.tmp"  # how temporary files used to be named
    users.write_bytes(b"mine")
    write_atomic(tmp_path / "out.svg", b"new")
    assert users.read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".out.svg.abcd1234.tmp", "out.svg"]


def test_write_all_writes_every_file_or_none(tmp_path):
    import errno

    chart, folder = tmp_path / "chart.svg", tmp_path / "fits"
    chart.write_bytes(b"old")
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as raised:  # `--fits DIR`: refused before any rename
        write_all({chart: b"new", folder: b"{}"})
    assert (raised.value.errno, raised.value.filename) == (errno.EISDIR, str(folder))
    assert chart.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.svg", "fits"]


def test_write_all_stages_everything_before_renaming(tmp_path, monkeypatch):
    import errno

    import chartc.infra.files as files

    create, calls = files._create, []

    def full_disk_on_the_second(temp, content):
        calls.append(temp)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(temp))
        return create(temp, content)
    monkeypatch.setattr(files, "_create", full_disk_on_the_second)
    first, second = tmp_path / "a.svg", tmp_path / "sub" / "b.json"
    first.write_bytes(b"old")
    with pytest.raises(OSError) as raised:
        write_all({first: b"new", second: b"{}"})
    assert (raised.value.errno, raised.value.filename) == (errno.ENOSPC, str(second))  # the target, not the temp
    assert first.read_bytes() == b"old" and not second.exists()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.svg", "sub"]


def test_html_scripts_are_valid_javascript(outputs, tmp_path):
    """The inlined bundle and the embed call parse as JavaScript (escaping broke nothing)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    page = outputs["html"].decode("utf-8")
    scripts = re.findall(r"<script>(.*?)</script>", page, re.DOTALL)
    assert len(scripts) == 2
    for index, script in enumerate(scripts):
        path = tmp_path / f"script{index}.js"
        path.write_text(script, encoding="utf-8")
        result = subprocess.run([node, "--check", str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr[-2000:]


# ---------------------------------------------------------------- many marks: the SVG the PNG is rasterised from

def _vega_lite_scatter(n: int, filled: bool) -> dict:
    rows = [{"x": (i * 7919) % 1000 / 10, "y": (i * 104729) % 997 / 10} for i in range(n)]
    return {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "data": {"values": rows},
            "mark": {"type": "point", "filled": filled, "opacity": 0.7},
            "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}}


def _pixels(png: bytes):
    import io

    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).astype(int)


@pytest.mark.parametrize("filled", [False, True], ids=["stroked", "filled"])
def test_many_marks_rasterise_as_before_within_8_levels(filled):
    """Above RASTER_REWRITE_MARKS, each mark's opacity moves onto its one paint: the PNG keeps its look.

    The reference is the previous path: the SVG export rasterised as it is, at the same scale.
    """
    from chartc.render import export

    vl = _vega_lite_scatter(export.RASTER_REWRITE_MARKS, filled)
    svg = render(vl, "svg")
    text = svg.decode()
    paint = "fill" if filled else "stroke"
    rewritten = export.svg_for_raster(text)
    assert rewritten.count(f' {paint}-opacity="0.7"') == export.RASTER_REWRITE_MARKS
    assert rewritten.replace(f' {paint}-opacity="0.7"', ' opacity="0.7"') == text  # nothing else changed

    before = _pixels(export.engine().svg_to_png(text, scale=export.PNG_SCALE))
    after = _pixels(export.png_from_svg(svg, vl))
    assert after.shape == before.shape
    difference = abs(after - before)
    assert difference.max() <= 8  # the 8-bit layer's rounding, nothing a reader sees
    assert difference.mean() < 0.5


def test_few_marks_rasterise_from_the_svg_unchanged():
    from chartc.render import export

    text = render(_vega_lite_scatter(export.RASTER_REWRITE_MARKS // 2, False), "svg").decode()
    assert export.svg_for_raster(text) is text


@pytest.mark.parametrize(("path", "expected"), [
    ('<path d="M0,0" stroke="#000" stroke-width="2" opacity="0.5"/>',
     '<path d="M0,0" stroke="#000" stroke-width="2" stroke-opacity="0.5"/>'),
    ('<path d="M0,0" fill="#000" stroke-width="2" opacity="0.5"/>',
     '<path d="M0,0" fill="#000" stroke-width="2" fill-opacity="0.5"/>'),
    # both paints overlap inside the element's layer; a paint's own opacity is kept; nothing painted
    ('<path d="M0,0" fill="#000" stroke="#000" opacity="0.5"/>', None),
    ('<path d="M0,0" stroke="#000" stroke-opacity="0.4" opacity="0.5"/>', None),
    ('<path d="M0,0" fill="none" stroke="none" opacity="0.5"/>', None),
    ('<path d="M0,0" fill="#000" stroke="none" opacity="0.5"/>',
     '<path d="M0,0" fill="#000" stroke="none" fill-opacity="0.5"/>'),
], ids=["stroke", "fill", "both", "own-opacity", "none", "stroke-none"])
def test_svg_for_raster_moves_opacity_onto_the_one_paint(monkeypatch, path, expected):
    from chartc.render import export

    monkeypatch.setattr(export, "RASTER_REWRITE_MARKS", 1)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><g fill="none">{path}</g></svg>'
    assert export.svg_for_raster(svg) == svg.replace(path, expected or path)
    unfilled_root_missing = f'<svg xmlns="http://www.w3.org/2000/svg"><g>{path}</g></svg>'
    assert export.svg_for_raster(unfilled_root_missing) == unfilled_root_missing
