"""Byte-stable exports: across processes, hash seeds and time zones; provenance; killed builds.

Builds run in subprocesses (a process's time zone and hash seed are fixed at
start), on two small inline specs and one temporal dataset spec from specs/.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from chartc.render.export import png_text_chunks

ROOT = Path(__file__).resolve().parent.parent

# Dates on both sides of the 2024 US daylight-saving changes, and a theme:
# `theme:` makes the translate stage call vl-convert, which starts its engine
# early; a zone other than UTC at that moment shifts the x positions.
TEMPORAL = """\
title: Around the clock change
theme: dark
data:
  values:
    - {day: "2024-03-09", v: 1}
    - {day: "2024-03-10", v: 3}
    - {day: "2024-03-11", v: 2}
    - {day: "2024-11-03 01:30", v: 5}
    - {day: "2024-11-04", v: 4}
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
  - trend: {method: linear, by: g, band: 0.95}
"""

POINTS = "x,y,g\n1,2.1,a\n2,3.9,b\n3,6.2,a\n4,7.8,b\n5,10.1,a\n6,11.7,b\n7,14.2,a\n8,16.1,b\n"


def make_project(root: Path, with_stocks: bool = False) -> Path:
    specs = root / "specs"
    (specs / "data").mkdir(parents=True)
    (specs / "clock.yaml").write_text(TEMPORAL)
    (specs / "groups.yaml").write_text(TREND)
    (specs / "data" / "points.csv").write_text(POINTS)
    if with_stocks:
        shutil.copy(ROOT / "specs" / "stocks_lines.yaml", specs / "stocks_lines.yaml")
    return specs


def start_build(project: Path, out: str, *, tz: str, seed: str, driver: str = "") -> subprocess.Popen:
    """`chartc build specs --out OUT` in a new process, optionally with a driver patching it first."""
    code = driver + "import sys\nfrom chartc.commands.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": tz,
           "PYTHONHASHSEED": seed, "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.Popen([sys.executable, "-c", code, "build", "specs", "--out", out], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen, timeout: float = 120) -> None:
    out, err = process.communicate(timeout=timeout)
    assert process.returncode == 0, err + out


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.slow
def test_builds_are_byte_identical_across_time_zones_hash_seeds_and_checkouts(tmp_path):
    """Two checkouts at different paths, built by two processes in different zones and hash seeds."""
    first, second = tmp_path / "one", tmp_path / "two" / "deeper"
    make_project(first, with_stocks=True)
    make_project(second, with_stocks=True)
    new_york = start_build(first, "gallery", tz="America/New_York", seed="1")
    utc = start_build(second, "gallery", tz="UTC", seed="2")
    finish(new_york)
    finish(utc)
    a, b = folder_bytes(first / "gallery"), folder_bytes(second / "gallery")
    assert sorted(a) == sorted(b)
    assert {"clock.svg", "clock.png", "clock.html", "clock.vl.json", "stocks_lines.svg", "stocks_lines.png",
            "stocks_lines.html", "stocks_lines.vl.json", "groups.fits.json", "index.html", "manifest.json"} <= set(a)
    differing = [name for name in a if a[name] != b[name]]
    assert differing == []


# ------------------------------------------------------------------ provenance

@pytest.fixture(scope="module")
def compiled_outputs(tmp_path_factory):
    from chartc.commands.gallery import chart_outputs
    from chartc.pipeline import compile_spec

    root = tmp_path_factory.mktemp("prov")
    specs = make_project(root)
    return specs, chart_outputs(compile_spec(specs / "groups.yaml"))


def test_every_export_carries_the_same_provenance_and_no_timestamp(compiled_outputs):
    from chartc import __version__

    specs, outputs = compiled_outputs
    expected = {
        "version": __version__,
        "vega_lite": json.loads(outputs["vl.json"])["$schema"].rsplit("/v", 1)[1].removesuffix(".json"),
        "spec_hash": hashlib.sha256((specs / "groups.yaml").read_bytes()).hexdigest(),
        "data": "data/points.csv",
        "data_hash": hashlib.sha256(POINTS.encode()).hexdigest(),
    }
    assert json.loads(outputs["vl.json"])["usermeta"]["chartc"] == expected

    svg = ET.fromstring(outputs["svg"])
    metadata = svg.find("{http://www.w3.org/2000/svg}metadata")
    assert metadata is not None and metadata.get("id") == "chartc-provenance"
    assert json.loads(metadata.text) == expected

    assert json.loads(png_text_chunks(outputs["png"])["chartc"]) == expected

    page = outputs["html"].decode()
    for key, value in expected.items():
        assert f'<meta name="chartc:{key.replace("_", "-")}" content="{html.escape(value)}">' in page

    assert json.loads(outputs["fits.json"])["chartc"] == expected
    for content in outputs.values():
        text = content.decode("latin-1")
        assert "2026-" not in text and time.strftime("%Y-%m-%d") not in text


def test_png_with_provenance_is_still_a_valid_png(compiled_outputs):
    import zlib

    png = compiled_outputs[1]["png"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    offset, kinds = 8, []
    while offset < len(png):  # every chunk's CRC checks out, IEND last
        length = int.from_bytes(png[offset:offset + 4], "big")
        kind, data = png[offset + 4:offset + 8], png[offset + 8:offset + 8 + length]
        assert int.from_bytes(png[offset + 8 + length:offset + 12 + length], "big") == zlib.crc32(kind + data)
        kinds.append(kind)
        offset += 12 + length
    assert kinds[0] == b"IHDR" and kinds[1] == b"tEXt" and kinds[-1] == b"IEND"


def test_provenance_hashes_follow_the_inputs(tmp_path):
    from chartc.pipeline import compile_spec

    specs = make_project(tmp_path)
    before = compile_spec(specs / "groups.yaml").vega_lite["usermeta"]["chartc"]
    (specs / "data" / "points.csv").write_text(POINTS + "9,18.0,a\n")
    after = compile_spec(specs / "groups.yaml").vega_lite["usermeta"]["chartc"]
    assert before["spec_hash"] == after["spec_hash"]
    assert before["data_hash"] != after["data_hash"]
    inline = compile_spec(specs / "clock.yaml").vega_lite["usermeta"]["chartc"]
    assert inline["data"] == "values"


# ---------------------------------------------------------------- killed builds

# Patches run in the build process before chartc starts: announce a point in
# the build by creating a file, then hang there until killed.
PAUSE_IN_RENDER = """\
import pathlib, time
import chartc.render.export as _export
_render = _export.render
def _slow_render(vega_lite, fmt):
    content = _render(vega_lite, fmt)
    pathlib.Path({marker!r}).touch()
    time.sleep(60)
    return content
