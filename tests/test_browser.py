"""The gallery and `chartc serve` in a real browser: Debian's headless Chromium.

Chromium is started once for the module and driven by Playwright (one page).
Every chart page of the gallery must draw an SVG with marks and log no
console error, load nothing from the network, show tooltips on hover; a
served page must reload by itself when its spec is saved and show the
diagnostics of a broken spec.

Playwright drives the system's Chromium (``executable_path``): it never
downloads a browser of its own (``playwright install`` is not needed).
``scripts/setup-test-env`` installs Chromium (the README's test command runs
it). Without Chromium these tests fail in CI (``CI=true``) and are skipped
elsewhere.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from test_serve import BARS, BROKEN, ServeProcess, make_specs, write_later

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_NAMES = ("chromium", "chromium-browser")
# Playwright adds --headless and a profile of its own; the window size is the page's viewport.
CHROMIUM_FLAGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
    "--disable-extensions", "--mute-audio", "--window-size=1280,1024",
)

# Data marks drawn by Vega's SVG renderer (axes, legends and titles have other roles).
COUNT_MARKS = """(() => {
  const svg = document.querySelector('#chart svg');
  if (!svg) { return -1; }
  let count = 0;
  for (const group of svg.querySelectorAll('g.role-mark')) { count += group.childElementCount; }
  return count;
})()"""


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Browser:
    """Debian's headless Chromium with one page, driven by Playwright."""

    def __init__(self, executable: str):
        from playwright.sync_api import Error, sync_playwright  # a test dependency, loaded only to drive Chromium

        self.error = Error  # what Playwright raises: a navigation under way, an exception in the page
        self.playwright = sync_playwright().start()
        try:
            self.browser = self.playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_FLAGS),
                                                          headless=True, timeout=30_000)
        except Exception:
            self.playwright.stop()
            raise
        self.page = self.browser.new_page(no_viewport=True)  # the window's size, as --window-size says
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))

    def _console(self, message) -> None:
        # Failed loads reach Playwright as console errors too (Chromium's Log domain).
        if message.type in ("error", "assert"):
            self.errors.append(f"{message.text} {message.location.get('url', '')}".strip())

    # ------------------------------------------------------------ pages

    def open(self, url: str, timeout: float = 30) -> None:
        """Navigate the page and wait for the load event."""
        self.errors.clear()
        self.requests.clear()
        self.page.goto(url, wait_until="load", timeout=timeout * 1000)

    def pump(self, seconds: float) -> None:
        """Let the page run (and its events arrive) for a while."""
        self.page.wait_for_timeout(seconds * 1000)

    def evaluate(self, expression: str):
        return self.page.evaluate(expression)

    def wait_for(self, expression: str, timeout: float = 10, interval: float = 0.02):
        """Evaluate until truthy; returns the value (or raises after `timeout`)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except self.error:  # the page is navigating: its context is gone for a moment
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression[:80]}")
            self.pump(interval)

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and failed loads since the last `open`."""
        return list(self.errors)

    def requested_urls(self) -> list[str]:
        return list(self.requests)

    def hover(self, x: float, y: float) -> None:
        self.page.mouse.move(x, y)

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            self.playwright.stop()


@pytest.fixture(scope="module")
def browser():
    executable = chromium_path()
    if executable is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Chromium is missing: scripts/setup-test-env installs it (apt-get install chromium)")
        pytest.skip("Chromium is not installed (run scripts/setup-test-env)")
    if importlib.util.find_spec("playwright") is None:  # the test extra: pip install -c requirements/lock.txt -e '.[test]'
        if os.environ.get("CI") == "true":
            pytest.fail("Playwright is missing: install the test extra from requirements/lock.txt")
        pytest.skip("Playwright is not installed (the test extra)")
    browser = Browser(executable)
    yield browser
    browser.close()


# ------------------------------------------------------------ built gallery

