"""PDF exports: the same bytes from every process, readable by an independent reader, with provenance."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pikepdf
import pypdf
import pytest

from chartc import errors as msg
from chartc.render.export import render
from chartc.infra.provenance import provenance
from chartc.render.pdf import UnexpectedPdf, canonical_pdf, pdf_provenance
from chartc.pipeline import compile_spec

ROOT = Path(__file__).resolve().parent.parent
SPECS = ["specs/seed_pretraining.yaml", "specs/seed_flops.yaml"]

# vl-convert's own PDF of a spec, made in a fresh process (its object order depends on the process).
RAW = ("import sys; import vl_convert; from chartc.pipeline import compile_spec; "
       "sys.stdout.buffer.write(vl_convert.vegalite_to_pdf(compile_spec(sys.argv[1]).vega_lite, allowed_base_urls=[]))")


def raw_pdf(spec: str, seed: int = 0) -> bytes:
    done = subprocess.run([sys.executable, "-c", RAW, spec], cwd=ROOT, capture_output=True, check=True,
                          env={"TZ": "UTC", "PATH": "", "PYTHONHASHSEED": str(seed)})
    return done.stdout


def with_fresh_xref(pdf: bytes) -> bytes:
    """A classic PDF (one xref table, no object streams) with its cross-reference table made again."""
    body = pdf[:pdf.rindex(b"xref\n")]
    offsets = {int(m.group(1)): m.start() for m in re.finditer(rb"(?m)^(\d+) 0 obj\b", body)}
    size = max(offsets) + 1
    table = b"".join(b"%010d 00000 n \n" % offsets[n] if n in offsets else b"0000000000 65535 f \n"
                     for n in range(1, size))
    trailer = re.search(rb"trailer\s*(<<.*?>>)\s*startxref", pdf, re.S).group(1)
    return (body + b"xref\n0 %d\n0000000000 65535 f \n" % size + table
            + b"trailer\n" + trailer + b"\nstartxref\n%d\n%%%%EOF\n" % len(body))


def incremental_update(pdf: bytes) -> bytes:
    """The PDF with an incremental update appended that states its /Info object again, unchanged."""
    trailer = re.search(rb"trailer\s*<<(.*?)>>\s*startxref\s*(\d+)", pdf, re.S)
    info = int(re.search(rb"/Info (\d+) 0 R", trailer.group(1)).group(1))
    size = int(re.search(rb"/Size (\d+)", trailer.group(1)).group(1))
    head = re.search(rb"(?ms)^%d 0 obj\b(.*?)endobj" % info, pdf).group(1)
    update = b"%d 0 obj%sendobj\n" % (info, head)
    at = len(pdf) + 1
    xref = at + len(update)
    root = re.search(rb"/Root \d+ 0 R", trailer.group(1)).group(0)
    return (pdf + b"\n" + update + b"xref\n%d 1\n%010d 00000 n \n" % (info, at)
            + b"trailer\n<< /Size %d %s /Info %d 0 R /Prev %s >>\nstartxref\n%d\n%%%%EOF\n"
            % (size, root, info, trailer.group(2), xref))


def with_object_streams(pdf: bytes) -> bytes:
    """The same objects packed into object streams (and a file /ID); streams left as they are, not compressed."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(pdf)) as document:
        document.save(out, object_stream_mode=pikepdf.ObjectStreamMode.generate, compress_streams=False)
    return out.getvalue()


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
    raws = [raw_pdf(spec, seed) for seed in range(3)]
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
    swapped = with_fresh_xref(swapped)
    assert swapped != pdf
    assert canonical_pdf(swapped, None) == canonical_pdf(pdf, None)


@pytest.mark.parametrize("layout", [with_object_streams, incremental_update])
def test_a_pdf_of_another_layout_gives_the_same_bytes(compiled, pdf, layout):
    """Object streams or an incremental update: the same document, so the same file (and its provenance)."""
    other = layout(pdf)
    assert other != pdf and pypdf.PdfReader(io.BytesIO(other), strict=True).pages
    block = provenance(compiled.vega_lite)
    assert canonical_pdf(other, block) == pdf
    assert pdf_provenance(other) == block


def test_a_pdf_without_provenance_has_none(pdf):
    assert pdf_provenance(canonical_pdf(pdf, None)) is None


@pytest.mark.parametrize("broken", [b"not a pdf", "truncated", "objects only"])
def test_a_file_that_is_not_a_clean_pdf_is_an_error_not_an_output(pdf, broken):
    """Never the input handed back as it came: it would not be the same bytes every time."""
    data = {"truncated": pdf[:len(pdf) // 2],
            "objects only": b"%PDF-1.5\n%\x80\x80\n1 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Length 3 >>\n"
                            b"stream\nabc\nendstream\nendobj\n"}.get(broken, broken)
    with pytest.raises(UnexpectedPdf) as raised:
        canonical_pdf(data, {"version": "x"})
    qpdf_said = re.escape(msg.pdf_not_reproducible("\0")).replace(re.escape("\0"), "[^\n]+")
    assert re.fullmatch(qpdf_said, str(raised.value))


class BrokenPdfEngine:
    """Stands in for vl-convert: a PDF cut in half, as a renderer bug might give."""

    def __init__(self, pdf: bytes):
        self.pdf = pdf

    def vegalite_to_pdf(self, vega_lite, **options):
        return self.pdf[:len(self.pdf) // 2]

    def __getattr__(self, name):  # every other call (the verify stage's) is vl-convert's own
        import vl_convert

        return getattr(vl_convert, name)


def test_compile_reports_an_unreadable_pdf_on_the_spec_and_writes_nothing(pdf, tmp_path, monkeypatch, capsys):
    from chartc.commands.cli import main
    from chartc.render import export

    monkeypatch.setattr(export, "engine_stand_in", lambda: BrokenPdfEngine(pdf))
    monkeypatch.setattr(export, "engine", lambda: BrokenPdfEngine(pdf))
    spec = str(ROOT / SPECS[0])
    assert main(["compile", spec, "-o", str(tmp_path / "chart.pdf")]) == 1
    qpdf_said = re.escape(msg.pdf_not_reproducible("\0")).replace(re.escape("\0"), "[^\n]+")
    label = re.escape(f"error[{msg.pdf_not_reproducible.code}]")
    assert re.fullmatch(f"{re.escape(spec)}:1:1: {label}: \\$: {qpdf_said}\n", capsys.readouterr().err)
    assert not (tmp_path / "chart.pdf").exists()