_export.render = _slow_render
"""

PAUSE_BEFORE_RENAMES = """\
import os, pathlib, time
_replace = os.replace
def _slow_replace(source, target):
    if ".chartc-staging" in str(source) and not str(target).endswith("manifest.json"):
        pathlib.Path({marker!r}).touch()
        time.sleep(60)
    return _replace(source, target)
os.replace = _slow_replace
"""


@pytest.fixture(scope="module")
def committed(tmp_path_factory):
    """A built gallery, as it would be committed (built in this process: same bytes, as proven above)."""
    from chartc.commands.gallery import build_gallery

    root = tmp_path_factory.mktemp("committed")
    specs = make_project(root)
    assert not build_gallery(sorted(specs.glob("*.yaml")), root / "gallery").failed
    return root


@pytest.mark.slow
@pytest.mark.parametrize("driver", [PAUSE_IN_RENDER, PAUSE_BEFORE_RENAMES], ids=["rendering", "staged"])
def test_a_killed_build_leaves_every_previous_output_intact(committed, tmp_path, driver):
    project = tmp_path / "project"
    shutil.copytree(committed, project)
    gallery = project / "gallery"
    before = folder_bytes(gallery)
    # change both charts, so the build has new bytes to write for every output
    for name in ("clock.yaml", "groups.yaml"):
        spec = project / "specs" / name
        spec.write_text(spec.read_text().replace("title: ", "title: Changed "))

    marker = tmp_path / "reached"
    process = start_build(project, "gallery", tz="UTC", seed="0", driver=driver.format(marker=str(marker)))
    deadline = time.monotonic() + 90
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build never reached the point to kill it at"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    # What chartc keeps of its own (the build's lock file, its staging folder)
    # aside, every previous file is byte-identical, no partial file under an output name.
    from chartc.infra.files import STAGING_DIR
    from chartc.commands.gallery import LOCK_NAME, build_gallery, check_gallery

    after = {name: content for name, content in folder_bytes(gallery).items() if name != LOCK_NAME}
    assert after == before
    assert {p.name for p in gallery.iterdir()} - set(before) <= {LOCK_NAME, STAGING_DIR}
    specs = sorted((project / "specs").glob("*.yaml"))
    assert check_gallery(specs, gallery).failed  # stale, and the killed build's leftovers are listed

    # the next build cleans the leftovers and leaves an up-to-date gallery
    report = build_gallery(specs, gallery)
    assert sorted(report.rendered) == ["clock", "groups"]
    rebuilt = folder_bytes(gallery)
    assert {p.name for p in gallery.iterdir()} == set(before)  # no lock file, no staging folder
    assert "Changed" in rebuilt["clock.svg"].decode()
    assert not check_gallery(specs, gallery).failed


def test_the_command_names_the_blas_kernels_every_cpu_with_avx2_runs():
    """OpenBLAS picks its kernels by CPU, and its AVX-512 and AVX2 ones round a fit's solve differently: the
    command names one set where the CPU runs them (AVX2 and FMA), none elsewhere."""
    from chartc.commands.cli import blas_core

    assert blas_core({"sse2", "avx", "avx2", "fma", "avx512f"}) == blas_core({"avx2", "fma"}) == "Haswell"
    assert blas_core({"sse2", "avx", "fma"}) is None and blas_core(set()) is None


NUMPY_LOOPS = """
import json
from chartc.commands.cli import pin_kernels
pin_kernels()
import numpy as np
from numpy.lib.introspect import opt_func_info
loops = opt_func_info(func_name="^(exp|log|sin|cos)$", signature="float64")
print(json.dumps({"targets": np._core._multiarray_umath.__cpu_dispatch__,
                  "loops": {name: next(iter(found.values()))["current"] for name, found in loops.items()}}))
