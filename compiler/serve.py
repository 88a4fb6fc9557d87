"""`chartc serve`: the gallery on a local web server, rebuilt and reloaded on save.

    spec files ──poll (200 ms)──▶ changed? ──build_gallery──▶ out folder
    browser ◀── pages + a small script that polls /__chartc/version ──┘

Built only on `gallery` (and so on `pipeline`): a served chart is exactly what
``chartc build`` writes. The server listens on the loopback interface only.
Every served HTML page gets a script that asks for the build version every
200 ms and reloads the page when it changed, so a saved spec shows up in the
browser well within a second. A spec with problems is served as a page of its
diagnostics (file, line, column, spec path, message, hint) instead of its
chart; the last good chart stays on disk and is served at ``STEM.html?previous``.
"""

from __future__ import annotations

import functools
import html
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from . import errors as msg
from .errors import SpecError

HOST = "127.0.0.1"
POLL_SECONDS = 0.2          # how often spec and data files are checked
SETTLE_SECONDS = 0.05       # wait after a change so a half-written file is not built
VERSION_PATH = "/__chartc/version"
STATUS_PATH = "/__chartc/status"

# Injected before </body> of every served HTML page: reload when a build finished.
RELOAD_SCRIPT = """<script>
(function () {{
  var version = {version};
  function poll() {{
    fetch("{path}", {{cache: "no-store"}})
      .then(function (response) {{ return response.text(); }})
      .then(function (text) {{
        if (text.trim() !== String(version)) {{ location.reload(); }} else {{ setTimeout(poll, 200); }}
      }})
      .catch(function () {{ setTimeout(poll, 1000); }});
  }}
  setTimeout(poll, 200);
}})();
</script>
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{title}</title>
<style>
  body {{ font-family: system-ui, sans-serif; margin: 24px; color: #222; }}
  a {{ color: #1f5fa8; }}
  .problems {{ border: 1px solid #e0b4b4; background: #fff6f6; border-radius: 6px; padding: 8px 16px; }}
  .problems li {{ margin: 6px 0; }}
  .diagnostic {{ font-family: ui-monospace, monospace; white-space: pre-wrap; }}
  .where {{ color: #555; }}
  .message {{ color: #b00020; }}
  .hint {{ color: #3c6e28; }}
  pre.source {{ background: #f6f8fa; border: 1px solid #ddd; padding: 8px; overflow: auto; }}
  .mark {{ background: #ffe9a8; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


@dataclass
class ServeState:
    """What the watcher built, read by the request handlers.

    Handlers only read; the watcher replaces whole values, so a reader never
    sees a half-updated dict.
    """

    out: Path
    version: int = 0
    building: bool = True
    failures: dict[str, SpecError] = field(default_factory=dict)  # stem -> problems
    spec_of: dict[str, str] = field(default_factory=dict)          # stem -> spec path (for pages)
    problems: list[str] = field(default_factory=list)               # build problems not tied to a chart


# ------------------------------------------------------------------ watching

def find_specs(paths: list[str]) -> list[Path]:
    """The spec files under `paths` now (folders rescanned; missing files skipped)."""
    from .cli import UsageError, spec_files

    found: list[Path] = []
    for name in paths:
        try:
            found.extend(spec_files([name]))
        except UsageError:
            continue
    return list(dict.fromkeys(found))


def watched_files(specs: list[Path], out: Path) -> list[Path]:
    """The spec files plus every data file the gallery's manifest says a chart read."""
    from .manifest import read_manifest

    files = [Path(os.path.abspath(spec)) for spec in specs]
    manifest = read_manifest(out)
    if manifest is not None:
        for record in manifest.charts.values():
            files.extend(Path(os.path.normpath(out / key)) for key in record.inputs if not key.startswith("dataset:"))
    return list(dict.fromkeys(files))


def snapshot(files: list[Path]) -> dict[str, tuple[int, int] | None]:
    """path -> (mtime_ns, size), or None for a file that is gone."""
    stamps: dict[str, tuple[int, int] | None] = {}
    for path in files:
        try:
            stat = path.stat()
            stamps[str(path)] = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            stamps[str(path)] = None
    return stamps