@pytest.fixture(scope="module")
def gallery(tmp_path_factory) -> Path:
    """A built gallery of every spec in specs/.

    The repository's gallery/ when `build --check` says it is up to date (it
    is only read); otherwise a fresh build in a temporary folder.
    """
    from chartc.commands.specs import spec_files
    from chartc.commands.gallery import build_gallery, check_gallery

    specs = spec_files([str(ROOT / "specs")])
    committed = ROOT / "gallery"
    if (committed / "index.html").exists() and not check_gallery(specs, committed).failed:
        return committed
    out = tmp_path_factory.mktemp("gallery")
    report = build_gallery(specs, out)
    assert not report.failed, report.problems
    return out


def chart_pages(gallery: Path) -> list[Path]:
    from chartc.commands.manifest import read_manifest

    return [gallery / f"{stem}.html" for stem in read_manifest(gallery).charts]


def test_every_chart_page_draws_marks_offline_without_console_errors(browser, gallery):
    pages = chart_pages(gallery)
    assert len(pages) >= 30
    problems = {}
    for page in pages:
        browser.open(page.as_uri())
        try:
            marks = browser.wait_for(f"{COUNT_MARKS} > 0 && {COUNT_MARKS}", timeout=10)
        except Exception as error:
            shown = browser.evaluate("document.getElementById('chart-error').textContent")
            marks = f"no marks: {error}; chart-error: {shown}"
        browser.pump(0.05)  # late console messages
        errors = browser.console_errors()
        remote = [url for url in browser.requested_urls() if not url.startswith(("file:", "data:"))]
        source = browser.evaluate("document.querySelector('.source pre code').textContent")
        links = browser.evaluate("[...document.querySelectorAll('.downloads a')].map(a => a.getAttribute('href'))")
        if not isinstance(marks, int) or errors or remote or "title:" not in source:
            problems[page.name] = {"marks": marks, "errors": errors, "remote": remote}
        for href in links:
            if not (gallery / href).is_file():
                problems.setdefault(page.name, {})["missing link"] = href
        assert {Path(h).name.split(".", 1)[1] for h in links} >= {"svg", "png", "vl.json"}
    assert problems == {}


def test_trend_pages_show_their_fit_results(browser, gallery):
    from chartc.commands.manifest import read_manifest

    with_fits = [stem for stem, record in read_manifest(gallery).charts.items() if f"{stem}.fits.json" in record.outputs]
    assert with_fits
    for stem in with_fits[:3]:
        browser.open((gallery / f"{stem}.html").as_uri())
        rows = browser.evaluate("document.querySelectorAll('table.fits tbody tr').length")
        fits = json.loads((gallery / f"{stem}.fits.json").read_text())
        assert rows == sum(len(layer["fits"]) for layer in fits["trends"])
        r2 = fits["trends"][0]["fits"][0]["r2"]
        if r2 is not None:
            assert f"{r2:.4f}" in browser.evaluate("document.querySelector('table.fits').textContent")


def test_index_shows_every_chart_as_a_thumbnail_with_its_title(browser, gallery):
    from chartc.commands.manifest import read_manifest

    charts = read_manifest(gallery).charts
    browser.open((gallery / "index.html").as_uri())
    browser.evaluate("Promise.all([...document.images].map(i => { i.loading = 'eager';"  # lazy below the fold
                     " return i.decode().catch(() => null); }))")
    figures = browser.evaluate("""[...document.querySelectorAll('figure')].map(f => ({
        title: f.querySelector('figcaption strong').textContent,
        loaded: f.querySelector('img').naturalWidth > 0,
        page: f.querySelector('a').getAttribute('href')}))""")
    assert len(figures) == len(charts)
    assert {f["title"] for f in figures} == {record.title for record in charts.values()}
    assert all(f["loaded"] for f in figures), [f for f in figures if not f["loaded"]]
    assert all((gallery / f["page"]).is_file() for f in figures)
    assert browser.console_errors() == []


