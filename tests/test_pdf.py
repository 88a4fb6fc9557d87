"""PDF exports: the same bytes from every process, readable by an independent reader, with provenance."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pypdf
import pytest

from chartc.render.export import render
from chartc.infra.provenance import provenance
from chartc.render.pdf import canonical_pdf, pdf_provenance
from chartc.pipeline import compile_spec

ROOT = Path(__file__).resolve().parent.parent
SPECS = ["specs/seed_pretraining.yaml", "specs/seed_flops.yaml"]

# vl-convert's own PDF of a spec, made in a fresh process (its object order depends on the process).
RAW = ("import sys; import vl_convert; from chartc.pipeline import compile_spec; "
       "sys.stdout.buffer.write(vl_convert.vegalite_to_pdf(compile_spec(sys.argv[1]).vega_lite, allowed_base_urls=[]))")


def raw_pdf(spec: str) -> bytes:
    done = subprocess.run([sys.executable, "-c", RAW, spec], cwd=ROOT, capture_output=True, check=True,
                          env={"TZ": "UTC", "PATH": ""})
    return done.stdout


@pytest.fixture(scope="module", params=SPECS)
def compiled(request):
    return compile_spec(ROOT / request.param)


@pytest.fixture(scope="module")
def pdf(compiled):
    return render(compiled.vega_lite, "pdf")


def test_an_independent_reader_reads_the_chart_and_its_provenance(compiled, pdf):
    reader = pypdf.PdfReader(io.BytesIO(pdf), strict=True)
    assert len(reader.pages) == 1
    assert compiled.chart.title in reader.pages[0].extract_text()
    assert reader.metadata["/Producer"] == "svg2pdf"
    block = provenance(compiled.vega_lite)
    assert block and pdf_provenance(pdf) == block
    assert json.loads(reader.metadata["/chartc"]) == block


@pytest.mark.slow
def test_pdfs_made_in_different_processes_are_the_same_bytes(compiled, pdf):
    spec = str(Path(compiled.document.file).relative_to(ROOT))
    raws = [raw_pdf(spec) for _ in range(3)]
    block = provenance(compiled.vega_lite)
    assert {canonical_pdf(raw, block) for raw in raws} == {pdf}


def test_renumbered_objects_and_reordered_resources_give_the_same_pdf(pdf):
    """A deterministic stand-in for another process: swap two objects' numbers and the font entries."""
    fonts = re.search(rb"/Font <<\s*/\w+ (\d+) 0 R\s*/\w+ (\d+) 0 R", pdf)
    a, b = int(fonts.group(1)), int(fonts.group(2))
    swapped = re.sub(rb"\b(\d+)( 0 (?:R|obj))", lambda m: b"%d%s" % (
        {a: b, b: a}.get(int(m.group(1)), int(m.group(1))), m.group(2)), pdf)
    swapped = re.sub(rb"(/Font <<\s*)(/\w+ \d+ 0 R)(\s*)(/\w+ \d+ 0 R)",
                     lambda m: m.group(1) + m.group(4) + m.group(3) + m.group(2), swapped, count=1)
    assert swapped != pdf
    assert canonical_pdf(swapped, None) == canonical_pdf(pdf, None)


def test_a_pdf_of_another_structure_is_left_as_it_is():
    odd = b"%PDF-1.5\n%\x80\x80\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Length 3 >>\nstream\nabc\nendstream\nendobj\n"
    assert canonical_pdf(odd, {"version": "x"}) == odd
    assert canonical_pdf(b"not a pdf", None) == b"not a pdf"
    assert pdf_provenance(odd) is None