"""


def test_the_command_runs_numpys_avx2_loops_on_every_cpu_with_avx2():
    """numpy picks a double's exp, log, sine and cosine loops by CPU, its AVX-512 ones a last bit apart from its
    AVX2 ones: the command disables every dispatch target this numpy has past X86_V3, so those loops are X86_V3's
    on any CPU with AVX2 and FMA (a density's or a fit's bytes, the same on each)."""
    from chartc.commands.cli import NUMPY_FEATURES, blas_core, cpu_flags

    if blas_core(cpu_flags()) is None:
        pytest.skip("numpy picks its own loops on a CPU without AVX2 and FMA")
    env = {name: value for name, value in os.environ.items() if name != NUMPY_FEATURES[0]}
    run = subprocess.run([sys.executable, "-c", NUMPY_LOOPS], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert set(found["targets"]) - {"X86_V2", "X86_V3"} <= set(NUMPY_FEATURES[1].split())
    assert found["loops"] == {"exp": "X86_V3", "log": "X86_V3", "sin": "X86_V3", "cos": "X86_V3"}


def test_a_fit_compiled_by_the_command_runs_the_named_kernels_whatever_the_cpu(tmp_path):
    """`chartc compile` of a polynomial fit loads OpenBLAS with the kernels `blas_core` names (OpenBLAS says which
    it loaded), so its bytes are those of any machine with AVX2: those of a compile with the kernels named by
    the user. A core the user names is kept."""
    from chartc.commands.cli import blas_core, cpu_flags

    core = blas_core(cpu_flags())
    if core is None:
        pytest.skip("OpenBLAS picks its own kernels on a CPU without AVX2 and FMA")
    spec = ROOT / "specs" / "trend_poly.yaml"
    env = {name: value for name, value in os.environ.items() if name != "OPENBLAS_CORETYPE"}

    def compiled(out: Path, **extra) -> str:
        run = subprocess.run([sys.executable, "-m", "chartc", "compile", str(spec), "-o", str(out)],
                             env={**env, "OPENBLAS_VERBOSE": "2", **extra}, capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr
        return next(line for line in run.stderr.splitlines() if line.startswith("Core: "))

    assert compiled(tmp_path / "own.vl.json") == f"Core: {core}"
    assert compiled(tmp_path / "named.vl.json", OPENBLAS_CORETYPE=core) == f"Core: {core}"
    assert (tmp_path / "own.vl.json").read_bytes() == (tmp_path / "named.vl.json").read_bytes()
    assert compiled(tmp_path / "other.vl.json", OPENBLAS_CORETYPE="Sandybridge") == "Core: Sandybridge"
