"""`chartc serve`: the gallery on a local web server, rebuilt and shown again on save.

    spec files ──stat (15 ms)──▶ changed? ──build_gallery──▶ out folder
    browser ◀── pages + a script holding /__chartc/version?after=N ──┘

Built only on `gallery` (and so on `pipeline`): a served chart is exactly what
``chartc build`` writes, rendered by the worker processes the gallery keeps
warm between builds (only the charts whose inputs changed are rendered
again). The server listens on the loopback interface only.

Every served HTML page gets a script that asks for the version after its own;
the server holds that request until a build finishes (at most HOLD_SECONDS,
at most MAX_HELD at once; the others are answered at once and the page asks
again later). A chart page then fetches itself and swaps its body in place,
so the browser keeps its parsed Vega bundle and the chart is drawn again in a
few milliseconds; any other page (the index, a page of diagnostics) reloads.
A spec with problems is served as a page of its diagnostics (file, line,
column, spec path, message, hint) instead of its chart; the last good chart
stays on disk and is served at ``STEM.html?previous``.

It always converges to the last save: before each build the watcher records
every watched file as it is (stat, and a content hash while a timestamp could
still hide a second save); a file that differs from that record afterwards,
or that the build met for the first time and that may have changed while it
ran, starts another build. A save under way is not shown as the user's error:
a spec found empty (truncated, not yet written) is waited for, and the failure
of a spec that changed while the build read it is not published.

Listening on 127.0.0.1 does not keep other web sites out: through DNS
rebinding a page in the user's browser can reach it under its own host name.
So a request is answered only when its Host header names this server
(``127.0.0.1:PORT``, ``localhost:PORT`` or ``[::1]:PORT``; anything else is
403). A request without exactly one Host header is refused with 400, HTTP/1.0
ones included: every browser sends Host, and without it nothing tells which
name the client used. Request targets are checked before any file lookup
(see `refuse_target`); every error is a short plain-text body.
"""

from __future__ import annotations

import functools
import hashlib
import html
import io
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs, unquote, unquote_to_bytes, urlsplit

from .. import errors as msg
from ..errors import SpecError
from ..infra.html import page
from . import gallery  # as `gallery.build_gallery`, looked up at each build
from ..infra.datahash import glob_matches
from .manifest import GLOB_INPUT, MANIFEST_NAME, read_manifest
from .specs import UsageError, spec_files

HOST = "127.0.0.1"
# How often spec and data files are checked: a stat of the few watched files
# (the folder listing and the manifest are read again only when they change).
# A save waits half of it on average; serve's CPU at idle is about 2% of a core
# at 15 ms, 1.5% at 25 ms, 3.3% at 10 ms (benchmarks/bench_editor.py measures it).
POLL_SECONDS = 0.015
# A changed file is built once its stat stayed the same for this long (a file
# still being written keeps changing) and it is not empty (a save truncates the
# file before it writes: an editor or a script paused between the two would
# otherwise have an empty spec built and its diagnostics shown), or after
# SETTLE_MAX_SECONDS at most.
SETTLE_SECONDS = 0.02
SETTLE_MAX_SECONDS = 0.5
# Seconds the build after a save waits for an open page to draw the save's preview:
# the build's renders would take the cores the browser draws with.
PREVIEW_DRAW_SECONDS = 0.5
# The watched files are listed again (folders scanned, manifest read) at least this often.
RELIST_SECONDS = 1.0
# A file changed this recently can change again without its mtime, ctime or size
# moving (timestamps tick every 2 s on FAT, 1 s on HFS+ and some network file
# systems, a few ms on ext4): its content is hashed too, so that save is seen.
RACY_SECONDS = 2.0
VERSION_PATH = "/__chartc/version"
STATUS_PATH = "/__chartc/status"

