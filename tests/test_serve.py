"""`chartc serve`: a local server that rebuilds the gallery on save.

Each test starts ``python -m chartc serve`` in a subprocess on port 0 over a
temporary folder of small inline-data specs, reads the address it prints and
talks HTTP to it (the browser tests drive the same server from Chromium).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.serve import RELOAD_SCRIPT, VERSION_PATH, diagnostics_page
from chartc.errors import Location, SpecError

ROOT = Path(__file__).resolve().parent.parent

BARS = """\
title: Bars
data:
  values: [{k: a, v: 1}, {k: b, v: 3}, {k: c, v: 2}]
mark: bar
encoding: {x: k, y: v, tooltip: [k, v]}
"""

POINTS_SPEC = """\
title: Points
data: {path: data/points.csv}
encoding: {x: x, y: y}
layers:
  - mark: point
  - trend: {method: linear}
"""

POINTS = "x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n"
BROKEN = BARS.replace("mark: bar", "mark: barr")


def make_specs(root: Path) -> Path:
    """root/specs with bars.yaml, points.yaml and data/points.csv."""
    specs = root / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "bars.yaml").write_text(BARS)
    (specs / "points.yaml").write_text(POINTS_SPEC)
    (specs / "data" / "points.csv").write_text(POINTS)
    return specs


def write_later(path: Path, text: str) -> None:
    """Write so the change is visible to an mtime/size poll even within one clock tick."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text)
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