@pytest.mark.parametrize("stem, expected", [
    ("cars_scatter", ("Horsepower", "Origin")),   # the spec's own tooltip channels
    ("trend_linear", ("Horsepower", "Miles_per_Gallon")),  # no tooltip declared: the page shows the data
])
def test_tooltips_show_on_hover(browser, gallery, stem, expected):
    page = gallery / f"{stem}.html"
    if not page.exists():
        pytest.skip(f"specs/{stem}.yaml is gone")
    browser.open(page.as_uri())
    browser.wait_for(f"{COUNT_MARKS} > 0")
    point = browser.evaluate("""(() => {
        const mark = document.querySelector('#chart svg g.mark-symbol.role-mark > path');
        mark.scrollIntoView({block: 'center'});
        const box = mark.getBoundingClientRect();
        return {x: box.x + box.width / 2, y: box.y + box.height / 2};
    })()""")
    browser.hover(point["x"], point["y"])
    text = browser.wait_for("(() => { const t = document.getElementById('vg-tooltip-element');"
                            " return t && t.classList.contains('visible') && t.textContent; })()", timeout=5)
    assert all(name in text for name in expected), text
    assert browser.console_errors() == []


# ----------------------------------------------------------------- selections

# Every data mark's opacity as the page draws it (Vega's SVG renderer writes it as an attribute), per panel.
MARK_OPACITIES = """(() => {
  const opacities = node => [...node.querySelectorAll('g.mark-symbol.role-mark > path')]
                              .map(path => path.getAttribute('opacity') || '1');
  const cells = [...document.querySelectorAll('#chart svg g.mark-group.role-scope > g')]
                  .map(opacities).filter(marks => marks.length > 0);
  return cells.length ? cells : [opacities(document.querySelector('#chart svg'))];
})()"""


def cars(field: str, value) -> int:
    """Cars with Horsepower and Miles_per_Gallon (the points drawn) whose `field` is `value`, read from the data."""
    import vega_datasets

    rows = json.loads(Path(vega_datasets.local_data.cars.filepath).read_text())
    return sum(1 for r in rows if r["Horsepower"] is not None and r["Miles_per_Gallon"] is not None
               and r[field] == value)


def _centre(browser, selector: str, text: str | None = None) -> dict:
    return browser.evaluate(f"""(() => {{
        const found = [...document.querySelectorAll({json.dumps(selector)})]
            .filter(node => {json.dumps(text)} === null || node.textContent === {json.dumps(text)});
        const node = found[0];
        node.scrollIntoView({{block: 'center'}});
        const box = node.getBoundingClientRect();
        return {{x: box.x + box.width / 2, y: box.y + box.height / 2, width: box.width}};
    }})()""")


def test_hover_grows_a_point_and_a_legend_click_keeps_one_origin_bright(browser, gallery):
    page = gallery / "cars_highlight.html"
    if not page.exists():
        pytest.skip("specs/cars_highlight.yaml is gone")
    browser.open(page.as_uri())
    browser.wait_for(f"{COUNT_MARKS} > 0")
    (opacities,) = browser.evaluate(MARK_OPACITIES)
    assert set(opacities) == {"0.9"}  # nothing selected: every origin bright
    first = "#chart svg g.mark-symbol.role-mark > path:last-child"  # drawn last: on top of any other
    before = _centre(browser, first)
    browser.hover(before["x"], before["y"])
    width = f"document.querySelector({json.dumps(first)}).getBoundingClientRect().width"
    grown = browser.wait_for(f"{width} > {before['width'] * 1.5} && {width}", timeout=5)
    assert grown == pytest.approx(before["width"] * 2, rel=0.25)  # area 40 -> 160: twice as wide
    label = _centre(browser, "#chart svg g.role-legend text", "Japan")
    browser.page.mouse.click(label["x"], label["y"])
    browser.wait_for(f"{MARK_OPACITIES}[0].filter(o => o === '0.08').length > 0", timeout=5)
    (opacities,) = browser.evaluate(MARK_OPACITIES)
    assert opacities.count("0.9") == cars("Origin", "Japan")
    assert opacities.count("0.08") == len(opacities) - cars("Origin", "Japan")
    assert browser.console_errors() == []