# Connections the kernel holds while every handler is busy. Python's default of
# 5 left a burst of browser or script requests to SYN retries: 1, 3, 7 s waits.
LISTEN_BACKLOG = 128
# Requests handled at once, by a pool of threads. More connections wait in the
# backlog (never an unbounded number of threads); every request is short.
MAX_HANDLERS = 32
# Seconds a client has for its whole request line and headers, counted from
# when a handler takes the connection: an idle or trickling client gives the
# handler back (a socket timeout alone restarts with every byte).
HEAD_SECONDS = 10.0
# Seconds one write of a response may take: a client that stops reading.
SEND_SECONDS = 10.0
# Bytes of request line and headers read at most: a browser sends a few KiB
# (cookies for localhost included); the default allows 100 lines of 64 KiB.
HEAD_BYTES = 64 * 1024
# Characters of a request target: the gallery's URLs are short file names.
MAX_TARGET = 4096
# Characters of an error explanation echoed in a response body.
MAX_REASON = 200
# Seconds a version request with ?after=N is held waiting for a newer build;
# the page then asks again. Below the browser's and proxies' idle timeouts.
HOLD_SECONDS = 25.0
# Version requests held at once: each holds a handler thread, so most of the
# MAX_HANDLERS stay free for pages. More are answered at once.
MAX_HELD = 8
# Digits of the ?after= version a held request may name.
AFTER = re.compile(r"(?:^|&)after=([0-9]{1,12})(?:&|$)")

# Injected before </body> of every served HTML page. It holds a request for the
# version after its own; when a build finished, a chart page (one #chart, the
# same external scripts) swaps in the new body and runs its inline scripts
# again, keeping the loaded Vega bundle; any other page reloads. A request
# answered at once with the same version (the server holds no more) is asked
# again after a second.
RELOAD_SCRIPT = """<script id="chartc-reload" data-version="{version}">
(function () {{
  var version = {version};
  function sources(doc) {{
    return Array.prototype.map.call(doc.querySelectorAll("script[src]"), function (s) {{
      return s.getAttribute("src"); }}).join(" ");
  }}
  var shown = null;  // the page last swapped in, without this script: a build that changed nothing is not drawn again
  function swap(text) {{
    var same = text.replace(/<script id="chartc-reload"[\\s\\S]*?<\\/script>/, "");
    var next = new DOMParser().parseFromString(text, "text/html");
    var mark = next.getElementById("chartc-reload");
    if (!document.getElementById("chart") || !next.getElementById("chart") || !mark
        || sources(next) !== sources(document)) {{ location.reload(); return; }}
    version = Number(mark.getAttribute("data-version"));
    if (same === shown) {{ wait(0); return; }}
    shown = same;
    document.title = next.title;
    var scripts = next.body.querySelectorAll("script:not([src]):not(#chartc-reload)");
    document.body.replaceWith(document.adoptNode(next.body));
    Array.prototype.forEach.call(scripts, function (old) {{
      var run = document.createElement("script");
      run.textContent = old.textContent;
      old.replaceWith(run);
    }});
    window.chartcSwaps = (window.chartcSwaps || 0) + 1;
    wait(0);
  }}
  function wait(delay) {{
    setTimeout(function () {{
      var asked = Date.now();
      fetch("{path}?after=" + version, {{cache: "no-store"}})
        .then(function (response) {{ return response.text(); }})
        .then(function (text) {{
          if (text.trim() === String(version)) {{ wait(Date.now() - asked < 100 ? 1000 : 0); return; }}
          return fetch(location.href, {{cache: "no-store"}})
            .then(function (response) {{ return response.text(); }})
            .then(swap);
        }})
        .catch(function () {{ wait(1000); }});
    }}, delay);
  }}
  wait(0);
}})();
</script>
"""

PAGE_STYLES = """\
  body { font-family: system-ui, sans-serif; margin: 24px; color: #222; }
  a { color: #1f5fa8; }
  .problems { border: 1px solid #e0b4b4; background: #fff6f6; border-radius: 6px; padding: 8px 16px; }
  .problems li { margin: 6px 0; }
  .diagnostic { font-family: ui-monospace, monospace; white-space: pre-wrap; }
  .where { color: #555; }
  .message { color: #b00020; }
  .hint { color: #3c6e28; }
  pre.source { background: #f6f8fa; border: 1px solid #ddd; padding: 8px; overflow: auto; }
  .mark { background: #ffe9a8; }
"""
# serve's own pages load nothing: their styles, their empty icon, and the reload script asking this server
# for the version.
PAGE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'"


