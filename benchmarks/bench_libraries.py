"""Our own code against a maintained library: the figures that decide each replacement.

Three parts of chartc were written by hand where a maintained library does the
same job: the renderer worker pool (`render/workers.py`, peer: pebble), the PDF
canonicaliser (`render/pdf.py`, peer: pikepdf/qpdf) and the browser tests'
DevTools driver (`tests/test_browser.py`, peer: Playwright). Run this on the
tree before and after a replacement (``--at REV`` measures a revision) and
compare; it prints, for the tree it measures:

- cold import: ``python -X importtime -c "import M"`` of each library (and
  whether ``chartc --version`` / ``chartc validate`` load any of them: they must not);
- PDF: a fresh process's first canonicalisation of the two seed charts (import
  included), the warm median per call, and a cold ``chartc compile SPEC -o x.pdf``;
- pool: a fresh process starting two workers and running two trivial tasks, and
  ``chartc build specs --force --jobs 2`` of the gallery's specs into a temporary folder;
- browser: the wall time of ``pytest -m browser tests/test_browser.py`` (``--browser``);
- lines of our own code: non-blank, non-comment lines of each part.

    python benchmarks/bench_libraries.py [--quick] [--browser] [--at REV]
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import arguments, chartc, child_env, compare, measure, print_machine, python, repeats, seconds, table

LIBRARIES = {"pebble": "pebble", "pikepdf": "pikepdf", "playwright": "playwright.sync_api",
             "websocket-client": "websocket"}
SEED_SPECS = ("specs/seed_pretraining.yaml", "specs/seed_flops.yaml")
# The parts measured, as (label, file, first line, last line): a regex for each end, None for the file's end.
PARTS = (
    ("worker pool", "compiler/render/workers.py", None, None),
    ("PDF canonicaliser", "compiler/render/pdf.py", None, None),
    ("browser driver", "tests/test_browser.py", r"^class \w*Error\b", r"^@pytest\.fixture"),
)

PDF_TIMING = """\
import json, sys, time
import vl_convert
from chartc.infra.provenance import provenance
from chartc.pipeline import compile_spec
charts = [compile_spec(spec).vega_lite for spec in sys.argv[2:]]
raws = [(vl_convert.vegalite_to_pdf(vl, allowed_base_urls=[]), provenance(vl)) for vl in charts]
start = time.perf_counter()
from chartc.render.pdf import canonical_pdf
first = [canonical_pdf(raw, block) for raw, block in raws]
cold = time.perf_counter() - start
warm = []
for _ in range(int(sys.argv[1])):
    for raw, block in raws:
        start = time.perf_counter()
        canonical_pdf(raw, block)
        warm.append(time.perf_counter() - start)
