"""The gallery's pages without a browser: chart pages, the index, the shared bundle.

tests/test_browser.py opens the same pages in Chromium.
"""

from __future__ import annotations

import re
import shutil

import pytest

from chartc import errors as msg
from chartc.commands.gallery import build_gallery, check_gallery
from chartc.commands.manifest import BUNDLE_NAME
from chartc.commands.manifest import read_manifest

HOSTILE = """\
title: "</script><script>alert(1)</script> & <b>"
data:
  values: [{k: "<i>a</i>", v: 1}, {k: b, v: 3}]
mark: bar
encoding: {x: k, y: v}
"""

TREND = """\
title: Points and a trend
data: {path: data/points.csv}
encoding: {x: x, y: y}
layers:
  - mark: point
  - trend: {method: linear, label: "Fit (R²={r2:.3f})"}
"""

POINTS = "x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("pages")
    specs = root / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "hostile.yaml").write_text(HOSTILE)
    (specs / "trend.yaml").write_text(TREND)
    (specs / "data" / "points.csv").write_text(POINTS)
    report = build_gallery(sorted(specs.glob("*.yaml")), root / "gallery")
    assert not report.failed, report.problems
    return root


def test_chart_page_shows_the_chart_its_spec_fits_and_download_links(built):
    page = (built / "gallery" / "trend.html").read_text()
    assert '<script src="vega-bundle.js"></script>' in page
    assert 'vegaEmbed("#chart", ' in page
    assert "<h2>Spec <code>trend.yaml</code></h2>" in page
    assert '  - trend: {method: linear, label: "Fit (R²={r2:.3f})"}\n' in page  # the source, as written
    for href in ("trend.svg", "trend.png", "trend.vl.json", "trend.fits.json"):
        assert f'<a href="{href}" download>' in page
        assert (built / "gallery" / href).is_file()
    assert '<table class="fits">' in page
    row = re.search(r"<tbody>\n<tr>(.*?)</tr>", page).group(1)
    assert "<td>layers[1]</td>" in row and "<td>linear</td>" in row and '<td class="num">5</td>' in row
    assert '<meta name="chartc:spec-hash"' in page  # provenance, as in every export


def test_a_chart_without_trends_has_no_fits_table_or_link(built):
    page = (built / "gallery" / "hostile.html").read_text()
    assert '<table class="fits">' not in page and "fits.json" not in page


def test_titles_data_and_spec_source_cannot_inject_markup(built):
    for name in ("hostile.html", "index.html"):
        page = (built / "gallery" / name).read_text()
        assert "<script>alert(1)" not in page
        assert "<b>" not in page and "<i>a</i>" not in page
    page = (built / "gallery" / "hostile.html").read_text()
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;" in page


def test_pages_load_nothing_from_the_network(built):
    for page in (built / "gallery").glob("*.html"):
        text = page.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page.name
        assert "cdn" not in text.lower(), page.name


def test_index_has_a_thumbnail_title_and_page_link_per_chart(built):
    index = (built / "gallery" / "index.html").read_text()
    assert index.count("<figure") == 2 and "<p>2 charts</p>" in index
    assert '<a href="trend.html"><img src="trend.png" loading="lazy" alt="Points and a trend"></a>' in index
    assert '<a href="trend.html"><strong>Points and a trend</strong></a>' in index


def test_the_bundle_is_one_shared_file_recorded_for_every_chart(built):
    gallery = built / "gallery"
    bundle = (gallery / BUNDLE_NAME).read_text()
    assert "vegaEmbed" in bundle and len(bundle) > 100_000
    manifest = read_manifest(gallery)
    assert all(BUNDLE_NAME in record.outputs for record in manifest.charts.values())
    assert sum(p.stat().st_size for p in gallery.glob("*.html")) < len(bundle)  # pages stay small


def test_check_reports_a_modified_bundle_once_and_a_build_restores_it(built, tmp_path):
    shutil.copytree(built, tmp_path / "p")
    gallery = tmp_path / "p" / "gallery"
    specs = sorted((tmp_path / "p" / "specs").glob("*.yaml"))
    original = (gallery / BUNDLE_NAME).read_bytes()
    (gallery / BUNDLE_NAME).write_text("tampered")
    report = check_gallery(specs, gallery)
    assert report.problems == [f"{gallery / BUNDLE_NAME}: {msg.output_modified()}", msg.check_failed(1, str(gallery))]
    build_gallery(specs, gallery)
    assert (gallery / BUNDLE_NAME).read_bytes() == original


def test_the_bundle_goes_with_the_last_chart_only(built, tmp_path):
    shutil.copytree(built, tmp_path / "p")
    gallery = tmp_path / "p" / "gallery"
    specs = tmp_path / "p" / "specs"
    (specs / "hostile.yaml").unlink()
    report = build_gallery(sorted(specs.glob("*.yaml")), gallery)
    assert BUNDLE_NAME not in report.removed and (gallery / BUNDLE_NAME).exists()
    assert not check_gallery(sorted(specs.glob("*.yaml")), gallery).failed
    (specs / "trend.yaml").unlink()
    report = build_gallery([], gallery)
    assert BUNDLE_NAME in report.removed and not (gallery / BUNDLE_NAME).exists()


def test_a_crlf_spec_gives_the_same_page(built, tmp_path):
    shutil.copytree(built, tmp_path / "p")
    spec = tmp_path / "p" / "specs" / "trend.yaml"
    spec.write_bytes(spec.read_bytes().replace(b"\n", b"\r\n"))
    gallery = tmp_path / "p" / "gallery"
    before = (gallery / "trend.html").read_bytes()
    build_gallery(sorted(spec.parent.glob("*.yaml")), gallery, force=True)
    assert (gallery / "trend.html").read_bytes() == before