def serve_page(title: str, body: str) -> str:
    """One of serve's own pages (waiting for the first build, a chart's problems): `infra.html.page`'s head."""
    return page(title, body + "\n", csp=PAGE_CSP, styles=PAGE_STYLES, icon=True)


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
    previews: dict[str, str] = field(default_factory=dict)          # stem -> chart page of a saved spec, not yet built
    changed: threading.Condition = field(default_factory=threading.Condition, repr=False)  # a build finished
    held: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(MAX_HELD), repr=False)
    closing: bool = False
    watching: int = 0  # version requests held now: pages open, waiting for the next version
    asked: int = 0     # the newest version a page asked about: it has shown that one

    def publish(self) -> None:
        """A build finished: bump the version and answer every held version request."""
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def close(self) -> None:
        """The server stops: held requests are answered now, not at their deadline."""
        with self.changed:
            self.closing = True
            self.changed.notify_all()

    def wait_newer(self, after: int, seconds: float) -> None:
        """Return once the version is not `after`, after `seconds`, or at once when MAX_HELD requests wait."""
        with self.changed:
            self.asked = max(self.asked, after)
            self.changed.notify_all()  # `wait_shown`: a page shows version `after`
        if not self.held.acquire(blocking=False):
            return
        try:
            with self.changed:
                self.watching += 1
                self.changed.wait_for(lambda: self.version != after or self.closing, timeout=seconds)
                self.watching -= 1
        finally:
            self.held.release()

    def wait_shown(self, version: int, seconds: float) -> None:
        """Return once a page asked about `version` (it swapped that version in and drew it), or after `seconds`.

        A page asks for the version after its own only once the swapped-in
        chart ran its scripts: Vega draws inline data in the same turn.
        """
        with self.changed:
            self.changed.wait_for(lambda: self.asked >= version or self.closing, timeout=seconds)


# ------------------------------------------------------------------ watching

def find_specs(paths: list[str]) -> list[Path]:
    """The spec files under `paths` now (folders rescanned; missing files skipped)."""
    found: list[Path] = []
    for name in paths:
        try:
            found.extend(spec_files([name]))
        except UsageError:
            continue
    return list(dict.fromkeys(found))


def watched_files(specs: list[Path], out: Path) -> list[Path]:
    """The spec files plus every data file the gallery's manifest says a chart read (each file a glob matches)."""
    files = [Path(os.path.abspath(spec)) for spec in specs]
    manifest = read_manifest(out)
    if manifest is not None:
        for record in manifest.charts.values():
            files.extend(Path(os.path.normpath(out / key)) for key in record.inputs
                         if not key.startswith(("dataset:", GLOB_INPUT)))
            for key in record.inputs:  # a glob: the files it matches now (one added joins at the next listing)
                if key.startswith(GLOB_INPUT):
                    files.extend(Path(os.path.normpath(out / match))
                                 for match in glob_matches(out, key.removeprefix(GLOB_INPUT)))
    return list(dict.fromkeys(files))


def stat_key(stat: os.stat_result) -> tuple:
    """What a save changes in a file's stat: mtime, ctime (set by the kernel: `cp -p` keeps mtime), size, inode."""
    return (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino)


@dataclass(frozen=True)
class Seen:
    """A watched file as the watcher saw it."""

    stat: tuple | None           # `stat_key`; None: the file is gone
    digest: bytes | None = None  # content hash, taken while the timestamps could hide a save
    changed_ns: int = 0          # its last change by its timestamps (the later of mtime and ctime)


GONE = Seen(None)
# A file the build met for the first time and that may have changed while it ran:
# what the build read is unknown, so it differs from whatever the file is now.
UNSURE = Seen(("unsure",))


def settled(seen: Seen, now_ns: int) -> bool:
    """Whether the file last changed so long before `now_ns` that any later save moves its timestamps."""
    return now_ns - seen.changed_ns >= RACY_SECONDS * 1e9


