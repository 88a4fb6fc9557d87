"""Same chart, same PDF bytes: vl-convert's PDF written again by qpdf (pikepdf), with provenance.

vl-convert (svg2pdf) numbers a PDF's objects and orders the entries of its
resource dictionaries in whatever order a hash map gives, which changes
from one process to the next: the same chart came out as three different
files in five runs. Everything else (the content streams, the font subsets
and their tags) is already the same. So qpdf reads the file and writes it
again, and equal documents come out as equal bytes whatever layout they
came in:

- objects are renumbered in the order a walk from the trailer meets them
  (objects nothing refers to are left out), dictionary keys are written in
  sorted order, and a fresh cross-reference table ends the file, with no
  object streams and no incremental updates;
- stream data is copied byte for byte (nothing is decompressed or
  compressed again), and the file identifier (``/ID``) is a hash of the
  content, never of the time;
- the document information gets chartc's provenance, as in the other
  formats, under the key ``/chartc`` (canonical JSON as a PDF text string).

A file qpdf cannot read without repairing it, or reads with warnings, is an
error (`UnexpectedPdf`): chartc never writes a PDF it could not make the same
way every time. pikepdf is imported only when a PDF is made (~0.1 s).
"""

from __future__ import annotations

import io
import json

from .. import errors as msg

PROVENANCE_KEY = "/chartc"


class UnexpectedPdf(Exception):
    """The renderer gave a PDF that qpdf cannot read cleanly; `str()` says why, in one line."""


def canonical_pdf(pdf: bytes, provenance: dict | None) -> bytes:
    """The PDF written canonically by qpdf, with `provenance` in its document information.

    Args:
        pdf: the PDF vl-convert made.
        provenance: the chart's provenance block (`infra.provenance.provenance`), or None for none.

    Returns:
        The canonical file: the same bytes for the same document, in any process.

    Raises:
        UnexpectedPdf: the input is not a PDF qpdf reads without repairs or warnings.
    """
    import pikepdf  # ~0.1 s: only when a PDF is made, never by `chartc --version` or `validate`

    out = io.BytesIO()
    try:
        with pikepdf.open(io.BytesIO(pdf), attempt_recovery=False, inherit_page_attributes=False) as document:
            # qpdf keeps the first half of an /ID the input had: drop it, so the ID is the content's hash only.
            if "/ID" in document.trailer:
                del document.trailer["/ID"]
            if provenance is not None:
                document.docinfo[PROVENANCE_KEY] = _text(provenance)
            elif "/Info" in document.trailer and PROVENANCE_KEY in document.trailer.Info:  # docinfo would add one
                del document.trailer.Info[PROVENANCE_KEY]
            document.save(out, deterministic_id=True, object_stream_mode=pikepdf.ObjectStreamMode.disable,
                          stream_decode_level=pikepdf.StreamDecodeLevel.none, compress_streams=False,
                          recompress_flate=False, normalize_content=False, fix_metadata_version=False,
                          preserve_pdfa=False, linearize=False, qdf=False, encryption=False)
            warnings = document.get_warnings()
    except pikepdf.PdfError as error:
        raise UnexpectedPdf(msg.pdf_not_reproducible(_first_line(error))) from None
    if warnings:
        raise UnexpectedPdf(msg.pdf_not_reproducible(_first_line(warnings[0])))
    return out.getvalue()


def pdf_provenance(pdf: bytes) -> dict | None:
    """The provenance block `canonical_pdf` wrote into a PDF.

    Args:
        pdf: a PDF file's bytes.

    Returns:
        The block, or None when the PDF has none.

    Raises:
        UnexpectedPdf: the input is not a PDF qpdf can read.
    """
    import pikepdf  # as in canonical_pdf

    try:
        with pikepdf.open(io.BytesIO(pdf), attempt_recovery=False) as document:
            text = document.docinfo.get(PROVENANCE_KEY)
            return None if text is None else json.loads(str(text))
    except pikepdf.PdfError as error:
        raise UnexpectedPdf(msg.pdf_not_reproducible(_first_line(error))) from None


def _text(value: dict) -> str:
    """Canonical JSON (qpdf writes it as PDFDocEncoding, or UTF-16 when it must)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _first_line(reason: object) -> str:
    lines = str(reason).strip().splitlines()
    return (lines[0] if lines else type(reason).__name__)[:200]
