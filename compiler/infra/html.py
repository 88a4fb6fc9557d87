"""The one HTML page skeleton: the head every page chartc writes shares, and its escaping.

The standalone HTML export, the gallery's index and chart pages, the diff
report and `chartc serve`'s own pages are all written by `page`, so their
heads (charset, viewport, Content-Security-Policy, provenance tags, styles)
cannot drift apart, and what comes from a spec or its data reaches the head
only escaped: the title and every attribute here, inline script code through
`inline_script`. The body is the caller's, already escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence

# What would end a <script> element early or open an HTML comment inside it.
SCRIPT_BREAKS = re.compile(r"</(script)|<!--", re.IGNORECASE)


def inline_script(code: str) -> str:
    """Script text that is safe inside ``<script>...</script>``: ``</script`` and ``<!--`` escaped.

    JavaScript reads ``<\\/script`` and ``<\\!--`` (in strings, regexes and
    comments, the only places they can be) as it read the originals.
    """
    return SCRIPT_BREAKS.sub(lambda m: f"<\\/{m.group(1)}" if m.group(1) else "<\\!--", code)


def page(title: str, body: str, *, csp: str | None = None, styles: str | None = None,
         stylesheets: Sequence[str] = (), scripts: Sequence[str] = (), script_files: Sequence[str] = (),
         meta: Mapping[str, str] | None = None, icon: bool = False) -> str:
    """A whole HTML page: the shared head, then `body`, then its scripts.

    Args:
        title: the page's title, as text (escaped here).
        body: the page's content, HTML (escaped by the caller), ending with a newline.
        csp: a Content-Security-Policy, written as the head's first ``<meta>`` after the viewport.
        styles: CSS for a ``<style>`` element (each line indented, ending with a newline).
        stylesheets: hrefs of ``<link rel="stylesheet">`` elements.
        scripts: inline script code, after the body (made safe by `inline_script`).
        script_files: srcs of ``<script src>`` elements, after the body and before `scripts`.
        meta: ``<meta name content>`` tags (names in order given), before the title.
        icon: an empty favicon (``data:,``), so a browser asks a server for no ``/favicon.ico``.

    Returns:
        The page's text: the same arguments always give the same bytes.
    """
    head = ['<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">']
    if csp is not None:
        # Its quotes are the policy's own ('self', 'none'): left as written, readable in the page.
        head.append(f'<meta http-equiv="Content-Security-Policy" content="{html.escape(csp, quote=False)}">')
    if icon:
        head.append('<link rel="icon" href="data:,">')
    head.extend(f'<meta name="{attribute(name)}" content="{attribute(content)}">'
                for name, content in (meta or {}).items())
    head.append(f"<title>{html.escape(title)}</title>")
    head.extend(f'<link rel="stylesheet" href="{attribute(href)}">' for href in stylesheets)
    if styles is not None:
        head.append(f"<style>\n{styles}</style>")
    head += ["</head>", "<body>"]
    tail = [f'<script src="{attribute(src)}"></script>' for src in script_files]
    tail += [f"<script>{inline_script(code)}</script>" for code in scripts]
    tail += ["</body>", "</html>"]
    return "\n".join(head) + "\n" + body + "\n".join(tail) + "\n"


def attribute(value: str) -> str:
    """Text as a double-quoted attribute value: ``&``, ``<``, ``>`` and both quotes escaped."""
    return html.escape(value, quote=True)