def look(path: str | Path, before: Seen | None, now_ns: int) -> Seen:
    """`path` as it is at `now_ns`.

    Args:
        path: a spec or data file.
        before: the last record of it, if any: when that one has a content hash
            and the same stat, the content is hashed again to compare.
        now_ns: the wall-clock time of this look (`time.time_ns()`).

    Returns:
        Its stat, with a content hash unless it `settled`; GONE when unreadable.
    """
    try:
        stat = os.stat(path)  # a name, not a Path: the poll's cost is mostly Python's per file
    except OSError:
        return GONE
    seen = Seen(stat_key(stat), None, max(stat.st_mtime_ns, stat.st_ctime_ns))
    compare = before is not None and before.digest is not None and before.stat == seen.stat
    if settled(seen, now_ns) and not compare:
        return seen
    try:
        with open(path, "rb") as stream:
            return replace(seen, digest=hashlib.file_digest(stream, "sha256").digest())
    except OSError:
        return GONE


def look_stat(path: str | Path) -> tuple | None:
    """`stat_key` of `path`, None when it is missing."""
    try:
        return stat_key(os.stat(path))
    except OSError:
        return None


def emptied(names: list[str]) -> bool:
    """Whether any of these files is empty: one a save truncated and has not written yet."""
    for name in names:
        try:
            if os.stat(name).st_size == 0:
                return True
        except OSError:  # gone: not being written
            pass
    return False


def differs(before: Seen, now: Seen) -> bool:
    """Whether the file changed between two looks."""
    if before.stat != now.stat:
        return True
    return before.digest is not None and now.digest is not None and before.digest != now.digest


