"""`chartc serve` in Chromium: how long from saving a spec to new pixels in an open page.

Starts ``chartc serve`` on a copy of the seed charts (``specs/seed_*.yaml``
that are not presets of another, with their data), opens each chart page in
Debian's headless Chromium (driven by Playwright, as tests/test_browser.py
does) and saves the spec `--saves` times with a new title. A script the page
runs at every document start notes, at each animation frame, the wall-clock
time (``Date.now()``) at which a chart title is first drawn in ``#chart``;
the latency is the save's own wall-clock time to that frame: what the user
waits for, whether the page reloads or swaps the chart in place. The page's
own timestamps are taken in the frame before it is painted.

Each save is made once the server is idle (the last save's build finished):
the watcher builds one thing at a time, so a save made while a build runs
waits for that build first; on this 2-core machine under load a build of one
seed chart takes 1-1.5 s (its SVG, PNG and scene check), more than a user
takes between two saves of a considered edit but not more than two quick
saves in a row.

Then it measures what the server costs at idle (CPU seconds of the serve
process over `--idle` seconds with a chart page open).

    python benchmarks/bench_editor.py [--saves 12] [--idle 10] [--at REV]

Target (issue 22 item 5): median ≤ 150 ms for every seed chart.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _common import Row, chartc, child_env, run_script, seconds, table

TARGET, LIMIT = "median ≤ 150 ms", 0.150
WAIT = 30.0       # seconds a save may take to show before it counts as failed
BETWEEN = 0.2     # seconds between the last build and the next save
SEEDS = ("seed_flops", "seed_pretraining")
CHROMIUM_FLAGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-extensions", "--mute-audio", "--window-size=1280,1024")

# Runs at the start of every document (reloads included): the first frame at which each title is drawn.
SEEN_SCRIPT = """
window.chartcSeen = {};
(function tick() {
  var title = document.querySelector('#chart svg .role-title-text');
  if (title && !(title.textContent in window.chartcSeen)) { window.chartcSeen[title.textContent] = Date.now(); }
  requestAnimationFrame(tick);
})();
"""


def options(parser):
    parser.add_argument("--saves", type=int, default=12, help="saves to time per chart (default 12)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle CPU to measure (default 10)")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def copy_seeds(repo: Path, specs: Path) -> list[Path]:
    """The seed specs and the data files they read, copied into `specs`."""
    (specs / "data").mkdir(parents=True)
    copied = []
    for name in SEEDS:
        source = repo / "specs" / f"{name}.yaml"
        text = source.read_text(encoding="utf-8").replace("$schema: ../schemas/", f"$schema: {repo}/schemas/")
        (specs / source.name).write_text(text, encoding="utf-8")
        copied.append(specs / source.name)
    for data in ("model_scaling.csv", "attention_variants.csv"):
        shutil.copy(repo / "specs" / "data" / data, specs / "data" / data)
    return copied


def title_of(spec: Path) -> str:
    for line in spec.read_text(encoding="utf-8").splitlines():
        if line.startswith("title: "):
            return line[len("title: "):]
    raise ValueError(f"{spec}: no one-line title")


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a live process, from /proc (clock ticks)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status(url: str) -> dict:
    with urllib.request.urlopen(url + "__chartc/status", timeout=30) as response:
        return json.loads(response.read())


def wait_built(url: str, quiet: float = 0.3) -> None:
    """Wait until a build finished and none ran for `quiet` seconds (before the first one, a page is a 404)."""
    deadline = time.monotonic() + 120
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = status(url)
        key = (now["version"], now["building"])
        if key != last:
            last, since = key, time.monotonic()
        elif now["version"] > 0 and not now["building"] and time.monotonic() - since >= quiet:
            return
        time.sleep(0.05)
    raise TimeoutError("the builds did not stop")


def run(args) -> list[Row]:
    from playwright.sync_api import sync_playwright  # a test dependency; loaded only here

    executable = chromium()
    figure = f"serve in Chromium: save -> new pixels, {args.saves} saves per seed chart"
    if executable is None:
        return [Row(figure, "error", "-", None, TARGET, verdict="error", note="Chromium is not installed")]
    rows: list[Row] = []
    summary = []
    with tempfile.TemporaryDirectory(prefix="chartc-bench-editor-") as tmp:
        specs = Path(tmp) / "specs"
        seeds = copy_seeds(args.repo, specs)
        proc = subprocess.Popen(chartc("serve", "specs"), cwd=tmp, env=child_env(args.repo),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        playwright = sync_playwright().start()
        browser = None
        try:
            line = proc.stdout.readline()
            if ": http://" not in line:
                return [Row(figure, "error", "-", None, TARGET, verdict="error", note=line or proc.stderr.read())]
            url = line.split(": ", 1)[1].strip()
            wait_built(url)
            browser = playwright.chromium.launch(executable_path=executable, args=list(CHROMIUM_FLAGS),
                                                 headless=True, timeout=30_000)
            page = browser.new_page(no_viewport=True)
            page.add_init_script(SEEN_SCRIPT)
            for spec in seeds:
                original = spec.read_text(encoding="utf-8")
                title = title_of(spec)
                page.goto(url + spec.stem + ".html", wait_until="load")
                page.wait_for_function(f"window.chartcSeen && {title!r} in window.chartcSeen", timeout=WAIT * 1000)
                latencies, failed = [], 0
                for n in range(args.saves):
                    wait_built(url)  # the last save's build finished: see the module's docstring
                    page.wait_for_timeout(BETWEEN * 1000)
                    new = f"{title} (edit {n})"
                    saved = time.time()
                    spec.write_text(original.replace(f"title: {title}", f"title: {new}", 1), encoding="utf-8")
                    try:
                        page.wait_for_function(f"window.chartcSeen && {new!r} in window.chartcSeen",
                                               timeout=WAIT * 1000, polling=20)
                        shown = page.evaluate(f"window.chartcSeen[{new!r}]") / 1000
                    except Exception:
                        failed += 1
                        continue
                    latencies.append(shown - saved)
                swaps = page.evaluate("window.chartcSwaps || 0")
                summary.append([spec.stem, str(len(latencies)), str(failed),
                                seconds(statistics.median(latencies)) if latencies else "-",
                                seconds(max(latencies)) if latencies else "-", str(swaps)])
                if not latencies:
                    rows.append(Row(f"{figure}: {spec.stem}", "error", "-", None, TARGET, verdict="error",
                                    note="no save was shown"))
                    continue
                median = statistics.median(latencies)
                verdict = "pass" if median <= LIMIT and not failed else "fail"
                rows.append(Row(f"{figure}: {spec.stem}", f"median {seconds(median)}", "-", None, TARGET,
                                verdict=verdict, note=f"max {seconds(max(latencies))}, {failed} failed"))
            # Idle: a chart page open, nothing saved.
            page.goto(url + seeds[0].stem + ".html", wait_until="load")
            page.wait_for_timeout(1000)
            before = cpu_seconds(proc.pid)
            started = time.perf_counter()
            page.wait_for_timeout(args.idle * 1000)
            idle = (cpu_seconds(proc.pid) - before) / (time.perf_counter() - started)
            rows.append(Row("serve at idle, a chart page open: CPU of the serve process", f"{idle:.2%} of a core",
                            "-", None, "-", verdict="n/a"))
        finally:
            if browser is not None:
                browser.close()
            playwright.stop()
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    print(f"\n-- {figure}")
    print(table(["chart", "shown", "failed", "median", "max", "swapped in place"], summary))
    return rows


def main(argv=None):
    run_script(run, "serve: save to new pixels in Chromium", argv, options)


if __name__ == "__main__":
    sys.exit(main())
