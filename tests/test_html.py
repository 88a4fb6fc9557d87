"""The one HTML page skeleton (`infra.html`): the head every page shares, and its escaping."""

from __future__ import annotations

from chartc.infra.html import inline_script, page

HEAD = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n')


def test_a_page_is_the_shared_head_then_the_body_then_its_scripts():
    text = page("T", "<p>x</p>\n", csp="default-src 'none'", styles="  p { color: red; }\n", stylesheets=("a.css",),
                script_files=("b.js",), scripts=("go();",), meta={"chartc:version": "1"}, icon=True)
    assert text == (HEAD + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\n"
                    '<link rel="icon" href="data:,">\n<meta name="chartc:version" content="1">\n<title>T</title>\n'
                    '<link rel="stylesheet" href="a.css">\n<style>\n  p { color: red; }\n</style>\n</head>\n<body>\n'
                    '<p>x</p>\n<script src="b.js"></script>\n<script>go();</script>\n</body>\n</html>\n')


def test_without_options_the_head_has_no_policy_icon_or_styles():
    assert page("T", "") == HEAD + "<title>T</title>\n</head>\n<body>\n</body>\n</html>\n"


def test_the_title_and_attributes_are_escaped():
    text = page('</title><script>x()</script> & "q"', "", meta={'n"x': '"><script>'}, stylesheets=('"a.css',))
    assert "<title>&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt; &amp; &quot;q&quot;</title>" in text
    assert '<meta name="n&quot;x" content="&quot;&gt;&lt;script&gt;">' in text
    assert '<link rel="stylesheet" href="&quot;a.css">' in text
    assert "<script>" not in text


def test_inline_script_cannot_close_its_element_or_open_a_comment():
    code = 'var a = "</script><script>x()</script>", b = "</SCRIPT>", c = "<!--";'
    assert inline_script(code) == 'var a = "<\\/script><script>x()<\\/script>", b = "<\\/SCRIPT>", c = "<\\!--";'
    text = page("T", "", scripts=(code,))
    body = text[text.index("<body>"):]
    assert body.lower().count("</script") == 1 and "<!--" not in body
    assert inline_script(inline_script(code)) == inline_script(code)  # a bundle made safe already stays as it is


def test_every_page_chartc_writes_has_the_shared_head():
    from chartc.commands.gallery import index_page
    from chartc.commands.serve import diagnostics_page
    from chartc.errors import SpecError

    pages = {
        "gallery index": index_page([("a", "A")]),
        "serve problems": diagnostics_page("a.yaml", "a", [SpecError("bad", ("title",))], previous=False),
    }
    for name, text in pages.items():
        assert text.startswith(HEAD), name