class Watcher(threading.Thread):
    """Builds the gallery once, then again whenever a spec or data file changes.

    `seen` is the record every poll compares with: each file as it was just
    before the last build started (files the build met for the first time
    join it as they were after it, or UNSURE). A save during a build therefore
    differs from the record and starts the next build.
    """

    def __init__(self, paths: list[str], state: ServeState, stop: threading.Event, *, log=None):
        super().__init__(name="chartc-serve-watcher", daemon=True)
        self.paths = paths
        self.state = state
        self.stop = stop
        self.log = log or say
        self.seen: dict[str, Seen] = {}
        self.failure: str | None = None  # the last watch failure reported (each is reported once)
        self.waiting = False  # the last build found another build holding the folder
        self.listed: list[str] | None = None  # `watched`'s last listing (sorted names), and the stats it was made at
        self.listed_key: tuple = ()
        self.listed_at = 0.0

    def run(self) -> None:
        self.guarded(self.build)
        self.guarded(self.warm)
        while not self.stop.wait(POLL_SECONDS):
            self.guarded(self.check)

    def guarded(self, step) -> None:
        """Run one step; an exception (an unreadable folder, say) is reported and the watching goes on."""
        try:
            step()
        except Exception as error:
            failure = msg.serve_watch_failed(f"{type(error).__name__}: {error}")
            if failure != self.failure:
                self.log(failure, file=sys.stderr)
            self.failure = failure
        else:
            self.failure = None

    def check(self) -> None:
        """Preview, then build, when a watched file differs from the record, once it stopped changing.

        The preview is compiled at once, while the files settle: it is shown
        only if they kept the stats they had when the change was seen for
        SETTLE_SECONDS (the compile itself takes longer), else it is compiled
        again once they settled. The build waits until an open page drew the
        preview (PREVIEW_DRAW_SECONDS at most): its renders would take the
        cores the browser draws with.
        """
        changed = self.poll()
        if not changed:
            return
        first, started = self.stats(changed), time.monotonic()
        show = not self.waiting  # another build holds the folder: nothing is shown until it is ours
        previews = self.previews(changed) if show else {}
        if time.monotonic() - started < SETTLE_SECONDS or self.stats(changed) != first or emptied(changed):
            self.settle(changed)
            if show and self.stats(changed) != first:
                previews = self.previews(changed)
        self.log(msg.serve_changed([os.path.relpath(name) for name in changed]))
        if previews:
            watched = self.state.watching > 0  # a page waits for the next version: it will draw the preview
            self.state.previews = {**self.state.previews, **previews}
            self.state.publish()
            if watched:
                self.state.wait_shown(self.state.version, PREVIEW_DRAW_SECONDS)
        self.build()

    @staticmethod
    def stats(changed: list[str]) -> list:
        """`look_stat` of each changed file."""
        return [look_stat(name) for name in changed]

    def warm(self) -> None:
        """Compile one spec once, so the first save's `preview` does not wait for the compiler's imports."""
        from ..pipeline import compile_spec

        for spec in find_specs(self.paths)[:1]:
            try:
                compile_spec(spec, full=False, draft=True)
            except Exception:  # noqa: BLE001 (the build reported it)
                pass

    def previews(self, changed: list[str]) -> dict[str, str]:
        """The page of every changed spec that compiles, to serve before the build renders its files.

        A chart page draws its chart in the browser from the Vega-Lite it
        holds, so it is the same page the build writes next (same bytes) but
        needs no render: compiled here, in this process, as a draft (no
        renderer, no Vega-Lite schema check: a chart Vega-Lite refuses is
        found by the build that follows, which then serves its diagnostics).
        A spec with problems gets no preview; its diagnostics come with the build.
        """
        from ..pipeline import compile_spec  # the compiler: loaded on the first save, not at start

        specs = {str(Path(os.path.abspath(spec))) for spec in find_specs(self.paths)}
        previews = {}
        for name in changed:
            if name not in specs:
                continue  # a data file: which charts read it is the build's business
            try:
                previews[gallery.output_stem(Path(name))] = gallery.chart_page(
                    compile_spec(name, full=False, draft=True))
            except Exception:  # noqa: BLE001 (any failure is the build's to report, positioned)
                continue
        return previews

    def settle(self, changed: list[str]) -> None:
        """Wait until the changed files' stats stayed the same for SETTLE_SECONDS, none of them empty (SETTLE_MAX_SECONDS at most).

        A file still being written (an editor writing in several calls, a
        copy under way) changes its size or mtime between two looks; one
        truncated and not yet written again is empty.
        """
        deadline = time.monotonic() + SETTLE_MAX_SECONDS
        last = self.stats(changed)
        while time.monotonic() < deadline and not self.stop.wait(SETTLE_SECONDS):
            now = self.stats(changed)
            if now == last and not emptied(changed):
                return
            last = now

    def truncated(self, name: str) -> bool:
        """Whether `name` is empty and was not when last recorded: a save that truncated it and has not written yet."""
        stat = look_stat(name)
        return stat is not None and emptied([name]) and stat != self.seen.get(name, GONE).stat

    @staticmethod
    def resaved(name: str, before: dict[str, Seen]) -> bool:
        """Whether `name` differs from its record `before` the build."""
        return name in before and differs(before[name], look(name, before[name], time.time_ns()))

    def watched(self) -> list[str]:
        """`watched_files` of `find_specs` (their names, sorted), listed again only when a watched path or the manifest changed.

        Every poll stats the watched paths and the manifest (what a new spec
        or a removed one changes: a folder's mtime, a file's stat); listing
        folders and parsing the manifest at every poll would cost more. A
        spec in a subfolder moves no mtime that is checked: the listing is
        made again every RELIST_SECONDS anyway.
        """
        key = tuple(look_stat(name) for name in self.paths) + (look_stat(self.state.out / MANIFEST_NAME),)
        now = time.monotonic()
        if key != self.listed_key or self.listed is None or now - self.listed_at >= RELIST_SECONDS:
            self.listed = sorted({str(path) for path in watched_files(find_specs(self.paths), self.state.out)})
            self.listed_key, self.listed_at = key, now
        return self.listed

    def poll(self) -> list[str]:
        """The watched files that differ from the record, sorted; refreshes the record of the others."""
        files = self.watched()
        now_ns = time.time_ns()
        changed = []
        gone = self.seen.keys() - set(files)  # no longer listed: its removal is a change too
        for name in sorted(gone.union(files)) if gone else files:
            before = self.seen.get(name)
            now = look(name, before, now_ns)
            if before is None or differs(before, now):
                changed.append(name)
            elif now.digest is not None and settled(now, now_ns):
                self.seen[name] = replace(now, digest=None)  # same content; from now on its timestamps tell
        return changed

    def build(self) -> None:
        """Record the watched files, build the gallery, publish the result."""
        started = time.perf_counter()
        started_ns = time.time_ns()
        state = self.state
        state.building = True
        try:
            specs = find_specs(self.paths)
            names = {gallery.output_stem(spec): os.path.abspath(spec) for spec in specs}  # as `watched_files` names them
            truncated = [name for name in names.values() if self.truncated(name)]
            if truncated:  # a save began after the check settled (the preview was being drawn): let it write
                self.settle(truncated)
                started_ns = time.time_ns()
            before = {str(path): look(path, None, started_ns) for path in watched_files(specs, state.out)}
            kept_previews: dict[str, str] = {}
            try:
                report = gallery.build_gallery(specs, state.out)
            except Exception as error:  # keep serving the last good gallery whatever a build does
                state.problems = [msg.serve_build_crashed(f"{type(error).__name__}: {error}")]
                self.log(state.problems[0], file=sys.stderr)
            else:
                if report.locked:  # another `chartc build` writes the folder: try again at the next poll
                    if not self.waiting:
                        self.log(report.problems[0], file=sys.stderr)
                    self.waiting, self.seen = True, {}
                    return
                self.waiting = False
                # A spec saved while the build ran may have been read half
                # written: its failure is not shown (it keeps what it showed
                # before, its preview included); the next poll builds it again.
                unsure = {stem for stem in report.failures if stem in names and self.resaved(names[stem], before)}
                failures = {stem: error for stem, error in report.failures.items() if stem not in unsure}
                hidden = {problem.diagnostic() for stem in unsure for problem in report.failures[stem].errors}
                for line in report.problems:
                    if line not in hidden:
                        self.log(line, file=sys.stderr)
                tied = {problem.diagnostic() for error in report.failures.values() for problem in error.errors}
                state.failures = {**failures, **{stem: state.failures[stem] for stem in unsure if stem in state.failures}}
                state.spec_of = {gallery.output_stem(spec): str(spec) for spec in specs}
                state.problems = [line for line in report.problems if line not in tied and ": warning: " not in line]
                kept_previews = {stem: page for stem, page in state.previews.items() if stem in unsure}
            # Data files the build met for the first time join the record. One
            # that had not settled when the build started may have been read
            # before or after its last save: UNSURE, so the next poll builds again.
            met = {}
            for path in watched_files(specs, state.out):
                if str(path) not in before:
                    now = look(path, None, started_ns)
                    met[str(path)] = UNSURE if now.digest is not None else now
            self.seen = {**met, **before}
            self.listed = None  # the build may have written a new manifest within one timestamp tick
            state.previews = kept_previews
            state.publish()
        finally:
            state.building = False
        self.log(msg.serve_built(len(specs), len(state.failures), time.perf_counter() - started))


