"""Gallery builds: incremental re-rendering, the manifest, `build --check`, removal, failures.

Every test builds two or three small inline-data specs in a temporary folder,
never specs/ or the repository's gallery/.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from chartc import errors as msg
from chartc.commands.cli import main
from chartc.commands.gallery import build_gallery, check_gallery
from chartc.commands.manifest import MANIFEST_NAME, read_manifest
from chartc.infra.provenance import input_hash, output_hash
from conftest import label

ROOT = Path(__file__).resolve().parent.parent

BARS = """\
title: Bars
data:
  values: [{k: a, v: 1}, {k: b, v: 3}, {k: c, v: 2}]
mark: bar
encoding: {x: k, y: v}
"""

TREND = """\
title: Points and a trend
data: {path: data/points.csv}
encoding:
  x: {field: x}
  y: {field: y}
layers:
  - mark: point
  - trend: {method: linear, style: {color: gray}}
"""

POINTS = "x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n"
HEAVY = ("altair", "pandas", "vl_convert", "numpy")


def make_project(root: Path) -> Path:
    """A folder with specs/bars.yaml, specs/trend.yaml and specs/data/points.csv."""
    (root / "specs" / "data").mkdir(parents=True)
    (root / "specs" / "bars.yaml").write_text(BARS)
    (root / "specs" / "trend.yaml").write_text(TREND)
    (root / "specs" / "data" / "points.csv").write_text(POINTS)
    return root / "specs"


def spec_list(specs: Path) -> list[Path]:
    return sorted(p for p in specs.glob("*.yaml"))


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and mtime (ns), to prove a command wrote nothing."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One full build, shared (read-only) by the tests that only look at it."""
    root = tmp_path_factory.mktemp("built")
    specs = make_project(root)
    report = build_gallery(spec_list(specs), root / "gallery")
    assert not report.failed, report.problems
    return root, report


@pytest.fixture
def project(built, tmp_path):
    """A private copy of the built project, to change."""
    import shutil

    shutil.copytree(built[0], tmp_path / "p")
    return tmp_path / "p"


def test_full_build_writes_every_output_index_and_manifest(built):
    root, report = built
    names = sorted(p.name for p in (root / "gallery").iterdir())
    assert names == sorted([
        "bars.html", "bars.png", "bars.svg", "bars.vl.json",
        "trend.fits.json", "trend.html", "trend.png", "trend.svg", "trend.vl.json",
        "index.html", MANIFEST_NAME, "vega-bundle.js",  # the script every chart page shares
        "gallery.css",  # and its stylesheet
    ])
    assert report.rendered == ["bars", "trend"]


