"""`chartc serve`: how long from saving a spec to the rebuilt chart being served.

Starts ``chartc serve`` on a temporary folder with one small spec, then saves
it `--saves` times (a new title each time) and, after each save, polls
``/__chartc/status`` every 10 ms until a newer build has finished; the
latency is save to that answer. An open chart page polls the same status and
reloads itself, so this is the wait a user sees, less one poll interval.

    python benchmarks/bench_reload.py [--saves 10] [--at REV]

Target: every save rebuilt, the slowest in under a second (the latency the
live preview promises). The tests check that a save is rebuilt and the page
reloads; the time it takes is measured here, where a busy machine shows up
as a figure rather than a failing test.
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _common import Row, chartc, child_env, run_script, seconds, table

TARGET, LIMIT = "max < 1 s", 1.0
STATUS_PATH = "__chartc/status"
WAIT = 30.0  # a save not rebuilt within this counts as failed

SPEC = """\
title: Bars
data:
  values: [{k: a, v: 1}, {k: b, v: 3}, {k: c, v: 2}]
mark: bar
encoding: {x: k, y: v}
"""


def options(parser):
    parser.add_argument("--saves", type=int, default=10, help="saves to time (default 10)")


def status(url: str) -> dict:
    with urllib.request.urlopen(url + STATUS_PATH, timeout=30) as response:
        return json.loads(response.read())


def wait_newer(url: str, version: int) -> dict | None:
    """The status once a build newer than `version` finished, or None after `WAIT` seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        now = status(url)
        if now["version"] > version and not now["building"]:
            return now
        time.sleep(0.01)
    return None


def run(args) -> list[Row]:
    figure = f"serve: save -> rebuilt chart served, {args.saves} saves"
    latencies, failed = [], 0
    with tempfile.TemporaryDirectory(prefix="chartc-bench-reload-") as tmp:
        specs = Path(tmp) / "specs"
        specs.mkdir()
        spec = specs / "bars.yaml"
        spec.write_text(SPEC)
        proc = subprocess.Popen(chartc("serve", "specs"), cwd=tmp, env=child_env(args.repo),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline()
            if ": http://" not in line:
                return [Row(figure, "error", "-", None, TARGET, verdict="error", note=line or proc.stderr.read())]
            url = line.split(": ", 1)[1].strip()
            current = wait_newer(url, 0)
            for n in range(args.saves):
                time.sleep(0.3)  # saves further apart than the watcher's debounce
                version = current["version"] if current else status(url)["version"]
                saved = time.perf_counter()
                spec.write_text(SPEC.replace("title: Bars", f"title: Bars, save {n}"))
                current = wait_newer(url, version)
                if current is None:
                    failed += 1
                else:
                    latencies.append(time.perf_counter() - saved)
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    rows = [["saves", str(args.saves)], ["rebuilt", str(len(latencies))], ["failed", str(failed)]]
    if latencies:
        rows += [["median", seconds(statistics.median(latencies))], ["max", seconds(max(latencies))]]
    print(f"\n-- {figure}")
    print(table(["", "value"], rows))
    if not latencies:
        return [Row(figure, "error", "-", None, TARGET, verdict="error", note="no save was rebuilt")]
    verdict = "pass" if max(latencies) < LIMIT and not failed else "fail"
    return [Row(figure, f"max {seconds(max(latencies))}", "-", None, TARGET, verdict=verdict,
                note=f"median {seconds(statistics.median(latencies))}, {failed} failed")]


def main(argv=None):
    run_script(run, "serve: save to rebuilt chart", argv, options)


if __name__ == "__main__":
    sys.exit(main())
