"""Renderer workers: warm processes that contain crashes and hangs, and change no byte.

The crash and hang tests give the pool a `warm` hook (a function of this
module, run in each new worker) that replaces `export.render` inside the
worker: a chart whose title says ABORT kills its worker with SIGABRT, as
vl-convert does on some inputs; one that says HANG sleeps like a ReDoS regex.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands.cli import main
from chartc.commands.gallery import build_gallery, check_gallery
from chartc.commands.gallery import warm_worker as warm_renderer  # the real warm-up of a gallery worker
from chartc.render.workers import WorkerPool, default_jobs
from conftest import label

CLOCK = """\
title: Around the clock change
data:
  values:
    - {day: "2024-03-09", v: 1}
    - {day: "2024-03-10", v: 3}
    - {day: "2024-11-03 01:30", v: 5}
mark: {type: line, point: true}
encoding:
  x: {field: day, timeUnit: yearmonthdatehours}
  y: {field: v}
"""

TREND = """\
title: Groups and trends
data: {path: data/points.csv}
encoding:
  x: {field: x}
  y: {field: y}
layers:
  - mark: point
    markers:
      field: g
      styles:
        a: {shape: star, color: "#9467bd"}
        b: {shape: diamond, color: "#d62728"}
  - trend: {method: linear, by: g}
"""

BARS = """\
title: {title}
data:
  values: [{{k: a, v: 1}}, {{k: b, v: 3}}, {{k: c, v: 2}}]