class ServeProcess:
    """``chartc serve`` in a subprocess: its URL, HTTP helpers and a clean stop."""

    def __init__(self, cwd: Path, *args: str, env: dict | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chartc", "serve", *args], cwd=cwd,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **(env or {})})
        line = self.proc.stdout.readline()
        if not line.startswith("chartc serve: http://"):
            self.proc.kill()
            raise AssertionError(f"no address printed: {line!r} {self.proc.stderr.read()}")
        self.first_line = line
        self.url = line.split(": ", 1)[1].strip()

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=10) as response:
            return response.read().decode("utf-8")

    def status(self) -> dict:
        return json.loads(self.get("__chartc/status"))

    def wait_version(self, above: int, timeout: float = 30) -> dict:
        """Poll the status until a build newer than `above` finished."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status = self.status()
            if status["version"] > above and not status["building"]:
                return status
            time.sleep(0.05)
        raise AssertionError(f"no new build after {timeout} s: {self.status()}")

    def stop(self) -> tuple[int, str, str]:
        """SIGINT, as Ctrl-C sends; returns (exit code, rest of stdout, stderr)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            out, err = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
        return self.proc.returncode, out, err


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the tests that edit files and put them back (startup costs ~3 s)."""
    root = tmp_path_factory.mktemp("serve")
    make_specs(root)
    process = ServeProcess(root, "specs")
    process.wait_version(0)
    process.root = root
    yield process
    code, _, err = process.stop()
    assert code == 0, err


BASELINE = {"bars.yaml": BARS, "points.yaml": POINTS_SPEC, "data/points.csv": POINTS}


@pytest.fixture
def served(server):
    """The shared server, its specs reset to the baseline (and rebuilt) after the test."""
    specs = server.root / "specs"
    yield server, specs
    version = server.status()["version"]
    changed = False
    for name, text in BASELINE.items():
        if (specs / name).read_text() != text:
            write_later(specs / name, text)
            changed = True
    for extra in set(specs.glob("*.yaml")) - {specs / name for name in BASELINE}:
        extra.unlink()
        changed = True
    if changed:
        server.wait_version(version, timeout=10)


# -------------------------------------------------------------------- tests

@pytest.mark.slow
def test_prints_a_loopback_address_on_a_free_port_and_serves_the_gallery(served):
    server, _ = served
    assert server.first_line == msg.serve_listening(server.url) + "\n"
    assert server.url.startswith("http://127.0.0.1:") and server.url.endswith("/")
    index = server.get("/")
    assert "Bars" in index and "Points" in index
    assert 'src="bars.png"' in index and 'href="points.html"' in index
    assert VERSION_PATH in index  # the live-reload script is injected
    page = server.get("points.html")
    assert '<script src="vega-bundle.js"></script>' in page and "Fitted trends" in page
    assert server.get(VERSION_PATH).strip() == str(server.status()["version"])


@pytest.mark.slow
def test_listens_on_loopback_only(served):
    server, _ = served
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    addresses = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
    for address in addresses - {"127.0.0.1"}:
        if address.startswith("127."):
            continue
        with pytest.raises(OSError):
            socket.create_connection((address, port), timeout=2).close()


@pytest.mark.slow
def test_saving_a_spec_rebuilds_that_chart_and_bumps_the_version(served):
    server, specs = served
    version = server.status()["version"]
    started = time.monotonic()
    write_later(specs / "bars.yaml", BARS.replace("title: Bars", "title: Bars, edited"))
    server.wait_version(version, timeout=10)
    elapsed = time.monotonic() - started
    assert "Bars, edited" in server.get("bars.html")
    assert "Bars, edited" in server.get("/")
    assert elapsed < 1.0, f"rebuilt in {elapsed:.2f} s"


@pytest.mark.slow
def test_saving_a_data_file_rebuilds_the_chart_that_reads_it(served):
    server, specs = served
    version = server.status()["version"]
    write_later(specs / "data" / "points.csv", POINTS + "6,12.2\n")
    server.wait_version(version, timeout=10)
    assert '"n": 6' in server.get("points.fits.json")


@pytest.mark.slow
def test_a_new_spec_in_a_served_folder_appears(served):
    server, specs = served
    version = server.status()["version"]
    (specs / "more.yaml").write_text(BARS.replace("title: Bars", "title: More bars"))
    server.wait_version(version, timeout=10)
    assert "More bars" in server.get("/")


@pytest.mark.slow
def test_a_broken_spec_shows_its_diagnostics_and_keeps_the_previous_chart(served):
    server, specs = served
    version = server.status()["version"]
    write_later(specs / "bars.yaml", BROKEN)
    status = server.wait_version(version, timeout=10)
    assert list(status["failures"]) == ["bars"]
    [diagnostic] = status["failures"]["bars"]
    assert diagnostic.startswith("specs/bars.yaml:4:7: error: mark: 'barr' is not one of")

    page = server.get("bars.html")
    assert "specs/bars.yaml:4:7" in page and "&#x27;barr&#x27; is not one of" in page
    assert 'class="hint">hint: did you mean &#x27;bar&#x27;?' in page
    assert "4 | mark: barr" in page  # the offending line, with a caret under the column
    assert 'href="bars.html?previous"' in page
    previous = server.get("bars.html?previous")
    assert "vega-bundle.js" in previous and "mark: bar\n" in previous  # the last good chart
    index = server.get("/")
    assert 'id="chartc-problems"' in index and 'href="bars.html"' in index

    version = server.status()["version"]
    write_later(specs / "bars.yaml", BARS.replace("title: Bars", "title: Bars, fixed"))
    status = server.wait_version(version, timeout=10)
    assert status["failures"] == {}
    assert "Bars, fixed" in server.get("bars.html")


@pytest.mark.slow
def test_broken_from_the_start_then_ctrl_c_stops_cleanly_and_removes_its_temporary_folder(tmp_path):
    specs = make_specs(tmp_path)
    (specs / "bad.yaml").write_text(BARS.replace("encoding: {x: k", "encoding: {x: nope"))
    temp = tmp_path / "temp"
    temp.mkdir()
    server = ServeProcess(tmp_path, "specs", env={"TMPDIR": str(temp)})
    try:
        status = server.wait_version(0)
        assert list(status["failures"]) == ["bad"]
        page = server.get("bad.html")
        assert "specs/bad.yaml:5:" in page and "nope" in page and "?previous" not in page
        assert [p.name[:13] for p in temp.iterdir()] == ["chartc-serve-"]
    finally:
        code, out, err = server.stop()
    assert code == 0, err
    assert out.rstrip().endswith(msg.serve_stopped())
    assert "Traceback" not in err
    assert "specs/bad.yaml:5:" in err  # diagnostics go to the terminal too
    assert list(temp.iterdir()) == []


@pytest.mark.slow
def test_out_folder_is_kept_and_is_an_ordinary_gallery(tmp_path):
    make_specs(tmp_path)
    server = ServeProcess(tmp_path, "specs", "--out", "site")
    try:
        server.wait_version(0)
    finally:
        code, _, _ = server.stop()
    assert code == 0
    assert {"index.html", "manifest.json", "vega-bundle.js", "bars.html", "points.fits.json"} <= {
        p.name for p in (tmp_path / "site").iterdir()}
    from chartc.gallery import check_gallery

    assert not check_gallery(sorted((tmp_path / "specs").glob("*.yaml")), tmp_path / "site").failed


@pytest.mark.slow
def test_a_busy_port_is_a_usage_error(tmp_path):
    make_specs(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, "-m", "chartc", "serve", "specs", "--port", str(port)],
                                cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"chartc: error: cannot listen on 127.0.0.1:{port}: ")


def test_a_missing_spec_path_is_a_usage_error(tmp_path):
    result = subprocess.run([sys.executable, "-m", "chartc", "serve", "nowhere"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "no such file or folder: nowhere" in result.stderr


def test_diagnostics_page_escapes_everything():
    evil = "<script>alert(1)</script>"
    problem = SpecError(f"bad {evil}", ("title",), location=Location(f"x{evil}.yaml", 1, 2), hint=evil)
    page = diagnostics_page(f"x{evil}.yaml", "x", [problem], previous=True)
    assert evil not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_reload_script_polls_the_version_endpoint():
    script = RELOAD_SCRIPT.format(version=7, path=VERSION_PATH)
    assert "var version = 7;" in script and f'fetch("{VERSION_PATH}"' in script and "location.reload()" in script