# ------------------------------------------------------------------- serving

def allowed_hosts(port: int) -> frozenset[str]:
    """The Host header values a request to this server can carry (compared lower-cased)."""
    return frozenset(f"{host}:{port}" for host in (HOST, "localhost", "[::1]"))


def refuse_host(values: list[str], port: int) -> tuple[HTTPStatus, str] | None:
    """Why a request with these Host headers is not answered, or None.

    A browser always sends the host and port of the URL it loads; a page that
    reached 127.0.0.1 through DNS rebinding sends its own host name.
    """
    if len(values) != 1:
        return HTTPStatus.BAD_REQUEST, msg.serve_host_missing()
    if values[0].strip().lower() not in allowed_hosts(port):
        return HTTPStatus.FORBIDDEN, msg.serve_host_refused(port)
    return None


BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def refuse_target(target: str) -> tuple[HTTPStatus, str] | None:
    """Why a request target is not served, or None.

    Only what a browser sends for a link: a path of printable ASCII whose
    percent-escapes decode to UTF-8 without control characters or '.' and
    '..' segments, then an optional query. So no file lookup ever meets a
    name it cannot take (a NUL raises in `open`) or one outside the gallery.
    """
    if len(target) > MAX_TARGET:
        return HTTPStatus.REQUEST_URI_TOO_LONG, msg.serve_target_too_long(MAX_TARGET)
    if not target.startswith("/"):
        return HTTPStatus.BAD_REQUEST, msg.serve_target_not_a_path()
    if not target.isascii() or not target.isprintable() or " " in target:
        return HTTPStatus.BAD_REQUEST, msg.serve_target_not_ascii()
    path = target.partition("?")[0].partition("#")[0]
    if BAD_ESCAPE.search(path):
        return HTTPStatus.BAD_REQUEST, msg.serve_target_bad_escape()
    try:
        decoded = unquote_to_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        return HTTPStatus.BAD_REQUEST, msg.serve_target_not_utf8()
    if CONTROL.search(decoded):
        return HTTPStatus.BAD_REQUEST, msg.serve_target_control()
    if any(segment in (".", "..") for segment in decoded.split("/")):
        return HTTPStatus.BAD_REQUEST, msg.serve_target_dot_segment()
    return None