class Watcher(threading.Thread):
    """Builds the gallery once, then again whenever a spec or data file changes."""

    def __init__(self, paths: list[str], state: ServeState, stop: threading.Event, *, log=None):
        super().__init__(name="chartc-serve-watcher", daemon=True)
        self.paths = paths
        self.state = state
        self.stop = stop
        self.log = log or say

    def run(self) -> None:
        stamps = self.build()
        while not self.stop.wait(POLL_SECONDS):
            specs = find_specs(self.paths)
            now = snapshot(watched_files(specs, self.state.out))
            if now == stamps:
                continue
            time.sleep(SETTLE_SECONDS)
            changed = sorted(name for name in set(now) | set(stamps) if now.get(name) != stamps.get(name))
            self.log(msg.serve_changed([os.path.relpath(name) for name in changed]))
            stamps = self.build()

    def build(self) -> dict:
        """Build the gallery, publish the result, return the stamps it was built from."""
        from .gallery import build_gallery, output_stem

        started = time.perf_counter()
        specs = find_specs(self.paths)
        stamps = snapshot(watched_files(specs, self.state.out))  # before reading: a save during the build rebuilds
        state = self.state
        try:
            report = build_gallery(specs, state.out)
        except Exception as error:  # keep serving the last good gallery whatever a build does
            state.problems = [msg.serve_build_crashed(f"{type(error).__name__}: {error}")]
            self.log(state.problems[0], file=sys.stderr)
        else:
            for line in report.problems:
                self.log(line, file=sys.stderr)
            tied = {problem.diagnostic() for error in report.failures.values() for problem in error.errors}
            state.failures = dict(report.failures)
            state.spec_of = {output_stem(spec): str(spec) for spec in specs}
            state.problems = [line for line in report.problems if line not in tied and ": warning: " not in line]
        # Data files the build just met join the watch list as they are now; files
        # stamped before the build keep those stamps, so a save during it rebuilds.
        stamps = {**snapshot(watched_files(specs, state.out)), **stamps}
        state.building = False
        state.version += 1
        self.log(msg.serve_built(len(specs), len(state.failures), time.perf_counter() - started))
        return stamps


# ------------------------------------------------------------------- serving

class Handler(SimpleHTTPRequestHandler):
    """Static files from the gallery folder, live-reload script and diagnostics added."""

    state: ServeState  # set on the subclass `make_handler` builds

    def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
        pass  # quiet: the terminal shows builds and problems, not every request

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # a rebuilt thumbnail is never served stale
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        url = urlsplit(self.path)
        path = unquote(url.path)
        if path == VERSION_PATH:
            return self.send_text(str(self.state.version), "text/plain")
        if path == STATUS_PATH:
            return self.send_text(json.dumps(self.status(), sort_keys=True), "application/json")
        if path == "/favicon.ico":
            self.send_response(HTTPStatus.NO_CONTENT)
            return self.end_headers()
        if path in ("/", "/index.html"):
            return self.send_page(self.index_page())
        name = path.lstrip("/")
        if "/" not in name and name.endswith(".html"):
            stem = name[:-len(".html")]
            failure = self.state.failures.get(stem)
            if failure is not None and "previous" not in parse_qs(url.query, keep_blank_values=True):
                return self.send_page(self.problems_page(stem, failure))
            target = self.state.out / name
            if target.is_file():
                return self.send_page(target.read_text(encoding="utf-8"))
        return super().do_GET()

    def status(self) -> dict:
        state = self.state
        return {"version": state.version, "building": state.building,
                "failures": {stem: [p.diagnostic() for p in error.errors] for stem, error in state.failures.items()},
                "problems": state.problems}

    def send_text(self, text: str, kind: str) -> None:
        body = text.encode("utf-8")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_page(self, page: str) -> None:
        script = RELOAD_SCRIPT.format(version=self.state.version, path=VERSION_PATH)
        at = page.rfind("</body>")
        page = page[:at] + script + page[at:] if at >= 0 else page + script
        self.send_text(page, "text/html")

    def index_page(self) -> str:
        state = self.state
        index = state.out / "index.html"
        banner = problems_banner(state)
        if not index.is_file():
            text = "Building the gallery..." if state.building else "No charts yet."
            return PAGE.format(title="chartc serve", body=f"<h1>chartc gallery</h1>\n{banner}<p>{text}</p>")
        page = index.read_text(encoding="utf-8")
        at = page.find("<h1>")
        return page[:at] + banner + page[at:] if banner and at >= 0 else page

    def problems_page(self, stem: str, error: SpecError) -> str:
        spec = self.state.spec_of.get(stem, stem)
        previous = (self.state.out / f"{stem}.html").is_file()
        return diagnostics_page(spec, stem, error.errors, previous=previous)


