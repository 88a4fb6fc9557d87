"""`chartc serve` under load: status requests answered while charts render.

Starts ``chartc serve`` on a temporary folder with one small spec and one
N-point scatter, keeps saving the scatter (a new title every 0.25 s) so the
server rebuilds and re-renders it the whole time, and sends `--requests`
raw HTTP/1.1 GETs of ``/__chartc/status`` over loopback, `--concurrency` at
a time, each on its own connection. Latency is connect to last byte. A
request that got no complete response within 30 s counts as failed.

    python benchmarks/bench_serve.py [--requests 500] [--concurrency 50] [--points 3000] [--at REV]

Target: every request answered, p99 under 100 ms (a browser's live-reload
poll must not wait behind a render).
"""

from __future__ import annotations

import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from _common import Row, chartc, child_env, run_script, seconds, table
from _workload import write_scatter

TARGET, LIMIT = "p99 < 100 ms", 0.100
STATUS_PATH = "/__chartc/status"
REQUEST_TIMEOUT = 30.0

SMALL = """\
title: Bars
data:
  values: [{k: a, v: 1}, {k: b, v: 3}, {k: c, v: 2}]
mark: bar
encoding: {x: k, y: v}
"""


def options(parser):
    parser.add_argument("--requests", type=int, default=500, help="requests in all (default 500)")
    parser.add_argument("--concurrency", type=int, default=50, help="requests in flight at once (default 50)")
    parser.add_argument("--points", type=int, default=3000, help="points of the chart kept re-rendering")


async def fetch(port: int, path: str) -> tuple[float, int | None, bool]:
    """(seconds, HTTP status or None, whether the answer says a build is running) for one GET."""
    started = time.perf_counter()
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), REQUEST_TIMEOUT)
        try:
            writer.write(request)
            response = await asyncio.wait_for(reader.read(), REQUEST_TIMEOUT)
        finally:
            writer.close()
    except (OSError, asyncio.TimeoutError):
        return time.perf_counter() - started, None, False
    elapsed = time.perf_counter() - started
    head, _, body = response.partition(b"\r\n\r\n")
    try:
        return elapsed, int(head.split(b" ", 2)[1]), bool(json.loads(body).get("building"))
    except (IndexError, ValueError, AttributeError):
        return elapsed, None, False


async def load(port: int, path: str, total: int, concurrency: int) -> list[tuple[float, int | None, bool]]:
    gate = asyncio.Semaphore(concurrency)

    async def one():
        async with gate:
            return await fetch(port, path)

    return await asyncio.gather(*(one() for _ in range(total)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def status(url: str) -> dict:
    with urllib.request.urlopen(url + STATUS_PATH.lstrip("/"), timeout=30) as response:
        return json.loads(response.read())


def run(args) -> list[Row]:
    figure = f"serve: {args.requests} status GETs, {args.concurrency} at once, while rendering"
    with tempfile.TemporaryDirectory(prefix="chartc-bench-serve-") as tmp:
        specs = Path(tmp) / "specs"
        specs.mkdir()
        (specs / "bars.yaml").write_text(SMALL)
        busy = write_scatter(specs, args.points)
        text = busy.read_text()
        proc = subprocess.Popen(chartc("serve", "specs"), cwd=tmp, env=child_env(args.repo),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stop = threading.Event()
        try:
            line = proc.stdout.readline()
            if ": http://" not in line:
                return [Row(figure, "error", "-", None, TARGET, verdict="error", note=line or proc.stderr.read())]
            url = line.split(": ", 1)[1].strip()
            port = int(url.rsplit(":", 1)[1].strip("/"))
            deadline = time.monotonic() + 120
            while status(url)["version"] < 1 and time.monotonic() < deadline:
                time.sleep(0.1)
            first = status(url)["version"]

            def keep_saving():
                count = 0
                while not stop.wait(0.25):
                    count += 1
                    busy.write_text(text.replace("points and a linear trend", f"points, save {count}"))

            saver = threading.Thread(target=keep_saving, daemon=True)
            saver.start()
            time.sleep(1.0)  # the first rebuild is under way
            started = time.perf_counter()
            results = asyncio.run(load(port, STATUS_PATH, args.requests, args.concurrency))
            wall = time.perf_counter() - started
            stop.set()
            saver.join()
            builds = status(url)["version"] - first
        finally:
            stop.set()
            proc.send_signal(signal.SIGINT)
            try:
                proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
    latencies = [elapsed for elapsed, code, _ in results if code == 200]
    failed = len(results) - len(latencies)
    rows = [["requests", str(len(results))], ["answered 200", str(len(latencies))], ["failed", str(failed)],
            ["builds finished during the load", str(builds)],
            ["answers saying a build was running", str(sum(building for _, _, building in results))],
            ["wall", seconds(wall)]]
    if latencies:
        rows += [[f"p{q}", seconds(percentile(latencies, q / 100))] for q in (50, 90, 99)]
        rows += [["max", seconds(max(latencies))], ["mean", seconds(statistics.fmean(latencies))]]
    print(f"\n-- {figure}")
    print(table(["", "value"], rows))
    if not latencies:
        return [Row(figure, "error", "-", None, TARGET, verdict="error", note="no request answered")]
    p99 = percentile(latencies, 0.99)
    verdict = "pass" if p99 < LIMIT and not failed else "fail"
    return [Row(figure, f"p99 {seconds(p99)}", "-", None, TARGET, verdict=verdict,
                note=f"p50 {seconds(percentile(latencies, 0.5))}, {failed} failed, {builds} builds during the load")]


def main(argv=None):
    run_script(run, "serve: status latency while charts render", argv, options)


if __name__ == "__main__":
    sys.exit(main())
