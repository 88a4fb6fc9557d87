"""`chartc serve`: a local server that rebuilds the gallery on save.

Most tests start ``python -m chartc serve`` in a subprocess on port 0 over a
temporary folder of small inline-data specs, read the address it prints and
talk HTTP to it (the browser tests drive the same server from Chromium).
The request-handling tests run the server in this process and talk raw
HTTP over sockets (hostile requests, Host checks, deadlines, the thread cap);
the convergence tests run the watcher in this process too, with a build that
lets a test save a file in the middle of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http import HTTPStatus
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands import serve as serve_module
from chartc.commands.serve import (HEAD_BYTES, MAX_TARGET, RELOAD_SCRIPT, STATUS_PATH, VERSION_PATH, ServeState, Watcher,
                                   diagnostics_page, make_server, refuse_host, refuse_target)
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

    def wait_quiet(self, above: int = 0, quiet: float = 1.0, timeout: float = 60) -> dict:
        """`wait_version`, then until no build ran for `quiet` seconds (a data file met by the
        first build may start one more: see `Watcher.build`)."""
        status = self.wait_version(above, timeout)
        deadline = time.monotonic() + timeout
        settled_at = time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = self.status()
            if now["version"] != status["version"] or now["building"]:
                status, settled_at = now, time.monotonic()
            elif time.monotonic() - settled_at >= quiet:
                return now
        raise AssertionError(f"builds did not stop within {timeout} s: {self.status()}")

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
    process.wait_quiet()
    process.root = root
    yield process
    code, _, err = process.stop()
    assert code == 0, err
    assert "Traceback" not in err and "a request failed" not in err, err


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
    write_later(specs / "bars.yaml", BARS.replace("title: Bars", "title: Bars, edited"))
    server.wait_version(version, timeout=10)  # how fast: benchmarks/bench_reload.py
    assert "Bars, edited" in server.get("bars.html")
    assert "Bars, edited" in server.get("/")


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
    assert diagnostic.startswith(f"specs/bars.yaml:4:7: error[{msg.not_one_of.code}]: mark: 'barr' is not one of")

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
    from chartc.commands.gallery import check_gallery

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
    # only its own styles and scripts (the reload script, asking this server) run
    assert ("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'\">") in page


def test_reload_script_holds_a_request_for_the_next_version():
    script = RELOAD_SCRIPT.format(version=7, path=VERSION_PATH)
    assert "var version = 7;" in script and f'fetch("{VERSION_PATH}?after=" + version' in script
    assert 'data-version="7"' in script and "location.reload()" in script


def get_version(port: int, query: str = "") -> tuple[int, bytes]:
    """(status code, body) of a GET of the version endpoint with `query`."""
    raw = raw_request(port, f"GET {VERSION_PATH}{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode(),
                      timeout=30)
    status, _, body = split_response(raw)
    return status, body


def timed(call) -> tuple[object, float]:
    started = time.monotonic()
    return call(), time.monotonic() - started


def test_a_version_request_after_the_current_one_is_held_until_a_build_finishes(tmp_path):
    with local_server(tmp_path / "out") as server:
        port, state = server.server_address[1], server.state
        assert timed(lambda: get_version(port))[0] == (200, b"0")            # no ?after: at once
        assert timed(lambda: get_version(port, "?after=5"))[0] == (200, b"0")  # another version: at once
        started = time.monotonic()  # before the timer: the answer cannot come sooner than 0.3 s from here
        threading.Timer(0.3, state.publish).start()
        answer, took = get_version(port, "?after=0"), time.monotonic() - started
        assert answer == (200, b"1") and 0.3 <= took < 5


@pytest.mark.parametrize("query", ["?after=", "?after=x1", "?after=-1", "?after=1e3", "?after=" + "9" * 13])
def test_a_version_request_naming_no_plain_version_is_answered_at_once(query, tmp_path):
    with local_server(tmp_path / "out") as server:
        answer, took = timed(lambda: get_version(server.server_address[1], query))
        assert answer == (200, b"0") and took < 2


@pytest.mark.slow
def test_held_version_requests_are_capped_and_the_rest_answered_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module, "MAX_HELD", 2)
    monkeypatch.setattr(serve_module, "HOLD_SECONDS", 1.0)
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        answers: list[tuple[tuple[int, bytes], float]] = []
        askers = [threading.Thread(target=lambda: answers.append(timed(lambda: get_version(port, "?after=0"))))
                  for _ in range(2)]
        for asker in askers:
            asker.start()
        deadline = time.monotonic() + 5
        while server.state.held._value > 0 and time.monotonic() < deadline:  # both held
            time.sleep(0.01)
        third, took = timed(lambda: get_version(port, "?after=0"))
        assert third == (200, b"0") and took < 0.5                 # not held: the page asks again later
        assert get_status(port) == 200                             # pages are still served
        for asker in askers:
            asker.join()
        assert sorted(answer for answer, _ in answers) == [(200, b"0")] * 2
        assert all(1.0 <= took < 5 for _, took in answers)         # held to HOLD_SECONDS, no newer build


def test_stopping_the_server_answers_held_requests_at_once(tmp_path):
    answers: list[tuple[tuple[int, bytes], float]] = []
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        asker = threading.Thread(target=lambda: answers.append(timed(lambda: get_version(port, "?after=0"))))
        asker.start()
        deadline = time.monotonic() + 5
        while server.state.held._value == serve_module.MAX_HELD and time.monotonic() < deadline:
            time.sleep(0.01)
    asker.join(timeout=10)
    assert answers and answers[0][0] == (200, b"0") and answers[0][1] < serve_module.HOLD_SECONDS / 2


# ------------------------------------------------- requests: Host, targets, limits

def raw_request(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send `data` on a fresh connection; return all the server sent before it closed."""
    chunks = []
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:  # closed with part of an oversized request unread: the answer came first
            pass
    return b"".join(chunks)