def test_a_brush_in_one_panel_fades_the_cars_outside_it_in_every_panel(browser, gallery):
    page = gallery / "cars_brush_facets.html"
    if not page.exists():
        pytest.skip("specs/cars_brush_facets.yaml is gone")
    browser.open(page.as_uri())
    browser.wait_for(f"{COUNT_MARKS} > 0")
    panels = browser.evaluate(MARK_OPACITIES)
    assert len(panels) == 3 and all(set(panel) == {"0.85"} for panel in panels)
    box = browser.evaluate("""(() => {
        const cell = document.querySelector('#chart svg g.mark-group.role-scope > g path.background');
        cell.scrollIntoView({block: 'center'});
        const b = cell.getBoundingClientRect();
        return {x: b.x, y: b.y, width: b.width, height: b.height};
    })()""")
    mouse = browser.page.mouse
    mouse.move(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
    mouse.down()
    mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2, steps=8)
    mouse.up()
    browser.wait_for(f"{MARK_OPACITIES}.flat().filter(o => o === '0.15').length > 0", timeout=5)
    panels = browser.evaluate(MARK_OPACITIES)
    faded = [panel.count("0.15") for panel in panels]
    bright = [panel.count("0.85") for panel in panels]
    assert all(count > 0 for count in faded)          # the brush reaches every panel
    assert sum(bright) > 0 and all(f + b == len(panel) for f, b, panel in zip(faded, bright, panels))
    assert browser.console_errors() == []


# Every bar's outline width, fill opacity and cursor, left to right, as the page draws them.
BAR_STYLES = """(() => [...document.querySelectorAll('#chart svg g.mark-rect.role-mark > path')]
  .map(path => ({x: path.getBoundingClientRect().x, width: path.getAttribute('stroke-width') || '0',
                 opacity: path.getAttribute('fill-opacity') || '1'}))
  .sort((a, b) => a.x - b.x))()"""
CHART_CURSOR = "document.querySelector('#chart').style.cursor"


def test_hovering_a_bar_outlines_it_and_clicking_it_selects_it_and_fades_the_others(browser, tmp_path):
    """The corpus's port of Vega-Lite's bar chart with highlighting on hover and selection on click."""
    from chartc.commands import cli

    page = tmp_path / "bars.html"
    assert cli.main(["compile", str(ROOT / "tests" / "corpus2" / "vl_interactive_bar_select_highlight.yaml"),
                     "-o", str(page)]) == 0
    browser.open(page.as_uri())
    browser.wait_for(f"{COUNT_MARKS} === 9")
    bars = browser.evaluate(BAR_STYLES)
    assert {(bar["width"], bar["opacity"]) for bar in bars} == {("0", "1")}
    assert browser.evaluate(CHART_CURSOR) != "pointer"
    third = "#chart svg g.mark-rect.role-mark > path:nth-child(3)"
    centre = _centre(browser, third)
    browser.hover(centre["x"], centre["y"])
    browser.wait_for(f"{BAR_STYLES}[2].width === '1'", timeout=5)
    assert [bar["width"] for bar in browser.evaluate(BAR_STYLES)] == ["0", "0", "1"] + ["0"] * 6
    assert browser.evaluate(CHART_CURSOR) == "pointer"  # Vega sets the hovered mark's cursor on its container
    browser.page.mouse.click(centre["x"], centre["y"])
    browser.wait_for(f"{BAR_STYLES}[2].width === '2'", timeout=5)
    bars = browser.evaluate(BAR_STYLES)
    assert [bar["width"] for bar in bars] == ["0", "0", "2"] + ["0"] * 6
    assert [bar["opacity"] for bar in bars] == ["0.3", "0.3", "1"] + ["0.3"] * 6
    assert browser.console_errors() == []


