#!/usr/bin/env python3
"""Write chartc's font (compiler/infra/fonts/) from DejaVu Sans 2.37, and its width table.

chartc draws every paper figure (`preset:`) in one family that has every glyph
it writes (10⁻³, ×, −, R², Greek, sub- and superscripts): DejaVu Sans, cut
to the Unicode blocks below (a sixth of its size) and renamed "chartc Sans"
so that the renderer never mixes it up with another DejaVu the machine has
(a different version would give other bytes). Its licence (Bitstream Vera's,
DejaVu's changes in the public domain) allows both as long as the name has
neither "Bitstream" nor "Vera"; it ships beside the fonts.

The widths the translator measures text with (`stages/translate/text.py`)
are the font's own advance widths, written to ``widths.json``; a test
checks the files against this script.

    python scripts/build_fonts.py [--source /usr/share/fonts/truetype/dejavu]   # Debian's fonts-dejavu-core
    python scripts/build_fonts.py --check
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

FONTS = Path(__file__).resolve().parent.parent / "compiler" / "infra" / "fonts"
SOURCE = Path("/usr/share/fonts/truetype/dejavu")
FAMILY = "chartc Sans"
# source file -> (style, file written)
STYLES = {"DejaVuSans.ttf": ("Regular", "chartcSans-Regular.ttf"),
          "DejaVuSans-Bold.ttf": ("Bold", "chartcSans-Bold.ttf")}
# Latin (ASCII, Latin-1, Latin Extended-A), Greek, phonetic super/subscripts (ᵀ), general punctuation,
# super- and subscripts, currency, letterlike symbols, arrows, mathematical operators, geometric shapes, U+FFFD.
RANGES = ((0x20, 0x7E), (0xA0, 0x17F), (0x370, 0x3FF), (0x1D00, 0x1DBF), (0x2000, 0x206F), (0x2070, 0x209F),
          (0x20A0, 0x20CF), (0x2100, 0x214F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x25A0, 0x25FF),
          (0xFFFD, 0xFFFD))


def build(source: Path) -> dict[str, bytes]:
    """File name -> bytes of every file this script writes."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    files: dict[str, bytes] = {}
    widths: dict[str, dict] = {}
    unicodes = [code for low, high in RANGES for code in range(low, high + 1)]
    for name, (style, target) in STYLES.items():
        font = TTFont(source / name, recalcTimestamp=False)  # the source's dates: the same bytes every run
        options = subset.Options()
        options.hinting = False  # the renderer draws outlines unhinted; a third of the size
        options.name_IDs = ["*"]
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=unicodes)
        subsetter.subset(font)
        _rename(font, style)
        out = io.BytesIO()
        font.save(out)
        files[target] = out.getvalue()
        scale = 1000 / font["head"].unitsPerEm
        metrics = font["hmtx"].metrics
        widths[style] = {chr(code): round(metrics[glyph][0] * scale, 2)
                         for code, glyph in sorted(font.getBestCmap().items())}
    files["widths.json"] = (json.dumps({"family": FAMILY, "per": 1000, "widths": widths}, ensure_ascii=False,
                                       sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")
    return files


def _rename(font, style: str) -> None:
    postscript = FAMILY.replace(" ", "") + "-" + style
    names = {1: FAMILY, 2: style, 3: f"{postscript};chartc", 4: f"{FAMILY} {style}" if style != "Regular" else FAMILY,
             6: postscript, 16: FAMILY, 17: style}
    table = font["name"]
    for record in list(table.names):
        if record.nameID in names:
            table.setName(names[record.nameID], record.nameID, record.platformID, record.platEncID, record.langID)
    for name_id in (16, 17):
        if not table.getName(name_id, 3, 1, 0x409):
            table.setName(names[name_id], name_id, 3, 1, 0x409)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE, help="the folder with DejaVuSans.ttf (2.37)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a file would change")
    args = parser.parse_args(argv)
    stale = []
    for name, content in build(args.source).items():
        path = FONTS / name
        if path.exists() and path.read_bytes() == content:
            continue
        stale.append(name)
        if not args.check:
            path.write_bytes(content)
    if stale and args.check:
        print(f"stale in {FONTS}: {', '.join(stale)}; run python scripts/build_fonts.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
