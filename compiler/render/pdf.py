"""Same chart, same PDF bytes: vl-convert's PDF renumbered canonically, with provenance.

vl-convert (svg2pdf) numbers a PDF's objects and orders the entries of its
resource dictionaries in whatever order a hash map gives, which changes
from one process to the next: the same chart came out as three different
files in five runs. Everything else (the content streams, the font subsets
and their tags) is already the same. So the file is rewritten:

- the entries of every dictionary that only maps names to objects
  (``/Font << /fo1 2 0 R /fo0 1 0 R >>``) are sorted by name;
- objects are renumbered in the order a walk from the trailer meets them,
  and written in that order with a fresh cross-reference table;
- the document information gets chartc's provenance, as in the other
  formats, under the key ``/chartc`` (UTF-16 hex text).

The rewriting reads only the classic structure svg2pdf writes (``N 0 obj``
... ``endobj``, a ``xref`` table, no object streams). Anything else is left
as it came (still a valid PDF, without those guarantees): `canonical_pdf`
never makes a chart fail.
"""

from __future__ import annotations

import json
import re

STREAM = re.compile(rb"stream\r?\n")
REFERENCE = re.compile(rb"(\d+) 0 R\b")
LENGTH = re.compile(rb"/Length (\d+)\b")
# A dictionary of nothing but `/name N 0 R` entries: fonts, graphics states, colour spaces.
NAME_MAP = re.compile(rb"<<((?:\s*/[^\s/<>\[\]()]+\s+\d+ 0 R)+)(\s*)>>")
NAME_ENTRY = re.compile(rb"(\s*)(/[^\s/<>\[\]()]+\s+\d+ 0 R)")
TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref", re.S)
PROVENANCE_KEY = b"/chartc"


class UnexpectedPdf(ValueError):
    """A PDF whose structure is not the simple one svg2pdf writes."""


def canonical_pdf(pdf: bytes, provenance: dict | None) -> bytes:
    """The PDF with its objects in a canonical order and numbering, and `provenance` in its info.

    Returns the input unchanged when its structure is not the one expected.
    """
    try:
        return _rewrite(pdf, provenance)
    except UnexpectedPdf:
        return pdf


def pdf_provenance(pdf: bytes) -> dict | None:
    """The provenance block `canonical_pdf` wrote into a PDF, or None."""
    match = re.search(rb"/chartc <FEFF([0-9A-F]*)>", pdf)
    if match is None:
        return None
    return json.loads(bytes.fromhex(match.group(1).decode("ascii")).decode("utf-16-be"))


def _rewrite(pdf: bytes, provenance: dict | None) -> bytes:
    header_end = pdf.find(b"\n", pdf.find(b"\n") + 1) + 1  # "%PDF-1.7" and its binary-marker comment
    if not pdf.startswith(b"%PDF-") or header_end <= 0:
        raise UnexpectedPdf("no PDF header")
    objects = _objects(pdf)
    trailer = TRAILER.search(pdf)
    if trailer is None or b"/Prev" in trailer.group(1) or b"/ObjStm" in pdf:
        raise UnexpectedPdf("an incremental update, object streams or no trailer")
    roots = {key: int(number) for key, number in re.findall(rb"/(Root|Info) (\d+) 0 R", trailer.group(1))}
    if b"Root" not in roots:
        raise UnexpectedPdf("no /Root")
    if provenance is not None:
        info = roots.get(b"Info")
        if info is None or not objects[info][0].rstrip().endswith(b">>"):
            raise UnexpectedPdf("no /Info dictionary to extend")
        head, stream = objects[info]
        objects[info] = (head.rstrip()[:-2] + b"  " + PROVENANCE_KEY + b" " + _text(provenance) + b"\n>>", stream)
    order = _walk([roots[b"Root"]] + ([roots[b"Info"]] if b"Info" in roots else []), objects)
    number = {old: new for new, old in enumerate(order, start=1)}

    def renumber(head: bytes) -> bytes:
        return REFERENCE.sub(lambda m: b"%d 0 R" % number[int(m.group(1))], head)

    out = bytearray(pdf[:header_end])
    offsets = []
    for old in order:
        head, stream = objects[old]
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number[old] + renumber(head)
        if stream is not None:
            out += b"\nstream\n" + stream + b"\nendstream"
        out += b"\nendobj\n\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f\r\n" % (len(order) + 1)
    out += b"".join(b"%010d 00000 n\r\n" % offset for offset in offsets)
    entries = sorted(roots.items(), key=lambda item: item[0] != b"Root")  # /Root, then /Info
    names = b"".join(b"\n  /%s %d 0 R" % (key, number[old]) for key, old in entries)
    out += b"trailer\n<<\n  /Size %d%s\n>>\nstartxref\n%d\n%%%%EOF\n" % (len(order) + 1, names, xref)
    return bytes(out)


def _objects(pdf: bytes) -> dict[int, tuple[bytes, bytes | None]]:
    """Object number -> (its dictionary or value, with name maps sorted; its stream bytes or None)."""
    objects = {}
    position = 0
    while True:
        start = pdf.find(b" 0 obj", position)
        if start < 0:
            break
        line_start = pdf.rfind(b"\n", 0, start) + 1
        number_text = pdf[line_start:start]
        if not number_text.isdigit():
            raise UnexpectedPdf(f"unreadable object header at byte {line_start}")
        body_start = start + len(b" 0 obj")
        stream_at = pdf.find(b"stream", body_start)
        end_at = pdf.find(b"endobj", body_start)
        if end_at < 0:
            raise UnexpectedPdf("an object without endobj")
        stream = None
        head_end = end_at
        if 0 <= stream_at < end_at:
            head = pdf[body_start:stream_at]
            length = LENGTH.search(head)
            match = STREAM.match(pdf, stream_at)
            if length is None or match is None:
                raise UnexpectedPdf("a stream without a direct /Length")
            data_start = match.end()
            stream = pdf[data_start:data_start + int(length.group(1))]
            after = pdf.find(b"endstream", data_start + len(stream))
            end_at = pdf.find(b"endobj", after)
            if after < 0 or end_at < 0:
                raise UnexpectedPdf("a stream without endstream")
            head_end = stream_at
        head = pdf[body_start:head_end].strip()
        objects[int(number_text)] = (NAME_MAP.sub(_sorted_names, head), stream)
        position = end_at + len(b"endobj")
    if not objects:
        raise UnexpectedPdf("no objects")
    return objects


def _sorted_names(match: re.Match) -> bytes:
    """A name -> object dictionary with its entries sorted by name (each keeps its place's spacing)."""
    entries = NAME_ENTRY.findall(match.group(1))
    spaces = [space for space, _ in entries]
    ordered = sorted(entry for _, entry in entries)
    return b"<<" + b"".join(space + entry for space, entry in zip(spaces, ordered)) + match.group(2) + b">>"


def _walk(roots: list[int], objects: dict) -> list[int]:
    """Object numbers in the order a depth-first walk from the roots meets them (references in text order)."""
    seen: dict[int, None] = {}
    pending = list(reversed(roots))
    while pending:
        number = pending.pop()
        if number in seen:
            continue
        if number not in objects:
            raise UnexpectedPdf(f"a reference to missing object {number}")
        seen[number] = None
        references = [int(n) for n in REFERENCE.findall(objects[number][0])]
        pending.extend(reversed(references))
    return list(seen)


def _text(value: dict) -> bytes:
    """A PDF text string holding canonical JSON: UTF-16BE with a byte-order mark, as hex."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode("ascii") + b">"