def problems_banner(state: ServeState) -> str:
    """A box at the top of the index listing every spec with problems ('' when none)."""
    items = [f'<li><a href="{html.escape(stem, quote=True)}.html">{html.escape(state.spec_of.get(stem, stem))}</a>: '
             f'{html.escape(msg.serve_problem_count(len(error.errors)))}</li>'
             for stem, error in sorted(state.failures.items())]
    items += [f'<li class="diagnostic">{html.escape(line)}</li>' for line in state.problems]
    if not items:
        return ""
    return '<div class="problems" id="chartc-problems">\n<ul>\n' + "\n".join(items) + "\n</ul>\n</div>\n"


def diagnostics_page(spec: str, stem: str, problems: list[SpecError], *, previous: bool) -> str:
    """The page served instead of a chart whose spec has problems.

    Every problem shows its file, line and column, spec path, message and
    hint, with the spec line it points at; all text is HTML-escaped.
    """
    items = []
    for problem in problems:
        where = problem.location
        position = f"{where.file}:{where.line}:{where.column}" if where else spec
        hint = f'\n<span class="hint">hint: {html.escape(problem.hint)}</span>' if problem.hint else ""
        items.append(
            f'<li class="diagnostic" data-line="{where.line if where else ""}" '
            f'data-column="{where.column if where else ""}">'
            f'<span class="where">{html.escape(position)}</span>: {html.escape(problem.severity)}: '
            f'<code>{html.escape(msg.format_path(problem.path))}</code>: '
            f'<span class="message">{html.escape(problem.message)}</span>{hint}'
            f"{_source_excerpt(where)}</li>")
    name = html.escape(stem, quote=True)
    keep = (f'<p>The last good chart is still there: <a id="previous" href="{name}.html?previous">{name}.html</a></p>'
            if previous else "")
    body = (f'<nav><a href="index.html">&larr; gallery</a></nav>\n'
            f"<h1>{html.escape(spec)}: {html.escape(msg.serve_problem_count(len(problems)))}</h1>\n"
            f'<div class="problems" id="chartc-problems">\n<ul>\n' + "\n".join(items) + "\n</ul>\n</div>\n"
            f"{keep}\n<p>Fix the spec and save: this page reloads by itself.</p>")
    return PAGE.format(title=html.escape(f"{Path(spec).name}: problems"), body=body)


def _source_excerpt(where) -> str:
    """The spec line a problem points at, with a caret under the column."""
    if where is None:
        return ""
    try:
        lines = Path(where.file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    if not 1 <= where.line <= len(lines):
        return ""
    line = lines[where.line - 1]
    caret = " " * max(where.column - 1, 0) + "^"
    return f'\n<pre class="source">{where.line:>4} | {html.escape(line)}\n     | {caret}</pre>'


def make_server(state: ServeState, port: int) -> ThreadingHTTPServer:
    """An HTTP server on 127.0.0.1:`port` (0: a free port) serving `state.out`.

    Raises:
        OSError: the port cannot be bound.
    """
    handler = type("ChartcHandler", (Handler,), {"state": state})
    server = ThreadingHTTPServer((HOST, port), functools.partial(handler, directory=str(state.out)))
    server.daemon_threads = True
    return server


def say(*args, file=None, **kwargs) -> None:
    """print(), flushed: the address and build lines must reach a pipe at once."""
    print(*args, file=file or sys.stdout, flush=True, **kwargs)


def serve(paths: list[str], *, port: int = 0, out: str | None = None, log=say) -> int:
    """Serve the gallery of `paths`, rebuilding on every save, until SIGINT or SIGTERM.

    Args:
        paths: spec files or folders (folders are rescanned, so new specs appear).
        port: the port to listen on; 0 picks a free one.
        out: the gallery folder; None builds into a temporary folder removed at exit.
        log: print-like function for status lines.

    Returns:
        The exit code: 0 after a clean stop.

    Raises:
        OSError: the port cannot be bound.
    """
    folder = Path(out) if out else Path(tempfile.mkdtemp(prefix="chartc-serve-"))
    folder.mkdir(parents=True, exist_ok=True)
    state = ServeState(folder.resolve())
    try:
        server = make_server(state, port)
    except OSError:
        if not out:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    http_thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                   name="chartc-serve-http", daemon=True)
    watcher = Watcher(paths, state, stop, log=log)
    try:
        http_thread.start()
        log(msg.serve_listening(f"http://{HOST}:{server.server_address[1]}/"))
        watcher.start()
        while not stop.wait(0.5):
            pass
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
        watcher.join(timeout=60)  # a build in progress finishes: vl-convert cannot be interrupted
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if not out:
            shutil.rmtree(folder, ignore_errors=True)
        log(msg.serve_stopped())
    return 0