mark: bar
encoding: {{x: k, y: v}}
"""

POINTS = "x,y,g\n1,2.1,a\n2,3.9,b\n3,6.2,a\n4,7.8,b\n5,10.1,a\n6,11.7,b\n"


def make_specs(root: Path, **bars: str) -> Path:
    """specs/clock.yaml, specs/groups.yaml (+ data) and one bar chart per keyword (stem=title)."""
    specs = root / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "clock.yaml").write_text(CLOCK)
    (specs / "groups.yaml").write_text(TREND)
    (specs / "data" / "points.csv").write_text(POINTS)
    for stem, title in bars.items():
        (specs / f"{stem}.yaml").write_text(BARS.format(title=title))
    return specs


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ------------------------------------------------------------ hooks (in workers)

def sabotaged_renderer() -> None:
    """`warm` for a pool: the real warm-up, then a render that aborts or hangs on cue."""
    warm_renderer()
    import chartc.render.export as export

    original = export.render

    def render(vega_lite, fmt):
        title = str(vega_lite.get("title"))
        if "ABORT" in title:
            os.abort()  # what vl-convert does on a control character (vl-convert#220)
        if "HANG" in title:
            time.sleep(600)  # what a ReDoS regex in a filter does
        return original(vega_lite, fmt)

    export.render = render


def double(x):
    return 2 * x


def abort():
    os.abort()


def sleep(seconds):
    time.sleep(seconds)
    return seconds


def fail():
    raise ValueError("no good")


# ------------------------------------------------------------------ determinism

@pytest.mark.slow
def test_jobs_1_and_2_and_in_process_give_identical_bytes(tmp_path, monkeypatch):
    specs = make_specs(tmp_path, bars="Bars", more="More bars")
    monkeypatch.chdir(tmp_path)
    assert main(["build", "specs", "--out", "one", "--jobs", "1"]) == 0
    assert main(["build", "specs", "--out", "two", "--jobs", "2"]) == 0
    alone = build_gallery([specs / "groups.yaml"], tmp_path / "alone", jobs=1)  # first and only in its worker
    inline = build_gallery(sorted(specs.glob("*.yaml")), tmp_path / "inline", jobs=0)
    assert not alone.failed and not inline.failed
    one, two = folder_bytes(tmp_path / "one"), folder_bytes(tmp_path / "two")
    assert {"clock.svg", "clock.png", "clock.html", "groups.fits.json", "vega-bundle.js"} <= set(one)
    assert one == two
    assert one == folder_bytes(tmp_path / "inline")
    for name, content in folder_bytes(tmp_path / "alone").items():
        if name.startswith("groups."):
            assert content == one[name], name


@pytest.mark.slow
def test_compile_and_build_give_the_same_svg(tmp_path, monkeypatch):
    make_specs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "specs", "--out", "gallery", "--jobs", "1"]) == 0
    assert main(["compile", "specs/groups.yaml", "-o", "groups.svg"]) == 0
    assert (tmp_path / "groups.svg").read_bytes() == (tmp_path / "gallery" / "groups.svg").read_bytes()


# ------------------------------------------------------------------ containment

@pytest.mark.slow
def test_a_crashed_worker_fails_its_chart_and_the_others_build(tmp_path):
    specs = make_specs(tmp_path, boom="ABORT me", bars="Bars")
    gallery = tmp_path / "gallery"
    with WorkerPool(1, warm=sabotaged_renderer) as pool:
        report = build_gallery(sorted(specs.glob("*.yaml")), gallery, pool=pool)
    assert report.failed
    assert sorted(report.rendered) == ["bars", "clock", "groups"]  # the one worker was replaced
    assert list(report.failures) == ["boom"]
    problem = msg.render_crashed("SIGABRT")
    assert report.problems == [f"{specs / 'boom.yaml'}:1:1: {label(problem)}: $: {problem} ({msg.render_failed_hint()})"]
    assert not list(gallery.glob("boom.*"))
    assert (gallery / "bars.svg").exists() and "bars" in (gallery / "index.html").read_text()


@pytest.mark.slow
def test_a_hung_render_times_out_and_the_others_build(tmp_path):
    specs = make_specs(tmp_path, stuck="HANG here", bars="Bars")
    gallery = tmp_path / "gallery"
    started = time.monotonic()
    # 15 s: the hung render never ends, while a real one on a loaded machine can take seconds
    with WorkerPool(2, timeout=15, warm=sabotaged_renderer) as pool:
        report = build_gallery(sorted(specs.glob("*.yaml")), gallery, pool=pool)
    assert time.monotonic() - started < 90
    assert sorted(report.rendered) == ["bars", "clock", "groups"]
    assert list(report.failures) == ["stuck"]
    error = report.failures["stuck"]
    assert error.message == msg.render_timed_out(15) and error.hint == msg.render_timeout_hint()
    assert error.location.file == str(specs / "stuck.yaml")
    # the failed chart is not in the manifest: the next check says so, and a fixed spec builds
    assert check_gallery(sorted(specs.glob("*.yaml")), gallery).failed
    (specs / "stuck.yaml").write_text(BARS.format(title="Fine now"))
    report = build_gallery(sorted(specs.glob("*.yaml")), gallery, jobs=1)
    assert report.rendered == ["stuck"] and not report.failed


@pytest.mark.slow
def test_pool_outcomes_in_task_order_with_crashes_timeouts_and_exceptions():
    tasks = [(double, (1,)), (abort, ()), (sleep, (30,)), (fail, ()), (double, (21,)), (sleep, (0.01,))]
    with WorkerPool(2, timeout=2, warm=None) as pool:
        outcomes = pool.run(tasks)
        again = pool.run([(double, (5,))])  # the pool stays usable
    assert [o.kind for o in outcomes] == ["ok", "crashed", "timeout", "raised", "ok", "ok"]
    assert outcomes[0].value == 2 and outcomes[4].value == 42 and outcomes[5].value == 0.01
    assert outcomes[1].failure == msg.render_crashed("SIGABRT")
    assert outcomes[2].failure == msg.render_timed_out(2)
    assert "ValueError: no good" in outcomes[3].failure
    assert again[0].value == 10


@pytest.mark.slow
def test_a_worker_killed_while_idle_is_replaced_and_the_pool_runs_on():
    """`chartc serve` keeps its pool between builds: a worker the OOM killer takes meanwhile is no failure."""
    import signal

    with WorkerPool(2, warm=None) as pool:
        pool.run([(double, (1,)), (double, (2,))])
        killed = pool.workers[0].process
        os.kill(killed.pid, signal.SIGKILL)
        killed.join(10)
        outcomes = pool.run([(double, (3,)), (double, (4,)), (double, (5,))])
        assert [o.value for o in outcomes] == [6, 8, 10]
        assert killed not in [worker.process for worker in pool.workers]


def test_workers_end_with_the_pool():
    pool = WorkerPool(2, warm=None)
    pool.run([(double, (1,)), (double, (2,))])
    processes = [worker.process for worker in pool.workers]
    assert len(processes) == 2
    pool.close()
    assert not any(process.is_alive() for process in processes)


# ------------------------------------------------------------------ command line

@pytest.mark.parametrize("option", [["--jobs", "0"], ["--timeout", "0"], ["--timeout", "nan"]])
def test_build_refuses_bad_jobs_and_timeout(tmp_path, monkeypatch, capsys, option):
    make_specs(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "specs", "--out", "gallery", *option]) == 2
    assert option[0] in capsys.readouterr().err
    assert not (tmp_path / "gallery").exists()


def test_default_jobs_is_the_usable_cores():
    assert 1 <= default_jobs() <= (os.cpu_count() or 1)


# ------------------------------------------------------------------ bundle cache

@pytest.mark.slow
def test_bundle_is_cached_on_disk_per_renderer_version(tmp_path, monkeypatch):
    import chartc.render.export as export

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(export, "javascript_bundle", export.javascript_bundle.__wrapped__)
    assert export.cached_javascript_bundle() is None
    made = export.javascript_bundle()
    files = list((tmp_path / "cache" / "chartc").iterdir())
    assert [f.name for f in files] == [f"vega-bundle-{export.renderer_version()}.js"]
    assert export.cached_javascript_bundle() == made  # read back, no engine needed
    assert "</script" not in made


@pytest.mark.slow
def test_bundle_falls_back_to_memory_when_the_cache_cannot_be_written(tmp_path, monkeypatch):
    import chartc.render.export as export

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    monkeypatch.setattr(export, "javascript_bundle", export.javascript_bundle.__wrapped__)
    assert "vegaEmbed" in export.javascript_bundle()
    assert export.cached_javascript_bundle() is None


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "FIFO", "too large", "not the bundle"])
def test_a_cache_file_that_is_not_chartcs_is_not_used(tmp_path, monkeypatch, kind):
    import chartc.render.export as export

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(export, "javascript_bundle", export.javascript_bundle.__wrapped__)
    path = export._cache_path("bundle")
    path.parent.mkdir(parents=True)
    if kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "FIFO":
        os.mkfifo(path)  # a blocking read would hang every build
    elif kind == "too large":
        with open(path, "wb") as stream:  # sparse: refused from its size alone
            stream.truncate(export.CACHE_LIMITS["bundle"] + 1)
    else:
        path.write_text("x" * 200_000)
    started = time.monotonic()
    assert export.cached_javascript_bundle() is None
    assert time.monotonic() - started < 2


def test_a_themes_cache_that_is_not_a_map_of_configs_is_not_used(tmp_path, monkeypatch):
    import chartc.render.export as export

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = export._cache_path("themes")
    path.parent.mkdir(parents=True)
    path.write_text('{"dark": 1}')
    assert export._read_cache("themes", export._valid_themes) is None
    path.write_text('{"dark": {"background": "#333"}}')
    assert export._read_cache("themes", export._valid_themes) == '{"dark": {"background": "#333"}}'


# ------------------------------------------------------------------ chartc compile

ABORT_ON_SVG = """\
import os, sys
import chartc.render.workers as workers
_call = workers.call_engine
def call_engine(name, args, kwargs):
    if name == "vegalite_to_svg":
        os.abort()
    return _call(name, args, kwargs)
workers.call_engine = call_engine
from chartc.commands.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_compile_survives_a_renderer_abort_and_writes_nothing(tmp_path):
    """`chartc compile` renders in a worker forked at its start: an abort there is an error message."""
    import subprocess
    import sys

    make_specs(tmp_path)
    done = subprocess.run([sys.executable, "-c", ABORT_ON_SVG, "compile", "specs/groups.yaml", "-o", "out/groups.svg"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    problem = msg.render_crashed('SIGABRT')
    assert done.stderr.strip() == f"specs/groups.yaml:1:1: {label(problem)}: $: {problem}"
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