class RequestHead(io.RawIOBase):
    """A connection's bytes as read for one request's line and headers.

    At most `limit` bytes, all within `seconds` of the connection's start:
    past the limit it reads as the end of the stream (and sets `overflow`),
    past the deadline it raises TimeoutError, on which the handler closes
    the connection without an answer.
    """

    def __init__(self, connection: socket.socket, limit: int, seconds: float):
        super().__init__()
        self.connection = connection
        self.left = limit
        self.deadline = time.monotonic() + seconds
        self.overflow = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.left <= 0:
            self.overflow = True
            return 0
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request head took too long")
        previous = self.connection.gettimeout()
        self.connection.settimeout(remaining if previous is None else min(previous, remaining))
        try:
            with memoryview(buffer) as view:
                count = self.connection.recv_into(view, min(len(view), self.left))
        finally:
            self.connection.settimeout(previous)
        self.left -= count
        return count


class Handler(SimpleHTTPRequestHandler):
    """Static files from the gallery folder, live-reload script and diagnostics added.

    A request is answered only when its head fits HEAD_BYTES and arrives
    within HEAD_SECONDS, its Host header names this server and its target
    passes `refuse_target`; otherwise it gets a plain-text 4xx (or, past the
    deadline, the connection is closed).
    """

    state: ServeState  # set on the subclass `make_handler` builds
    # One request per connection: an idle keep-alive connection would hold a handler thread.
    protocol_version = "HTTP/1.0"
    # Error responses before the request line is understood still get a status line.
    default_request_version = "HTTP/1.0"
    timeout = SEND_SECONDS  # the socket's timeout: bounds each write of a response

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the socket's own reader: replaced by one with limits
        self.rfile = io.BufferedReader(RequestHead(self.connection, HEAD_BYTES, HEAD_SECONDS))

    def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
        pass  # quiet: the terminal shows builds and problems, not every request

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")  # a rebuilt thumbnail is never served stale
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def parse_request(self) -> bool:
        """The base class's parsing, then this server's limits, Host check and target check."""
        head = self.rfile.raw
        if head.overflow or len(self.raw_requestline.split()) != 3 or not self.raw_requestline.endswith(b"\n"):
            # Not for the base class, which reads 'GET /' as HTTP/0.9 (headerless answers) and
            # answers an empty line with nothing at all.
            self.command, self.requestline, self.request_version = None, "", self.default_request_version
            if head.overflow:
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, explain=msg.serve_target_too_long(MAX_TARGET))
            else:
                self.send_error(HTTPStatus.BAD_REQUEST, explain=msg.serve_bad_request_line())
            return False
        if not super().parse_request():
            return False
        if head.overflow:
            self.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, explain=msg.serve_head_too_large(HEAD_BYTES))
            return False
        port = self.server.server_address[1]
        refusal = refuse_host(self.headers.get_all("Host") or [], port) or refuse_target(self.path)
        if refusal is not None:
            self.send_error(refusal[0], explain=refusal[1])
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Every error as a short plain-text body (the base class sends an HTML page)."""
        status = HTTPStatus(code)
        reason = (explain or message or status.description)[:MAX_REASON]
        body = (msg.serve_http_error(status.value, status.phrase, reason) + "\n").encode("utf-8", "replace")
        self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and status >= 200 and status not in (HTTPStatus.NO_CONTENT, HTTPStatus.NOT_MODIFIED):
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        url = urlsplit(self.path)
        path = unquote(url.path)
        if path == VERSION_PATH:
            after = AFTER.search(url.query)
            if after is not None:
                self.state.wait_newer(int(after.group(1)), HOLD_SECONDS)
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
            preview = self.state.previews.get(stem)
            if preview is not None and "previous" not in parse_qs(url.query, keep_blank_values=True):
                return self.send_page(preview)
            failure = self.state.failures.get(stem)
            if failure is not None and "previous" not in parse_qs(url.query, keep_blank_values=True):
                return self.send_page(self.problems_page(stem, failure))
            try:
                page = (self.state.out / name).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):  # not a chart (or a name too long): the base class says 404
                page = None
            if page is not None:
                return self.send_page(page)
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
            return serve_page("chartc serve", f"<h1>chartc gallery</h1>\n{banner}<p>{text}</p>")
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
        label = f"{problem.severity}[{problem.code}]" if problem.code else problem.severity
        items.append(
            f'<li class="diagnostic" data-code="{html.escape(problem.code or "", quote=True)}" data-line="{where.line if where else ""}" '
            f'data-column="{where.column if where else ""}">'
            f'<span class="where">{html.escape(position)}</span>: {html.escape(label)}: '
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
    return serve_page(f"{Path(spec).name}: problems", body)


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


class Server(HTTPServer):
    """Requests handled by a pool of at most MAX_HANDLERS threads; more connections wait in the backlog.

    A pool, not a thread per connection: starting a thread costs about as
    much as answering a status request.
    """

    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address, handler, state: ServeState | None = None):
        self.state = state  # closed at shutdown: its held requests are answered
        self.free = threading.Semaphore(MAX_HANDLERS)
        self.stopping = threading.Event()
        self.pool: ThreadPoolExecutor | None = None  # stays None when the port cannot be bound
        super().__init__(address, handler)
        self.pool = ThreadPoolExecutor(MAX_HANDLERS, thread_name_prefix=f"chartc-serve-{self.server_address[1]}")

    def process_request(self, request, client_address) -> None:
        # Runs in the accept loop: while every handler is busy nothing more is
        # accepted, so new connections queue in the kernel's backlog.
        while not self.free.acquire(timeout=0.1):
            if self.stopping.is_set():
                self.shutdown_request(request)
                return
        try:
            self.pool.submit(self.handle_connection, request, client_address)
        except BaseException:
            self.free.release()
            raise

    def handle_connection(self, request, client_address) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self.free.release()

    def handle_error(self, request, client_address) -> None:
        """One line on stderr instead of socketserver's traceback; nothing when the client left."""
        error = sys.exc_info()[1]
        if not isinstance(error, (ConnectionError, TimeoutError)):
            say(msg.serve_request_failed(f"{type(error).__name__}: {error}"), file=sys.stderr)

    def shutdown(self) -> None:
        self.stopping.set()
        if self.state is not None:
            self.state.close()
        super().shutdown()

    def server_close(self) -> None:
        super().server_close()
        if self.pool is not None:
            self.pool.shutdown(wait=False)  # requests in progress finish within their deadlines


def make_server(state: ServeState, port: int) -> Server:
    """An HTTP server on 127.0.0.1:`port` (0: a free port) serving `state.out`.

    Raises:
        OSError: the port cannot be bound.
    """
    handler = type("ChartcHandler", (Handler,), {"state": state})
    return Server((HOST, port), functools.partial(handler, directory=str(state.out)), state)


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