def test_manifest_records_input_and_output_hashes(built):
    root, _ = built
    gallery = root / "gallery"
    manifest = read_manifest(gallery)
    record = manifest.charts["trend"]
    assert record.spec == "../specs/trend.yaml"
    assert record.title == "Points and a trend"
    assert record.inputs == {
        "../specs/trend.yaml": input_hash((root / "specs/trend.yaml").read_bytes()),
        "../specs/data/points.csv": input_hash(POINTS.encode()),
    }
    for name, digest in record.outputs.items():
        assert output_hash((gallery / name).read_bytes()) == digest
    assert manifest.index == output_hash((gallery / "index.html").read_bytes())
    assert set(manifest.tools) >= {"chartc", "altair", "vl_convert", "vega_lite"}
    # canonical JSON: sorted keys, two-space indent, trailing newline
    text = (gallery / MANIFEST_NAME).read_text()
    assert text == json.dumps(json.loads(text), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def test_outputs_are_readable_files_not_private_temp_modes(built):
    root, _ = built
    mode = (root / "gallery" / "bars.svg").stat().st_mode & 0o777
    assert mode & 0o044, oct(mode)  # mkstemp's 0600 would hide outputs from a web server


def test_no_op_build_renders_nothing_and_writes_nothing(project):
    before = snapshot(project / "gallery")
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.rendered == [] and not report.failed
    assert report.lines[-1] == msg.build_summary(str(project / "gallery"), 0, 2, 0)
    assert snapshot(project / "gallery") == before


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"}, timeout=120)


@pytest.mark.parametrize("extra", [[], ["--check"]], ids=["build", "check"])
def test_no_op_build_and_check_import_no_rendering_stack(project, extra):
    code = (
        "import sys\n"
        "from chartc.commands.cli import main\n"
        f"code = main(['build', 'specs', '--out', 'gallery', *{extra!r}])\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
        "sys.exit(code)\n"
    )
    result = run_python(code, project)
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout


def test_changed_spec_rerenders_only_that_chart(project):
    spec = project / "specs" / "bars.yaml"
    spec.write_text(BARS.replace("title: Bars", "title: Bars, renamed"))
    trend_before = (project / "gallery" / "trend.svg").read_bytes()
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.rendered == ["bars"]
    assert report.lines[0].startswith(f"{spec}: rendered (") and "bars.yaml changed" in report.lines[0]
    assert "Bars, renamed" in (project / "gallery" / "bars.svg").read_text()
    assert "Bars, renamed" in (project / "gallery" / "index.html").read_text()
    assert (project / "gallery" / "trend.svg").read_bytes() == trend_before
    assert read_manifest(project / "gallery").charts["bars"].title == "Bars, renamed"


def test_changed_data_file_rerenders_the_chart_that_reads_it(project):
    (project / "specs" / "data" / "points.csv").write_text(POINTS + "6,12.2\n")
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.rendered == ["trend"]
    assert '"n": 6' in (project / "gallery" / "trend.fits.json").read_text()


def test_crlf_checkout_of_the_same_inputs_is_up_to_date(project):
    spec = project / "specs" / "bars.yaml"
    spec.write_bytes(spec.read_bytes().replace(b"\n", b"\r\n"))
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.rendered == []


def test_hand_edited_or_deleted_output_is_restored(project):
    gallery = project / "gallery"
    original = (gallery / "bars.svg").read_bytes()
    (gallery / "bars.svg").write_text("<svg/>")
    (gallery / "trend.png").unlink()
    check = check_gallery(spec_list(project / "specs"), gallery)
    assert f"{gallery / 'bars.svg'}: {msg.output_modified()}" in check.problems
    assert f"{gallery / 'trend.png'}: {msg.output_missing()}" in check.problems
    report = build_gallery(spec_list(project / "specs"), gallery)
    assert sorted(report.rendered) == ["bars", "trend"]
    assert (gallery / "bars.svg").read_bytes() == original
    assert (gallery / "trend.png").exists()


def test_deleted_spec_removes_its_outputs_and_index_entry(project):
    gallery = project / "gallery"
    (gallery / "README.md").write_text("not chartc's")
    (project / "specs" / "trend.yaml").unlink()
    report = build_gallery(spec_list(project / "specs"), gallery)
    assert sorted(report.removed) == ["trend.fits.json", "trend.html", "trend.png", "trend.svg", "trend.vl.json"]
    assert not list(gallery.glob("trend.*"))
    assert (gallery / "README.md").read_text() == "not chartc's"  # only files chartc wrote are removed
    assert "trend" not in (gallery / "index.html").read_text()
    assert list(read_manifest(gallery).charts) == ["bars"]


def test_removed_trend_layer_removes_fits_json(project):
    spec = project / "specs" / "trend.yaml"
    spec.write_text(TREND.replace("  - trend: {method: linear, style: {color: gray}}\n", ""))
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.removed == ["trend.fits.json"]


def test_building_one_spec_keeps_the_other_charts(project):
    spec = project / "specs" / "bars.yaml"
    report = build_gallery([spec], project / "gallery")
    assert report.rendered == [] and report.removed == []
    assert sorted(read_manifest(project / "gallery").charts) == ["bars", "trend"]


# --------------------------------------------------------------------- check

def test_check_passes_on_a_fresh_gallery(project):
    report = check_gallery(spec_list(project / "specs"), project / "gallery")
    assert not report.failed
    assert report.lines == [msg.check_passed(2, str(project / "gallery"))]


def test_check_lists_stale_missing_and_orphaned_outputs_and_writes_nothing(project):
    gallery = project / "gallery"
    specs = project / "specs"
    (specs / "bars.yaml").write_text(BARS.replace("v: 3", "v: 4"))           # stale
    (specs / "new.yaml").write_text(BARS.replace("title: Bars", "title: New"))  # missing
    (specs / "trend.yaml").unlink()                                           # orphaned
    leftover = killed_build_file(gallery, "bars.svg")                          # leftover
    (gallery / ".bars.svg.abcd1234.tmp").write_bytes(b"the user's")           # not chartc's
    before = snapshot(gallery)

    report = check_gallery(spec_list(specs), gallery)

    assert report.failed
    assert snapshot(gallery) == before
    problems = report.problems
    for suffix in ("html", "png", "svg", "vl.json"):
        assert any(p.startswith(f"{gallery / ('bars.' + suffix)}: stale (") and "bars.yaml changed)" in p
                   for p in problems), problems
        assert f"{gallery / ('new.' + suffix)}: {msg.output_not_built(str(specs / 'new.yaml'))}" in problems
    for suffix in ("fits.json", "html", "png", "svg", "vl.json"):
        assert any(p.startswith(f"{gallery / ('trend.' + suffix)}: orphaned (") for p in problems), problems
    assert f"{leftover}: {msg.output_leftover()}" in problems
    assert not [p for p in problems if ".bars.svg.abcd1234.tmp" in p]
    assert any(p.startswith(f"{gallery / 'index.html'}: stale") for p in problems)
    assert problems[-1] == msg.check_failed(len(problems) - 1, str(gallery))


def test_check_reports_a_changed_data_file(project):
    (project / "specs" / "data" / "points.csv").write_text(POINTS.replace("6.2", "6.3"))
    report = check_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.failed
    trend = [p for p in report.problems if "/trend." in p]
    assert len(trend) == 5 and all(p.endswith("points.csv changed)") for p in trend), report.problems
    assert not [p for p in report.problems if "/bars." in p]


def test_a_change_to_chartc_source_makes_every_chart_stale(project, monkeypatch):
    from chartc.commands import manifest

    gallery = project / "gallery"
    recorded = read_manifest(gallery).tools[manifest.SOURCE_KEY]
    assert recorded == manifest.source_hash() and len(recorded) == 12
    monkeypatch.setattr(manifest, "source_hash", lambda: "0123456789ab")
    report = check_gallery(spec_list(project / "specs"), gallery)
    assert report.failed
    change = msg.chart_tools_changed(f"{manifest.SOURCE_KEY} {recorded} -> 0123456789ab")
    charts = [p for p in report.problems if "/bars." in p or "/trend." in p]
    assert len(charts) == 9 and all(p.endswith(f"({change})") for p in charts), report.problems
    report = build_gallery(spec_list(project / "specs"), gallery)
    assert not report.failed and read_manifest(gallery).tools[manifest.SOURCE_KEY] == "0123456789ab"
    assert not check_gallery(spec_list(project / "specs"), gallery).failed


def test_another_toolchain_is_named_once_with_its_versions_before_the_stale_outputs(project, monkeypatch):
    from chartc.commands import manifest

    gallery = project / "gallery"
    recorded = read_manifest(gallery).tools
    installed = {"altair": "9.9.9", "vl-convert-python": recorded["vl_convert"], "numpy": "0.0.1"}
    monkeypatch.setattr(manifest, "dist_version", lambda name: installed.get(name, "none"))
    report = check_gallery(spec_list(project / "specs"), gallery)
    assert report.failed
    assert report.problems[0] == msg.toolchain_differs(
        str(gallery), [("altair", recorded["altair"], "9.9.9"), ("numpy", recorded["numpy"], "0.0.1")])
    assert "altair " + recorded["altair"] + " (installed: 9.9.9), numpy " in report.problems[0]
    stale = [p for p in report.problems[1:-1] if "/bars." in p]
    assert stale and all(msg.chart_tools_changed(f"altair {recorded['altair']} -> 9.9.9") in p for p in stale)


def test_source_hash_ignores_line_endings_and_follows_content(tmp_path, monkeypatch):
    from chartc.commands import manifest
    from chartc.infra import paths

    package = tmp_path / "compiler"
    package.mkdir()
    (package / "a.py").write_bytes(b"x = 1\n")
    monkeypatch.setattr(paths, "PACKAGE_ROOT", package)

    def fresh():
        manifest.source_hash.cache_clear()
        return manifest.source_hash()

    lf = fresh()
    (package / "a.py").write_bytes(b"x = 1\r\n")
    assert fresh() == lf
    (package / "a.py").write_bytes(b"x = 2\n")
    assert fresh() != lf
    manifest.source_hash.cache_clear()


def test_source_hash_covers_every_subfolder_of_the_package(tmp_path, monkeypatch):
    """A change in a stage (compiler/stages/...) changes the hash as one at the top does."""
    from chartc.commands import manifest
    from chartc.infra import paths

    package = tmp_path / "compiler"
    (package / "stages" / "translate").mkdir(parents=True)
    (package / "a.py").write_bytes(b"x = 1\n")
    (package / "stages" / "translate" / "b.py").write_bytes(b"y = 1\n")
    monkeypatch.setattr(paths, "PACKAGE_ROOT", package)

    def fresh():
        manifest.source_hash.cache_clear()
        return manifest.source_hash()

    before = fresh()
    (package / "stages" / "translate" / "b.py").write_bytes(b"y = 2\n")
    changed = fresh()
    (package / "stages" / "translate" / "b.py").rename(package / "stages" / "b.py")
    moved = fresh()
    manifest.source_hash.cache_clear()
    assert len({before, changed, moved}) == 3


def test_source_hash_is_of_the_package_itself():
    import chartc
    from chartc.commands import manifest
    from chartc.infra import paths

    assert paths.PACKAGE_ROOT == Path(chartc.__file__).resolve().parent
    assert (paths.PACKAGE_ROOT / "stages" / "translate" / "__init__.py").is_file()
    assert len(manifest.source_hash()) == 12


def test_check_of_an_empty_folder_lists_everything_missing(tmp_path):
    specs = make_project(tmp_path)
    report = check_gallery(spec_list(specs), tmp_path / "gallery")
    assert report.failed
    assert not (tmp_path / "gallery").exists()
    assert len([p for p in report.problems if "missing" in p]) == 9  # 2 charts x 4 formats + index


def test_cli_check_exit_codes(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["build", "--check"]) == 0
    (project / "specs" / "bars.yaml").write_text(BARS.replace("v: 3", "v: 5"))
    assert main(["build", "--check"]) == 1
    err = capsys.readouterr().err
    assert "gallery/bars.svg: stale (" in err
    assert main(["build", "--check", "--force"]) == 2


# ------------------------------------------------------- data files of any size

def test_a_data_file_past_the_spec_size_bound_is_hashed_in_full_and_a_spec_is_not(project, monkeypatch, tmp_path):
    from chartc.commands import manifest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    gallery, specs = project / "gallery", project / "specs"
    rows = POINTS + "".join(f"{x},{2 * x + 0.1}\n" for x in range(6, 40))
    (specs / "data" / "points.csv").write_text(rows)
    assert build_gallery(spec_list(specs), gallery).rendered == ["trend"]
    bound = max(len(BARS), len(TREND)) + 1  # the specs fit; the data file does not
    assert len(rows) > bound
    monkeypatch.setattr(manifest, "MAX_INPUT_BYTES", bound)
    report = check_gallery(spec_list(specs), gallery)
    assert not report.failed, report.problems  # before: "points.csv cannot be read (larger than 0 MB)"
    assert build_gallery(spec_list(specs), gallery).rendered == []
    (specs / "trend.yaml").write_text(TREND + "#" * bound + "\n")  # a spec keeps its bound
    report = check_gallery(spec_list(specs), gallery)
    unreadable = msg.chart_input_unreadable(os.path.relpath(specs / "trend.yaml"), "larger than 0 MB")
    trend = [p for p in report.problems if "/trend." in p]
    assert len(trend) == 5 and all(p.endswith(f"({unreadable})") for p in trend), report.problems


@pytest.fixture
def kept_hashes(monkeypatch, tmp_path):
    """Every data file large enough to have its hash kept, and settled at once: the hash cache's module."""
    from chartc.infra import datahash

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(datahash, "HASHED_ASIDE_BYTES", 1)
    monkeypatch.setattr(datahash, "SETTLED_NS", 0)
    return datahash


def test_a_changed_large_data_file_makes_its_chart_stale(project, kept_hashes):
    gallery, points = project / "gallery", project / "specs" / "data" / "points.csv"
    assert not check_gallery(spec_list(project / "specs"), gallery).failed
    assert kept_hashes.cached_hash(points.resolve(), kept_hashes.file_state(points)) == input_hash(POINTS.encode())
    # New bytes of the same size, the modification time put back: the status-change time still moved.
    before = os.stat(points)
    points.write_text(POINTS.replace("6.2", "6.3"))
    os.utime(points, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(points).st_size == before.st_size and os.stat(points).st_mtime_ns == before.st_mtime_ns
    report = check_gallery(spec_list(project / "specs"), gallery)
    trend = [p for p in report.problems if "/trend." in p]
    assert len(trend) == 5 and all(p.endswith("points.csv changed)") for p in trend), report.problems
    assert build_gallery(spec_list(project / "specs"), gallery).rendered == ["trend"]
    assert not check_gallery(spec_list(project / "specs"), gallery).failed


def counted_reads(datahash, monkeypatch) -> list[str]:
    """The names of the files `datahash.read_blocks` reads from now on, in order."""
    reads = []
    real_read_blocks = datahash.read_blocks

    def counted(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real_read_blocks(path, *args, **kwargs)

    monkeypatch.setattr(datahash, "read_blocks", counted)
    return reads


def test_the_check_of_an_unchanged_large_data_file_reads_nothing_of_it(project, kept_hashes, monkeypatch):
    gallery, points = project / "gallery", project / "specs" / "data" / "points.csv"
    assert not check_gallery(spec_list(project / "specs"), gallery).failed  # hashed once, and kept
    reads = counted_reads(kept_hashes, monkeypatch)
    assert not check_gallery(spec_list(project / "specs"), gallery).failed
    assert build_gallery(spec_list(project / "specs"), gallery).rendered == []
    assert reads == []
    # The kept hash is what answers: planted, it makes the chart stale with no byte read.
    entry = kept_hashes.hash_entry_path(points.resolve())
    entry.write_text(entry.read_text().replace(input_hash(POINTS.encode()), "0" * 64))
    report = check_gallery(spec_list(project / "specs"), gallery)
    assert any(p.endswith("points.csv changed)") for p in report.problems) and reads == [], report.problems


@pytest.mark.slow
def test_a_chart_of_a_70_mb_parquet_file_is_built_checked_and_left_alone(tmp_path, monkeypatch, capsys):
    """The commands a user runs, on a data file past the 50 MB a spec may have: the check passes, the
    second build renders nothing, neither reads the file (the first build kept its hash), and a
    changed byte makes the chart stale."""
    import time

    import duckdb

    from chartc.infra import datahash

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "specs" / "data").mkdir(parents=True)
    data = tmp_path / "specs" / "data" / "logs.parquet"
    duckdb.sql(f"COPY (SELECT chr(97 + (i % 5)::INT) AS k, random() AS v, random() AS w FROM range(4500000) t(i)) "
               f"TO '{data}' (FORMAT parquet, COMPRESSION uncompressed)")
    written = time.time()
    assert data.stat().st_size > 70 * 1024 * 1024
    (tmp_path / "specs" / "logs.yaml").write_text(
        "title: Mean loss by run\ndata: {path: data/logs.parquet}\nmark: bar\n"
        "encoding:\n  x: {field: k, type: nominal}\n  y: {field: v, aggregate: mean}\n")
    time.sleep(max(0.0, written + datahash.SETTLED_NS / 1e9 + 0.1 - time.time()))  # settled: its hash is kept
    # In a process of its own, as a user runs it (this one's render workers may be another test's).
    first = subprocess.run([sys.executable, "-m", "chartc", "build", "specs", "--out", "gallery"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[-1] == msg.build_summary("gallery", 1, 0, 0)
    reads = counted_reads(datahash, monkeypatch)
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == msg.check_passed(1, "gallery")
    assert main(["build", "specs", "--out", "gallery"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == msg.build_summary("gallery", 0, 1, 0)
    assert reads == []
    with data.open("r+b") as file:  # one byte of its rows changed, its size kept
        file.seek(data.stat().st_size // 2)
        byte = file.read(1)
        file.seek(-1, 1)
        file.write(bytes([byte[0] ^ 1]))
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 1
    assert "specs/data/logs.parquet changed)" in capsys.readouterr().err


# ------------------------------------------------------------------ globs

RUNS = """\
title: Runs
data: {path: data/runs/*.csv}
mark: bar
encoding: {x: k, y: v}
"""


@pytest.fixture
def runs_project(tmp_path, monkeypatch):
    """A git project whose specs/runs.yaml reads the glob data/runs/*.csv (two files), built once, as cwd."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    runs = tmp_path / "specs" / "data" / "runs"
    runs.mkdir(parents=True)
    (runs / "a.csv").write_text("k,v\na,1\n")
    (runs / "b.csv").write_text("k,v\nb,3\n")
    (tmp_path / "specs" / "runs.yaml").write_text(RUNS)
    assert main(["build", "specs", "--out", "gallery"]) == 0
    return runs


def assert_glob_stale(capsys, reason: str) -> None:
    """`build --check` fails naming the glob for every output of the chart; `build` renders it; then it is a no-op."""
    capsys.readouterr()
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 1
    stale = sorted(line for line in capsys.readouterr().err.splitlines() if "stale" in line)
    assert stale == [f"gallery/runs.{suffix}: stale ({reason})" for suffix in ("html", "png", "svg", "vl.json")]
    assert main(["build", "specs", "--out", "gallery"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == msg.build_summary("gallery", 1, 0, 0)
    assert main(["build", "specs", "--out", "gallery"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == msg.build_summary("gallery", 0, 1, 0)
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 0


def test_a_glob_is_an_input_of_its_chart(runs_project):
    """Recorded as the compile identifies it: one "path from the spec's folder \\0 file hash" line per match."""
    record = read_manifest(Path("gallery")).charts["runs"]
    listing = "".join(f"data/runs/{name}\0{input_hash((runs_project / name).read_bytes())}\n" for name in ("a.csv", "b.csv"))
    assert record.inputs == {"../specs/runs.yaml": input_hash(RUNS.encode()),
                             "glob:../specs/data/runs/*.csv": hashlib.sha256(listing.encode()).hexdigest()}


def test_the_check_of_a_glob_imports_no_data_stage(runs_project):
    code = ("import sys\nfrom chartc.commands.cli import main\n"
            "codes = [main(['build', 'specs', '--out', 'gallery', *extra]) for extra in ([], ['--check'])]\n"
            f"print(codes, [m for m in {HEAVY + ('duckdb', 'chartc.stages.data')!r} if m in sys.modules])\n")
    result = run_python(code, runs_project.parent.parent.parent)
    assert result.stdout.splitlines()[-1] == "[0, 0] []", result.stderr


def test_a_changed_file_of_a_glob_makes_its_chart_stale(runs_project, capsys):
    (runs_project / "b.csv").write_text("k,v\nb,4\n")
    assert_glob_stale(capsys, msg.chart_input_changed("specs/data/runs/*.csv"))


def test_a_file_added_to_a_glob_makes_its_chart_stale(runs_project, capsys):
    (runs_project / "c.csv").write_text("k,v\nc,2\n")
    assert_glob_stale(capsys, msg.chart_input_changed("specs/data/runs/*.csv"))
    datasets = json.loads(Path("gallery/runs.vl.json").read_text())["datasets"]
    assert [row["k"] for rows in datasets.values() for row in rows] == ["a", "b", "c"]


def test_a_file_removed_from_a_glob_makes_its_chart_stale(runs_project, capsys):
    (runs_project / "b.csv").unlink()
    assert_glob_stale(capsys, msg.chart_input_changed("specs/data/runs/*.csv"))


def test_a_glob_matching_nothing_any_more_is_gone(runs_project, capsys):
    for file in runs_project.iterdir():
        file.unlink()
    capsys.readouterr()
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 1
    stale = sorted(line for line in capsys.readouterr().err.splitlines() if "stale" in line)
    assert stale == [f"gallery/runs.{suffix}: stale ({msg.chart_input_missing('specs/data/runs/*.csv')})"
                     for suffix in ("html", "png", "svg", "vl.json")]


def test_the_check_of_an_unchanged_large_glob_reads_nothing_of_it(runs_project, kept_hashes, monkeypatch, capsys):
    assert main(["build", "specs", "--out", "gallery", "--force"]) == 0  # the files' hashes kept
    reads = counted_reads(kept_hashes, monkeypatch)
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 0
    assert main(["build", "specs", "--out", "gallery"]) == 0
    assert reads == []
    (runs_project / "b.csv").write_text("k,v\nb,4\n")
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 1
    assert reads == ["b.csv"]


def test_a_glob_match_out_of_the_project_is_not_read_and_leaves_its_chart_stale(runs_project, tmp_path, monkeypatch,
                                                                                capsys):
    from chartc.infra import datahash

    outside = tmp_path.parent / f"{tmp_path.name}-outside.csv"
    outside.write_text("k,v\nz,9\n")
    (runs_project / "z.csv").symlink_to(outside)
    reads = counted_reads(datahash, monkeypatch)
    capsys.readouterr()
    assert main(["build", "specs", "--out", "gallery", "--check"]) == 1
    assert f"gallery/runs.svg: stale ({msg.chart_input_changed('specs/data/runs/*.csv')})" in capsys.readouterr().err
    assert reads == []


def test_a_lookups_glob_is_an_input_too(runs_project, capsys):
    (runs_project.parent / "names").mkdir()
    (runs_project.parent / "names" / "a.csv").write_text("k,name\na,first\n")
    (runs_project.parent / "names" / "b.csv").write_text("k,name\nb,second\n")
    Path("specs/runs.yaml").write_text(RUNS + "transform:\n  - lookup: k\n"
                                       "    from: {data: {path: data/names/*.csv}, key: k, fields: [name]}\n")
    assert main(["build", "specs", "--out", "gallery"]) == 0
    assert "glob:../specs/data/names/*.csv" in read_manifest(Path("gallery")).charts["runs"].inputs
    (runs_project.parent / "names" / "b.csv").write_text("k,name\nb,other\n")
    assert_glob_stale(capsys, msg.chart_input_changed("specs/data/names/*.csv"))


def test_serve_watches_the_files_a_glob_matches(runs_project):
    from chartc.commands.serve import watched_files

    (runs_project / "c.csv").write_text("k,v\nc,2\n")  # not built yet: the watcher sees it as new
    watched = watched_files([Path("specs/runs.yaml")], Path("gallery"))
    assert sorted({os.path.relpath(path) for path in watched}) == [
        "specs/data/runs/a.csv", "specs/data/runs/b.csv", "specs/data/runs/c.csv", "specs/runs.yaml"]


# ------------------------------------------------------------------ failures

def test_a_broken_spec_reports_diagnostics_and_the_others_still_build(tmp_path):
    specs = make_project(tmp_path)
    (specs / "broken.yaml").write_text("title: Broken\ndata: {values: [{a: 1}]}\nmark: bar\nencoding:\n  x: {field: nope}\n")
    report = build_gallery(spec_list(specs), tmp_path / "gallery")
    assert report.failed
    assert any(p.startswith(f"{specs / 'broken.yaml'}:5:") and "nope" in p for p in report.problems), report.problems
    assert report.rendered == ["bars", "trend"]
    assert not list((tmp_path / "gallery").glob("broken.*"))


@pytest.mark.slow
def test_a_chart_the_renderer_refuses_is_placed_at_its_expression_and_the_others_build(tmp_path):
    specs = make_project(tmp_path)
    # Vega refuses the bare name `x` in a label expression only when drawing (in a filter the parse stage does).
    (specs / "bare.yaml").write_text('data: {values: [{a: 1, b: 2}]}\nmark: point\nencoding: {x: a, y: b}\n'
                                     'vega_lite: {encoding: {x: {axis: {labelExpr: "x"}}}}\n')
    report = build_gallery(spec_list(specs), tmp_path / "gallery", jobs=1)
    reason = msg.render_refused('Unrecognized signal name: "x"')
    assert [p for p in report.problems if "bare.yaml" in p] == [
        f"{specs / 'bare.yaml'}:4:35: {label(reason)}: vega_lite.encoding.x.axis.labelExpr: {reason} "
        f"({msg.render_refused_hint()})"]
    assert report.rendered == ["bars", "trend"]
    assert not list((tmp_path / "gallery").glob("bare.*"))


@pytest.mark.slow
def test_a_spec_broken_after_a_build_keeps_its_previous_outputs(project):
    gallery = project / "gallery"
    before = (gallery / "bars.svg").read_bytes()
    (project / "specs" / "bars.yaml").write_text(BARS.replace("encoding: {x: k, y: v}", "encoding: {x: k, y: nope}"))
    report = build_gallery(spec_list(project / "specs"), gallery)
    assert report.failed and report.rendered == []
    assert (gallery / "bars.svg").read_bytes() == before
    assert check_gallery(spec_list(project / "specs"), gallery).failed  # and it is still stale


def test_two_specs_with_the_same_output_name_are_an_error(tmp_path):
    specs = make_project(tmp_path)
    (specs / "more").mkdir()
    (specs / "more" / "bars.yaml").write_text(BARS)
    report = build_gallery([specs / "bars.yaml", specs / "more" / "bars.yaml"], tmp_path / "gallery")
    assert report.failed
    assert report.problems == [
        f"{specs / 'more' / 'bars.yaml'}: {label(msg.duplicate_output_stem('bars', ''))}: "
        f"{msg.duplicate_output_stem('bars', str(specs / 'bars.yaml'))}"]


def test_a_spec_named_index_is_refused_and_the_index_page_kept(tmp_path):
    specs = make_project(tmp_path)
    (specs / "index.yaml").write_text(BARS)
    report = build_gallery(sorted(specs.glob("*.yaml")), tmp_path / "gallery")
    assert report.failed
    problem = msg.reserved_output_stem('index', 'index.html')
    assert f"{specs / 'index.yaml'}: {label(problem)}: {problem}" in report.problems
    assert "chartc gallery" in (tmp_path / "gallery" / "index.html").read_text(encoding="utf-8").lower()
    assert not (tmp_path / "gallery" / "index.svg").exists()


def test_a_schema_reference_to_a_device_or_a_huge_file_is_not_read(tmp_path):
    from chartc.stages.load import load_spec
    from chartc.stages.validate import MAX_SCHEMA_COPY_BYTES, check_schema_reference

    spec = tmp_path / "s.yaml"
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with open(tmp_path / "big.json", "wb") as stream:
        stream.truncate(MAX_SCHEMA_COPY_BYTES + 1)
    for target in ("zero.json", "big.json"):  # relative: what chartc init writes, and what it reads back
        spec.write_text(f"$schema: {target}\ntitle: x\ndata: {{values: [{{a: 1}}]}}\nmark: point\n")
        assert check_schema_reference(load_spec(spec)) == []


def dead_pid() -> int:
    """The id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def killed_build_file(gallery: Path, name: str) -> Path:
    """A file staged by a build whose process is gone, where chartc stages them."""
    from chartc.infra.files import STAGING_DIR

    path = gallery / STAGING_DIR / f"{dead_pid()}-{'0' * 16}" / name
    path.parent.mkdir(parents=True)
    path.write_bytes(b"partial")
    return path


def test_leftover_temp_files_are_removed_by_the_next_build(project):
    # Only chartc's own staging folder is swept (a file named like the old
    # ".NAME.XXXXXXXX.tmp" temporary files may be the user's, and is kept).
    from chartc.infra.files import STAGING_DIR

    leftover = killed_build_file(project / "gallery", "bars.png")
    users = project / "gallery" / ".bars.png.x1y2z3w4.tmp"
    users.write_bytes(b"the user's")
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert not leftover.exists() and not (project / "gallery" / STAGING_DIR).exists()
    assert report.lines[0] == msg.leftover_removed(str(leftover))
    assert users.read_bytes() == b"the user's"


def test_unreadable_manifest_means_a_full_rebuild(project):
    (project / "gallery" / MANIFEST_NAME).write_text("<<<<<<< HEAD\n")
    report = build_gallery(spec_list(project / "specs"), project / "gallery")
    assert report.rendered == ["bars", "trend"]
    assert read_manifest(project / "gallery") is not None


# --------------------------------------------------------------------- links

def test_index_links_are_percent_encoded():
    from chartc.commands.gallery import index_page

    page = index_page([("a#b", "Hash"), ("what?", "Query"), ("50%", "Percent")])
    assert '<a href="a%23b.html"><img src="a%23b.png" loading="lazy" alt="Hash"></a>' in page
    assert '<a href="what%3F.svg">SVG</a>' in page and '<a href="50%25.vl.json">Vega-Lite</a>' in page
    assert 'id="chart-a#b"' in page  # an id is no link
    assert 'href="a#b' not in page and 'href="what?' not in page


def test_chart_page_download_links_are_percent_encoded(tmp_path):
    from chartc.commands.gallery import chart_page
    from chartc.pipeline import compile_spec

    spec = tmp_path / "what?#1.yaml"
    spec.write_text(BARS)
    page = chart_page(compile_spec(spec))
    assert '<a href="what%3F%231.svg" download>SVG</a>' in page
    assert '<a href="what%3F%231.vl.json" download>Vega-Lite JSON</a>' in page


# ----------------------------------------------------------------- pre-commit

def test_pre_commit_hooks_offer_validate_and_check():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["chartc-validate"]["entry"] == "chartc validate"
    assert hooks["chartc-validate"]["pass_filenames"] is True
    assert hooks["chartc-check"]["entry"] == "chartc build --check"
    assert hooks["chartc-check"]["pass_filenames"] is False
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["files"].startswith("^")


# ------------------------------------------------------- across the process boundary

TWO_PROBLEMS = """\
title: Bars
data:
  values: [{kind: a, v: 1}, {kind: b, v: 3}]
mark: bar
encoding: {x: kinf, y: vv}
"""


def every_field(problem) -> dict:
    """All of a problem's attributes, its type included (`errors` lists the problem itself: checked apart)."""
    assert getattr(problem, "errors", [problem]) == [problem]  # a warning is not an exception: no `errors`
    fields = {key: value for key, value in vars(problem).items() if key != "errors"}
    return {"type": type(problem), "severity": problem.severity, **fields}


def a_warning():
    """A task for a worker: a SpecWarning with no field left at its default."""
    from chartc.errors import Location, SpecWarning

    return SpecWarning("text replaced", ("data", "values", 0, "k"), location=Location("w.yaml", 3, 9),
                       stage="data", hint="a control character", code="W401")


@pytest.mark.slow
def test_a_charts_problems_cross_from_a_worker_process_with_every_field(tmp_path):
    from chartc.commands.gallery import RENDER_MODULES, render_chart
    from chartc.errors import Location
    from chartc.render.workers import WorkerPool

    spec = tmp_path / "bad.yaml"
    spec.write_text(TWO_PROBLEMS)
    with WorkerPool(1, warm=None, preload=RENDER_MODULES) as pool:
        rendered, warning = pool.run([(render_chart, (str(spec),)), (a_warning, ())])
    assert rendered.kind == "ok" and warning.kind == "ok"
    assert rendered.value.outputs == {}
    sent = [every_field(problem) for problem in rendered.value.problems]
    assert sent == [every_field(problem) for problem in render_chart(str(spec)).problems]  # as made in this process
    assert [(p["location"], p["path"], p["message"]) for p in sent] == [
        (Location(str(spec), 5, 15), ("encoding", "x"), msg.field_not_found("kinf", ["kind", "v"])),
        (Location(str(spec), 5, 24), ("encoding", "y"), msg.field_not_found("vv", ["kind", "v"]))]
    assert all(p["hint"] and p["stage"] == "check" and p["severity"] == "error" for p in sent)
    assert [p["code"] for p in sent] == [msg.field_not_found.code] * 2
    assert every_field(warning.value) == every_field(a_warning())
    assert warning.value.diagnostic() == ("w.yaml:3:9: warning[W401]: data.values[0].k: text replaced "
                                          "(a control character)")