# ----------------------------------------------------------------- serve

@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("served")
    specs = make_specs(root)
    server = ServeProcess(root, "specs")
    server.wait_version(0)
    yield server, specs
    code, _, err = server.stop()
    assert code == 0, err


def chart_title(browser) -> str | None:
    return browser.evaluate("(() => { const t = document.querySelector('#chart svg .role-title-text');"
                            " return t && t.textContent; })()")


def test_served_chart_page_shows_each_save_in_place_without_a_reload(browser, served):
    """The page swaps in each saved version by itself; how fast is measured by benchmarks/bench_editor.py."""
    server, specs = served
    browser.open(server.url + "bars.html")
    browser.wait_for(f"{COUNT_MARKS} > 0")
    assert chart_title(browser) == "Bars"
    browser.evaluate("window.chartcMarker = 1")  # gone if the page reloaded
    latencies = []
    for n in range(3):
        saved = time.monotonic()
        write_later(specs / "bars.yaml", BARS.replace("title: Bars", f"title: Bars, edit {n}"))
        browser.wait_for(f"(() => {{ const t = document.querySelector('#chart svg .role-title-text');"
                         f" return t && t.textContent === 'Bars, edit {n}'; }})()", timeout=15, interval=0.01)
        latencies.append(time.monotonic() - saved)
        assert browser.evaluate(f"{COUNT_MARKS}") == 3
        assert browser.evaluate("document.title") == f"Bars, edit {n} - chartc gallery"
        assert browser.evaluate("document.querySelectorAll('#chart').length") == 1
    server.wait_quiet(server.status()["version"] - 1, quiet=0.5)  # the builds after the previews
    assert browser.evaluate("window.chartcMarker") == 1        # never reloaded
    assert browser.evaluate("window.chartcSwaps") == 3          # once per save: the build after a preview is the same page
    assert chart_title(browser) == "Bars, edit 2"
    print(f"save -> new chart in the browser: {', '.join(f'{t:.2f}' for t in latencies)} s")
    assert browser.console_errors() == []


def test_served_broken_spec_shows_its_diagnostic_then_the_fixed_chart(browser, served):
    server, specs = served
    browser.open(server.url + "bars.html")
    browser.wait_for(f"{COUNT_MARKS} > 0")
    write_later(specs / "bars.yaml", BROKEN)
    text = browser.wait_for("(() => { const p = document.getElementById('chartc-problems');"
                            " return p && p.textContent; })()", timeout=5)
    assert "specs/bars.yaml:4:7" in text and "'barr' is not one of" in text and "did you mean 'bar'?" in text
    assert browser.evaluate("document.querySelector('#chart svg')") is None  # diagnostics instead of the chart
    previous = browser.evaluate("document.getElementById('previous').href")
    assert previous.endswith("bars.html?previous")

    browser.open(previous)  # the last good chart is still there
    browser.wait_for(f"{COUNT_MARKS} > 0")

    browser.open(server.url + "bars.html")
    write_later(specs / "bars.yaml", BARS.replace("title: Bars", "title: Bars, fixed"))
    browser.wait_for("(() => { const t = document.querySelector('#chart svg .role-title-text');"
                     " return t && t.textContent === 'Bars, fixed'; })()", timeout=5)
    assert browser.console_errors() == []


def test_served_index_lists_the_charts_and_reloads(browser, served):
    server, specs = served
    browser.open(server.url)
    titles = browser.wait_for("[...document.querySelectorAll('figcaption strong')].map(s => s.textContent)")
    assert "Points" in titles
    (specs / "extra.yaml").write_text(BARS.replace("title: Bars", "title: Extra"))
    browser.wait_for("[...document.querySelectorAll('figcaption strong')].some(s => s.textContent === 'Extra')",
                     timeout=5)
    assert browser.console_errors() == []