print(json.dumps({"cold": cold, "warm": sorted(warm)[len(warm) // 2], "bytes": [len(p) for p in first]}))
"""

POOL_START = """\
from chartc.render.workers import WorkerPool
with WorkerPool(2, warm=None) as pool:
    assert [o.value for o in pool.run([(abs, (-1,)), (abs, (-2,))])] == [1, 2]
"""

# The same figure for pebble's ProcessPool, and what it does when an idle worker dies
# (the OOM killer, a user's kill) or when a worker's warm-up fails (a broken renderer).
PEBBLE_START = """\
import multiprocessing
from pebble import ProcessPool
with ProcessPool(2, context=multiprocessing.get_context("fork")) as pool:
    assert [pool.schedule(abs, (n,)).result() for n in (-1, -2)] == [1, 2]
"""
PEBBLE_BEHAVIOUR = """\
import logging, multiprocessing, os, signal, time
from pebble import ProcessPool
logging.disable(logging.CRITICAL)
def pid(): return os.getpid()
def broken(): raise RuntimeError("the renderer could not start")
def outcome(pool):
    try:
        return f"runs the next task ({pool.schedule(pid).result(timeout=10) > 0})"
    except Exception as error:
        return f"{type(error).__name__}: {error}"
fork = multiprocessing.get_context("fork")
with ProcessPool(2, context=fork) as pool:
    pids = {pool.schedule(pid).result() for _ in range(4)}
    os.kill(min(pids), signal.SIGKILL)
    time.sleep(0.5)
    print("pebble, idle worker killed:", outcome(pool))
with ProcessPool(1, initializer=broken, context=fork) as pool:
    print("pebble, warm-up fails:", outcome(pool))
"""
OURS_BEHAVIOUR = """\
import os, signal, time
from chartc.render.workers import WorkerPool
with WorkerPool(2, warm=None) as pool:
    pool.run([(abs, (-1,)), (abs, (-2,))])
    os.kill(pool.workers[0].process.pid, signal.SIGKILL)
    time.sleep(0.5)
    print("chartc pool, idle worker killed:", "runs the next task", pool.run([(abs, (-3,))])[0].value == 3)
"""


def import_cost(module: str, env: dict, runs: int) -> float | None:
    """Median cumulative import time of `module` in a fresh process (seconds), None when missing."""
    times = []
    for _ in range(runs):
        run = measure(python("-X", "importtime", "-c", f"import {module}"), env=env, timeout=120)
        if not run.ok:
            return None
        for line in run.stderr.splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3 and parts[2] == module:
                times.append(int(parts[1]) / 1e6)
    return statistics.median(times) if times else None


def loaded_by(args_: list[str], repo: Path, env: dict) -> list[str]:
    """Which of the libraries a chartc command imports."""
    run = measure(python("-X", "importtime", "-m", "chartc", *args_), cwd=repo, env=env, timeout=120)
    names = {line.split("|")[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    return sorted(lib for lib, module in LIBRARIES.items() if module.split(".")[0] in names)


def code_lines(repo: Path, path: str, first: str | None, last: str | None) -> int:
    """Non-blank lines that are not comments, of a file or of the part between two patterns."""
    lines = (repo / path).read_text().splitlines()
    if first:
        start = next((i for i, line in enumerate(lines) if re.match(first, line)), len(lines))
        end = next((i for i, line in enumerate(lines) if i > start and re.match(last, line)), len(lines))
        lines = lines[start:end]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], argv, extra=lambda p: p.add_argument(
        "--browser", action="store_true", help="also time the browser tests (needs Chromium; ~1 min)"))
    repo, env = args.repo, child_env(args.repo)
    runs = repeats(args, 5, 3)
    rows = []

    for module in LIBRARIES.values():
        rows.append([f"import {module}", seconds(import_cost(module, env, runs)), "cold, -X importtime"])
    for command in (["--version"], ["validate", SEED_SPECS[0]]):
        found = loaded_by(command, repo, env)
        rows.append([f"chartc {' '.join(command)} loads", ", ".join(found) or "none of them", "must be none"])

    done = subprocess.run(python("-c", PDF_TIMING, str(5 if args.quick else 20), *SEED_SPECS),
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode == 0:
        figures = json.loads(done.stdout)
        rows.append(["PDF: first canonicalisation, 2 seed charts", seconds(figures["cold"]),
                     "import included, fresh process"])
        rows.append(["PDF: canonicalisation per chart", seconds(figures["warm"]), "warm median"])
    else:
        rows.append(["PDF canonicalisation", "failed", (done.stderr.strip().splitlines() or ["?"])[-1]])

    with tempfile.TemporaryDirectory(prefix="chartc-bench-") as out:
        series = compare({
            "pool start": {"cmd": python("-c", POOL_START), "cwd": repo, "env": env, "timeout": 300},
            "compile pdf": {"cmd": chartc("compile", SEED_SPECS[0], "-o", str(Path(out) / "seed.pdf")), "cwd": repo,
                            "env": env, "timeout": 300},
            "build": {"cmd": chartc("build", *sorted(str(p) for p in (repo / "specs").glob("*.yaml")), "--force",
                                    "--jobs", "2", "--out", out),
                      "cwd": repo, "env": env, "timeout": 900},
        }, repeats(args, 3, 1))
    rows.append(["PDF: cold chartc compile seed_pretraining -o .pdf", seconds(series["compile pdf"].median),
                 f"fresh process, {series['compile pdf'].status}"])
    specs = len(list((repo / "specs").glob("*.yaml")))
    rows.append(["pool: start 2 workers + 2 trivial tasks", seconds(series["pool start"].median),
                 f"fresh process, {series['pool start'].status}"])
    rows.append([f"pool: build --force --jobs 2, {specs} charts", seconds(series["build"].median),
                 f"cold, {series['build'].status}, peak RSS {series['build'].maxrss_mb:.0f} MB (parent)"])

    if import_cost("pebble", env, 1) is not None:
        peer = compare({"pebble start": {"cmd": python("-c", PEBBLE_START), "cwd": repo, "env": env,
                                         "timeout": 300}}, repeats(args, 3, 1))["pebble start"]
        rows.append(["peer: pebble ProcessPool(2) start + 2 trivial tasks", seconds(peer.median),
                     f"fresh process, {peer.status}"])
        for script in (PEBBLE_BEHAVIOUR, OURS_BEHAVIOUR):
            done = subprocess.run(python("-c", script), cwd=repo, env=env, capture_output=True, text=True,
                                  timeout=300)
            for line in (done.stdout.strip().splitlines() or [f"failed: {done.stderr.strip()[-200:]}"]):
                what, _, result = line.partition(": ")
                rows.append([what, result, "behaviour"])

    if args.browser:
        run = measure(python("-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "browser", "tests/test_browser.py"),
                      cwd=repo, env=env, timeout=1800)
        rows.append(["browser tests, wall", seconds(run.wall), run.status])

    for label, path, first, last in PARTS:
        rows.append([f"lines of our own code: {label}", str(code_lines(repo, path, first, last)),
                     f"{path}, non-blank, non-comment"])

    print_machine(repo)
    print("\n== libraries")
    print(table(["figure", "value", "note"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