def split_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """(status code, headers by lower-case name, body) of a raw HTTP response."""
    head, _, body = raw.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict((name.strip().lower(), value.strip()) for name, value in (line.split(":", 1) for line in lines))
    return int(status.split()[1]), headers, body


def error_body(status: int, reason: str) -> bytes:
    return (msg.serve_http_error(status, HTTPStatus(status).phrase, reason) + "\n").encode("utf-8")


@contextlib.contextmanager
def local_server(out: Path):
    """`make_server` on a free port in this process, serving `out` (no watcher: no builds)."""
    out.mkdir(exist_ok=True)
    (out / "bars.html").write_text("<html><body>Bars</body></html>")
    server = make_server(ServeState(out.resolve(), building=False), 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def get_status(port: int) -> int:
    """The status code of a well-formed GET of the status endpoint."""
    raw = raw_request(port, f"GET {STATUS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return split_response(raw)[0]


HOST_LINE = "Host: {host}\r\n\r\n"
# (request with {host} for the server's own host:port, status, reason in the body or None for http.server's own)
HOSTILE = {
    "nul-escape": ("GET /%00.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_control()),
    "nul-byte": ("GET /\x00.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_ascii()),
    "crlf-escape": ("GET /a%0d%0aSet-Cookie:%20x HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_control()),
    "bad-escape": ("GET /%zz.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_bad_escape()),
    "lone-percent": ("GET /% HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_bad_escape()),
    "not-utf8": ("GET /%ff%fe.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_utf8()),
    "surrogate": ("GET /%ed%a0%80.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_utf8()),
    "overlong-utf8-dots": ("GET /%c0%ae%c0%ae/etc/passwd HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_utf8()),
    "raw-latin1": ("GET /caf\xe9.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_ascii()),
    "dot-dot": ("GET /../../etc/passwd HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_dot_segment()),
    "escaped-dot-dot": ("GET /%2e%2e/%2E%2E/etc/passwd HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_dot_segment()),
    "escaped-slash": ("GET /..%2f..%2fetc%2fpasswd HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_dot_segment()),
    "dot": ("GET /./bars.html HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_dot_segment()),
    "double-slash": ("GET //evil.example/%2e%2e HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_dot_segment()),
    "absolute-url": ("GET http://{host}/__chartc/status HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_a_path()),
    "foreign-url": ("GET http://evil.example/ HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_a_path()),
    "asterisk": ("OPTIONS * HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_a_path()),
    "connect": ("CONNECT evil.example:443 HTTP/1.1\r\n" + HOST_LINE, 400, msg.serve_target_not_a_path()),
    "long-target": (f"GET /{'a' * MAX_TARGET} HTTP/1.1\r\n" + HOST_LINE, 414, msg.serve_target_too_long(MAX_TARGET)),
    "huge-request-line": (f"GET /{'a' * (HEAD_BYTES + 10)} HTTP/1.1\r\n" + HOST_LINE, 414,
                          msg.serve_target_too_long(MAX_TARGET)),
    "long-file-name": (f"GET /{'a' * 300}.html HTTP/1.1\r\n" + HOST_LINE, 404, None),
    "huge-headers": ("GET / HTTP/1.1\r\nHost: {host}\r\n" + ("X-Pad: " + "a" * 1000 + "\r\n") * 70 + "\r\n", 431,
                     msg.serve_head_too_large(HEAD_BYTES)),
    "many-headers": ("GET / HTTP/1.1\r\nHost: {host}\r\n" + "X: y\r\n" * 150 + "\r\n", 431, None),
    "tls-hello": ("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400, msg.serve_bad_request_line()),
    "http-0.9": ("GET /\r\n\r\n", 400, msg.serve_bad_request_line()),
    "empty-line": ("\r\n", 400, msg.serve_bad_request_line()),
    "bad-version": ("GET / HTTP/1.x\r\n" + HOST_LINE, 400, None),
    "http-2": ("GET / HTTP/2.0\r\n" + HOST_LINE, 505, None),
    "post": ("POST / HTTP/1.1\r\nHost: {host}\r\nContent-Length: 3\r\n\r\nabc", 501, None),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_request_gets_a_plain_text_error_and_the_server_lives_on(name, tmp_path, capfd):
    template, status, reason = HOSTILE[name]
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        raw = raw_request(port, template.replace("{host}", f"127.0.0.1:{port}").encode("latin-1"))
        code, headers, body = split_response(raw)
        assert code == status, raw[:300]
        assert headers["content-type"] == "text/plain; charset=utf-8"
        assert headers["x-content-type-options"] == "nosniff"
        if reason is not None:
            assert body == error_body(status, reason)
        else:
            assert body.startswith(f"{status} {HTTPStatus(status).phrase}: ".encode()) and body.count(b"\n") == 1
        assert get_status(port) == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "a request failed" not in err, err


@pytest.mark.parametrize("host_lines, version, status", [
    (["127.0.0.1:{port}"], "1.1", 200),
    (["localhost:{port}"], "1.1", 200),
    (["LocalHost:{port}"], "1.0", 200),
    (["[::1]:{port}"], "1.1", 200),
    (["rebind.example:{port}"], "1.1", 403),      # DNS rebinding: the attacker's name, this address and port
    (["127.0.0.1"], "1.1", 403),                   # browsers always send the port: it is not 80
    (["localhost"], "1.0", 403),
    (["127.0.0.1:1"], "1.1", 403),
    (["127.0.0.1.:{port}"], "1.1", 403),
    (["127.0.0.1:{port}@rebind.example"], "1.1", 403),
    ([], "1.1", 400),
    ([], "1.0", 400),                              # HTTP/1.0 without Host is refused too
    (["127.0.0.1:{port}", "rebind.example"], "1.1", 400),
], ids=lambda value: "+".join(value) if isinstance(value, list) else str(value))
def test_only_requests_for_this_server_by_name_and_port_are_answered(host_lines, version, status, tmp_path):
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        headers = "".join(f"Host: {line.replace('{port}', str(port))}\r\n" for line in host_lines)
        for path in (STATUS_PATH, "/bars.html"):
            raw = raw_request(port, f"GET {path} HTTP/{version}\r\n{headers}\r\n".encode())
            code, _, body = split_response(raw)
            assert code == status
            if status == 403:
                assert body == error_body(403, msg.serve_host_refused(port))
            elif status == 400:
                assert body == error_body(400, msg.serve_host_missing())
            else:
                assert b"version" in body or b"Bars" in body


@pytest.mark.slow
def test_chartc_serve_refuses_a_rebound_host_and_answers_a_nul_path_with_400(served):
    server, _ = served
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    for path in ("/", "/bars.html", "/points.fits.json", "/manifest.json", STATUS_PATH):
        raw = raw_request(port, f"GET {path} HTTP/1.1\r\nHost: rebind.example:{port}\r\n\r\n".encode())
        assert split_response(raw)[::2] == (403, error_body(403, msg.serve_host_refused(port)))
    raw = raw_request(port, f"GET /%00.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    assert split_response(raw)[::2] == (400, error_body(400, msg.serve_target_control()))
    assert "Bars" in server.get("bars.html")  # still serving; the fixture checks stderr has no traceback


def test_refuse_target_and_refuse_host_accept_what_a_browser_sends():
    for target in ("/", "/index.html", "/bars.html?previous", "/bars%20chart.html", "/caf%C3%A9.html",
                   "/__chartc/status", "/sub/dir/", "/a..b.html", "/bars.html?x=%zz"):
        assert refuse_target(target) is None, target
    assert refuse_target("/" + "a" * (MAX_TARGET - 1)) is None
    assert refuse_host(["127.0.0.1:8000"], 8000) is None and refuse_host([" localhost:8000 "], 8000) is None


def test_an_idle_client_is_disconnected_after_the_head_deadline(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module, "HEAD_SECONDS", 0.3)
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as idle:
            started = time.monotonic()
            assert idle.recv(100) == b""  # closed, no answer
            elapsed = time.monotonic() - started
        assert 0.2 < elapsed < 3, elapsed
        assert get_status(port) == 200


def test_a_trickling_client_is_disconnected_at_the_deadline_not_reset_by_each_byte(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module, "HEAD_SECONDS", 0.5)
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            started = time.monotonic()
            slow.sendall(f"GET {STATUS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            slow.settimeout(0.05)
            closed = False
            while not closed and time.monotonic() - started < 10:
                try:
                    slow.sendall(b"X: y\r\n")
                    closed = slow.recv(100) == b""
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
            elapsed = time.monotonic() - started
        assert closed and 0.4 < elapsed < 3, elapsed
        assert get_status(port) == 200


def handler_threads(port: int) -> int:
    return sum(thread.name.startswith(f"chartc-serve-{port}_") for thread in threading.enumerate())


@pytest.mark.slow
def test_handler_threads_are_capped_and_extra_connections_wait_their_turn(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module, "MAX_HANDLERS", 2)
    monkeypatch.setattr(serve_module, "HEAD_SECONDS", 0.4)
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        most = 0
        idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(6)]
        try:
            started = time.monotonic()
            answer: list[int] = []
            asking = threading.Thread(target=lambda: answer.append(get_status(port)))
            asking.start()
            while asking.is_alive() and time.monotonic() - started < 20:
                most = max(most, handler_threads(port))
                time.sleep(0.01)
            asking.join()
        finally:
            for sock in idle:
                sock.close()
        assert answer == [200]
        assert most == 2
        # three rounds of two idle connections, each held to the deadline, then the request
        assert 1.0 < time.monotonic() - started < 10


@pytest.mark.slow
def test_a_burst_of_connections_waits_in_the_backlog_and_every_one_is_answered(tmp_path, monkeypatch):
    monkeypatch.setattr(serve_module, "MAX_HANDLERS", 1)
    monkeypatch.setattr(serve_module, "HEAD_SECONDS", 1.0)
    with local_server(tmp_path / "out") as server:
        port = server.server_address[1]
        request = f"GET {STATUS_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        with socket.create_connection(("127.0.0.1", port), timeout=10):  # holds the one handler for 1 s
            time.sleep(0.1)
            burst = []
            try:
                for _ in range(100):  # a full backlog drops SYNs: connect() would wait 1 s for a retry
                    sock = socket.create_connection(("127.0.0.1", port), timeout=0.5)
                    sock.sendall(request)
                    burst.append(sock)
                answers = []
                for sock in burst:
                    sock.settimeout(10)
                    answers.append(split_response(b"".join(iter(lambda s=sock: s.recv(65536), b"")))[0])
            finally:
                for sock in burst:
                    sock.close()
        assert answers == [200] * 100


# ------------------------------------------------------------ convergence

@contextlib.contextmanager
def watching(out: Path, monkeypatch, during: dict):
    """A watcher and a server in this process over ./specs; `during[n]()` runs inside build n.

    The real build runs first (in this process), so what `during` writes lands
    after the build read the files: a save in the middle of a build.
    """
    from chartc.commands import gallery

    real = gallery.build_gallery
    builds: list[int] = []

    def build_gallery(specs, folder, **options):
        report = real(specs, folder, jobs=0)
        builds.append(len(builds) + 1)
        if len(builds) in during:
            during[len(builds)]()
        return report

    monkeypatch.setattr(gallery, "build_gallery", build_gallery)
    out.mkdir(exist_ok=True)
    state = ServeState(out.resolve())
    stop = threading.Event()
    lines: list[str] = []
    watcher = Watcher(["specs"], state, stop, log=lambda *args, **_: lines.append(" ".join(map(str, args))))
    server = make_server(state, 0)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    watcher.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}/", builds, lines
    finally:
        stop.set()
        watcher.join(60)
        server.shutdown()
        server.server_close()


def wait_quiet(state: ServeState, above: int = 0, quiet: float = 1.0, timeout: float = 60) -> int:
    """The version once a build newer than `above` finished and no other ran for `quiet` seconds."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = (state.version, state.building)
        if now != last:
            last, since = now, time.monotonic()
        elif state.version > above and not state.building and time.monotonic() - since >= quiet:
            return state.version
        time.sleep(0.05)
    raise AssertionError(f"builds did not stop within {timeout} s (version {state.version})")


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode("utf-8")


def bars_in_specs(root: Path, monkeypatch) -> Path:
    """root/specs/bars.yaml holding BARS, root the working folder (as `watching` expects)."""
    monkeypatch.chdir(root)
    (root / "specs").mkdir()
    spec = root / "specs" / "bars.yaml"
    spec.write_text(BARS)
    return spec


@pytest.mark.slow
def test_a_spec_saved_during_a_build_is_built_next_and_served(tmp_path, monkeypatch):
    spec = bars_in_specs(tmp_path, monkeypatch)
    during = {1: lambda: write_later(spec, BARS.replace("title: Bars", "title: Bars, saved during the build"))}
    with watching(tmp_path / "out", monkeypatch, during) as (state, url, builds, lines):
        wait_quiet(state)
        assert "Bars, saved during the build" in fetch(url + "bars.html")
        assert builds == [1, 2]  # once more, then quiet: no rebuild loop
        assert msg.serve_changed([os.path.join("specs", "bars.yaml")]) in lines


@pytest.mark.slow
def test_a_save_that_keeps_mtime_and_size_is_seen(tmp_path, monkeypatch):
    # cp -p, tar and rsync -t put the old mtime back; same-length text keeps the size
    spec = bars_in_specs(tmp_path, monkeypatch)

    def same_stamp():
        before = spec.stat()
        spec.write_text(BARS.replace("title: Bars", "title: Sbar"))
        os.utime(spec, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert (spec.stat().st_mtime_ns, spec.stat().st_size) == (before.st_mtime_ns, before.st_size)

    with watching(tmp_path / "out", monkeypatch, {1: same_stamp}) as (state, url, builds, _):
        wait_quiet(state)
        assert "Sbar" in fetch(url + "bars.html")
        assert builds == [1, 2]


@pytest.mark.slow
def test_a_save_within_one_timestamp_tick_is_seen(tmp_path, monkeypatch):
    # On FAT (2 s), HFS+ and some network file systems (1 s) a second save can
    # keep every timestamp: with a stat that never moves, only the content tells.
    monkeypatch.setattr(serve_module, "stat_key", lambda stat: (stat.st_size, stat.st_ino))
    spec = bars_in_specs(tmp_path, monkeypatch)
    during = {1: lambda: spec.write_text(BARS.replace("title: Bars", "title: Rabs"))}
    with watching(tmp_path / "out", monkeypatch, during) as (state, url, builds, _):
        wait_quiet(state)
        assert "Rabs" in fetch(url + "bars.html")
        assert builds == [1, 2]


@pytest.mark.slow
def test_a_save_that_truncates_then_pauses_before_writing_builds_only_what_it_wrote(tmp_path, monkeypatch):
    # Python's write_text, most editors and shell redirections truncate the file,
    # then write it: on a busy machine the writer can be paused in between for
    # longer than a settle. The empty file is not a save to build.
    spec = bars_in_specs(tmp_path, monkeypatch)
    with watching(tmp_path / "out", monkeypatch, {}) as (state, url, builds, lines):
        wait_quiet(state, quiet=0.2)
        with open(spec, "w") as stream:
            time.sleep(10 * serve_module.SETTLE_SECONDS)  # empty meanwhile: several polls and settles see it
            stream.write(BARS.replace("title: Bars", "title: Bars, written after a pause"))
        wait_quiet(state, above=1, quiet=0.5)
        assert "Bars, written after a pause" in fetch(url + "bars.html")
        assert builds == [1, 2] and state.failures == {}
        assert not any("E113" in line for line in lines)


@pytest.mark.slow
def test_a_spec_read_half_saved_by_a_build_shows_no_failure_and_is_built_again(tmp_path, monkeypatch):
    # The save truncated the spec and the build read it empty; the save writes
    # its text once the build ran. What the build found is not the user's error.
    spec = bars_in_specs(tmp_path, monkeypatch)
    published = []
    publish = ServeState.publish
    monkeypatch.setattr(ServeState, "publish", lambda state: (published.append(sorted(state.failures)), publish(state)))
    during = {2: lambda: spec.write_text(BARS.replace("title: Bars", "title: Bars, the rest of the save"))}
    with watching(tmp_path / "out", monkeypatch, during) as (state, url, builds, lines):
        wait_quiet(state, quiet=0.2)
        spec.write_text("")  # empty for longer than every settle: the build reads it so
        wait_quiet(state, above=2, quiet=0.5)
        assert "Bars, the rest of the save" in fetch(url + "bars.html")
        assert builds == [1, 2, 3] and len(published) >= 3 and all(failures == [] for failures in published)
        assert not any("E113" in line for line in lines)


@pytest.mark.slow
def test_a_data_file_the_first_build_meets_and_saved_during_it_is_built_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    specs = tmp_path / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "points.yaml").write_text(POINTS_SPEC)
    (specs / "data" / "points.csv").write_text(POINTS)
    during = {1: lambda: write_later(specs / "data" / "points.csv", POINTS + "6,12.2\n")}
    with watching(tmp_path / "out", monkeypatch, during) as (state, url, builds, _):
        wait_quiet(state)
        assert '"n": 6' in fetch(url + "points.fits.json")
        assert builds == [1, 2]


@pytest.mark.slow
def test_the_watcher_survives_a_failing_poll_and_reports_it_once(tmp_path, monkeypatch):
    spec = bars_in_specs(tmp_path, monkeypatch)
    error = PermissionError(13, "Permission denied", "specs")
    broken = threading.Event()
    real = serve_module.watched_files

    def watched_files(specs, out):
        if broken.is_set():
            raise error
        return real(specs, out)

    monkeypatch.setattr(serve_module, "watched_files", watched_files)
    with watching(tmp_path / "out", monkeypatch, {}) as (state, url, builds, lines):
        wait_quiet(state, quiet=0.5)
        broken.set()
        time.sleep(1.0)  # five polls fail
        broken.clear()
        version = state.version
        write_later(spec, BARS.replace("title: Bars", "title: Bars, after the failure"))
        wait_quiet(state, version, quiet=0.5)
        assert "Bars, after the failure" in fetch(url + "bars.html")
    assert lines.count(msg.serve_watch_failed(f"PermissionError: {error}")) == 1


@pytest.mark.slow
def test_serve_waits_out_another_build_of_its_folder_then_builds(tmp_path, monkeypatch):
    """A `chartc build` holding the folder's lock: serve says so once and builds when it is released."""
    from chartc.commands.gallery.lock import release_lock, take_lock

    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "bars.yaml").write_text(BARS)
    out = tmp_path / "out"
    out.mkdir()
    held = take_lock(out)  # as another build would
    try:
        with watching(out, monkeypatch, {}) as (state, url, builds, lines):
            time.sleep(1.0)
            assert state.version == 0 and not (out / "bars.html").exists()
            waiting = [line for line in lines if msg.build_locked(str(out.resolve()), str(os.getpid())) in line]
            assert len(waiting) == 1, lines  # said once, not at every poll
            release_lock(out, held)
            held = None
            wait_quiet(state)
            assert "Bars" in fetch(url + "bars.html")
    finally:
        if held is not None:
            release_lock(out, held)


def test_a_preview_draft_compiles_to_the_same_vega_lite_as_the_build():
    from chartc.pipeline import compile_spec

    spec = Path(__file__).resolve().parent.parent / "specs" / "seed_pretraining.yaml"
    assert compile_spec(spec, full=False, draft=True).vega_lite == compile_spec(spec, full=False).vega_lite


def test_the_build_after_a_preview_waits_until_an_open_page_asked_about_it(tmp_path):
    state = ServeState(tmp_path, building=False)
    state.publish()
    started = time.monotonic()
    state.wait_shown(1, 0.2)  # no page asked: the whole wait
    assert time.monotonic() - started >= 0.2
    threading.Timer(0.05, state.wait_newer, (1, 0.0)).start()  # the page drew version 1 and asks for the next
    started = time.monotonic()
    state.wait_shown(1, 5.0)
    assert time.monotonic() - started < 2.0 and state.asked == 1
