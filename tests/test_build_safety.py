"""Gallery builds trust nothing from the repository, lose no edit, and run one at a time per folder.

- The manifest arrives through pull requests: every entry that could make a
  build delete or read a file it should not is refused, with a diagnostic
  that names the manifest and the entry (build and ``--check`` exit 1).
- Each chart is recorded with the hashes of the bytes it was compiled from:
  a file saved while the chart renders leaves it stale for the next build.
- One build per output folder (an OS lock); temporary files live in the
  build's own staging folder, so no user file is ever taken for one.
- Faults are injected for real where this machine allows: SIGKILL at several
  moments, two builds at once, a read-only folder and a full disk on a small
  tmpfs (mounted when running as root; otherwise the folder is made read-only
  with chmod, or the system call is made to fail, and the test says which).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands.cli import main
from chartc.errors import format_path
from chartc.infra.files import STAGING_DIR
from chartc.commands.gallery import LOCK_NAME, build_gallery, check_gallery
from chartc.commands.manifest import (MANIFEST_NAME, MAX_CHARTS, MAX_INPUT_BYTES, MAX_MANIFEST_BYTES, MAX_TITLE_CHARS,
                                      read_manifest, toolchain)
from chartc.infra.provenance import input_hash, output_hash

from test_determinism import start_build
from conftest import label

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
  - trend: {method: linear}
"""

POINTS = "x,y\n1,2.1\n2,3.9\n3,6.2\n4,7.8\n5,10.1\n"
HASH = "0" * 64


def make_project(root: Path) -> Path:
    (root / "specs" / "data").mkdir(parents=True)
    (root / "specs" / "bars.yaml").write_text(BARS)
    (root / "specs" / "trend.yaml").write_text(TREND)
    (root / "specs" / "data" / "points.csv").write_text(POINTS)
    (root / "gallery").mkdir()
    return root / "specs"


def specs_of(root: Path) -> list[Path]:
    return sorted((root / "specs").glob("*.yaml"))


def entries(folder: Path) -> dict[str, bytes | None]:
    """Every entry of a folder: a file's bytes, None for anything else."""
    return {p.name: p.read_bytes() if p.is_file() and not p.is_symlink() else None for p in sorted(folder.iterdir())}


def outputs_of(folder: Path) -> dict[str, bytes | None]:
    """`entries`, the manifest without its tool versions: chartc's source hash is one of them, and
    changes whenever a file of chartc is saved (in a shared checkout, while a test runs)."""
    found = entries(folder)
    if found.get(MANIFEST_NAME):
        manifest = json.loads(found[MANIFEST_NAME])
        manifest.pop("tools")
        found[MANIFEST_NAME] = json.dumps(manifest, sort_keys=True).encode()
    return found


# ------------------------------------------------------------------ a manifest from the repository

def hand_made_manifest(root: Path) -> dict:
    """A well-formed manifest for specs/bars.yaml (no outputs need exist to refuse one)."""
    return {"format": 1, "tools": toolchain(), "index": {}, "charts": {"bars": {
        "spec": "../specs/bars.yaml", "title": "Bars",
        "inputs": {"../specs/bars.yaml": input_hash(BARS.encode())},
        "outputs": {"bars.svg": HASH}}}}


def write_manifest(gallery: Path, manifest: dict) -> str:
    text = json.dumps(manifest, indent=2)
    (gallery / MANIFEST_NAME).write_text(text)
    return text


def where(text: str, needle: str) -> tuple[int, int]:
    """1-based line and column of the first `needle` in `text`."""
    before = text[:text.index(needle)]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def refused(gallery: Path, position: tuple[int, int], entry: tuple, message: str) -> str:
    manifest = str(gallery / MANIFEST_NAME)
    return (f"{manifest}:{position[0]}:{position[1]}: {label(message)}: {format_path(entry)}: {message} "
            f"({msg.manifest_refused_hint(manifest)})")


def _output(name):
    def change(manifest, root):
        manifest["charts"]["bars"]["outputs"][name] = HASH
        return ("charts", "bars", "outputs", name), json.dumps(name), msg.manifest_output_refused(name, "bars")
    return change


def _input(key, message, prepare=None):
    def change(manifest, root):
        if prepare:
            prepare(root)
        manifest["charts"]["bars"]["inputs"][key] = HASH
        return ("charts", "bars", "inputs", key), json.dumps(key), message(root)
    return change


def _symlink(name, target):
    def prepare(root):
        (root / "specs" / "data" / name).symlink_to(target(root) if callable(target) else target)
    return prepare


def _outside(root):
    (root.parent / "outside.csv").write_text(POINTS)
    return root.parent / "outside.csv"


def _record(key, value, entry, message, needle):
    def change(manifest, root):
        manifest["charts"]["bars"][key] = value
        return ("charts", "bars") + entry, needle, message
    return change


REFUSED = {
    "output ../victim.txt": _output("../victim.txt"),
    "absolute output": _output("/tmp/victim.txt"),
    "output README.md": _output("README.md"),
    "output manifest.json": _output(MANIFEST_NAME),
    "input /dev/zero": _input("/dev/zero", lambda root: msg.manifest_path_absolute("/dev/zero")),
    "input ../../dev/zero": _input("../" * 30 + "dev/zero",
                                   lambda root: msg.manifest_path_outside("../" * 30 + "dev/zero", "/dev/zero")),
    "input not normalised": _input("../specs/./bars.yaml", lambda root: msg.manifest_path_not_normal(
        "../specs/./bars.yaml", "../specs/bars.yaml")),
    "input symlink to /dev/zero": _input(
        "../specs/data/zero.csv", lambda root: msg.manifest_path_outside("../specs/data/zero.csv", "/dev/zero"),
        _symlink("zero.csv", "/dev/zero")),
    "input symlink out of the project": _input(
        "../specs/data/out.csv",
        lambda root: msg.manifest_path_outside("../specs/data/out.csv", str(root.parent / "outside.csv")),
        _symlink("out.csv", _outside)),
    "input FIFO": _input("../specs/data/pipe.csv",
                         lambda root: msg.manifest_path_not_regular("../specs/data/pipe.csv", "a FIFO"),
                         lambda root: os.mkfifo(root / "specs" / "data" / "pipe.csv")),
    "input glob /dev/*": _input("glob:/dev/*", lambda root: msg.manifest_path_absolute("/dev/*")),
    "input glob out of the project": _input(
        "glob:../../*.csv", lambda root: msg.manifest_path_outside("glob:../../*.csv", str(root.parent))),
    "input glob with no wildcard": _input(
        "glob:../specs/bars.yaml", lambda root: msg.manifest_expected("a glob", "'../specs/bars.yaml'")),
    "input bad dataset": _input("dataset:../cars", lambda root: msg.manifest_dataset_refused("dataset:../cars")),
    "spec outside the project": _record("spec", "../../outside.yaml", ("spec",), None, '"spec"'),
    "hash not a hash": _record("outputs", {"bars.svg": "abc"}, ("outputs", "bars.svg"),
                               msg.manifest_hash_refused("'abc'"), '"bars.svg"'),
    "outputs a list": _record("outputs", ["bars.svg"], ("outputs",),
                              msg.manifest_expected("a JSON object", "a list"), '"outputs"'),
    "title too long": _record("title", "t" * (MAX_TITLE_CHARS + 1), ("title",),
                              msg.manifest_text_too_long(MAX_TITLE_CHARS + 1, MAX_TITLE_CHARS), '"title"'),
}


def _spec_outside_message(root: Path) -> str:
    return msg.manifest_path_outside("../../outside.yaml", str(root.parent / "outside.yaml"))


@pytest.mark.parametrize("case", sorted(REFUSED), ids=str)
def test_a_manifest_entry_that_reaches_outside_is_refused_and_nothing_is_touched(tmp_path, monkeypatch, case):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    gallery = root / "gallery"
    victim = root / "victim.txt"
    victim.write_text("precious")
    (gallery / "README.md").write_text("the user's")
    (root.parent / "outside.yaml").write_text(BARS)
    manifest = hand_made_manifest(root)
    entry, needle, message = REFUSED[case](manifest, root)
    if message is None:
        message = _spec_outside_message(root)
    text = write_manifest(gallery, manifest)
    before = entries(gallery)
    expected = refused(gallery, where(text, needle), entry, message)

    report = build_gallery(specs_of(root), gallery)
    assert (report.failed, report.problems, report.lines, report.removed) == (True, [expected], [], [])
    assert entries(gallery) == before and victim.read_text() == "precious"

    check = check_gallery(specs_of(root), gallery)
    assert (check.failed, check.problems) == (True, [expected])


def test_a_manifest_refused_fails_the_command_line_build_and_check(tmp_path, monkeypatch, capsys):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    manifest = hand_made_manifest(root)
    manifest["charts"]["bars"]["outputs"]["../victim.txt"] = HASH
    text = write_manifest(root / "gallery", manifest)
    expected = refused(Path("gallery"), where(text, '"../victim.txt"'),
                       ("charts", "bars", "outputs", "../victim.txt"),
                       msg.manifest_output_refused("../victim.txt", "bars"))
    (root / "victim.txt").write_text("precious")
    for extra in ([], ["--check"]):
        assert main(["build", "specs", "--out", "gallery", *extra]) == 1
        assert capsys.readouterr() == ("", expected + "\n")
    assert (root / "victim.txt").read_text() == "precious"


@pytest.mark.parametrize("case", ["too many charts", "a key twice", "a stem with a slash", "no spec"])
def test_malformed_manifests_are_refused_where_they_go_wrong(tmp_path, monkeypatch, case):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    gallery = root / "gallery"
    manifest = hand_made_manifest(root)
    bars = manifest["charts"]["bars"]
    if case == "too many charts":
        manifest["charts"] = {f"c{i}": bars for i in range(MAX_CHARTS + 1)}
        text = json.dumps(manifest, separators=(",", ":"))
        entry, message, position = ("charts",), msg.manifest_too_many(MAX_CHARTS + 1, MAX_CHARTS), (1, 1)
    elif case == "a key twice":
        text = json.dumps(manifest, indent=2).replace(
            '"bars.svg": "' + HASH + '"', '"bars.svg": "' + HASH + '", "bars.svg": "' + HASH + '"')
        entry, message = (), msg.manifest_duplicate_key("bars.svg")
        line, column = where(text, '"bars.svg"')
        position = (line, column + len('"bars.svg": "' + HASH + '", '))  # the loader points at the second one
    elif case == "a stem with a slash":
        manifest["charts"] = {"../bars": bars}
        text = json.dumps(manifest, indent=2)
        entry, message, position = ("charts", "../bars"), msg.manifest_stem_refused("../bars"), where(text, '"../bars"')
    else:
        del bars["spec"]
        text = json.dumps(manifest, indent=2)
        entry, message, position = ("charts", "bars"), msg.manifest_key_missing("spec"), where(text, '"bars"')
    (gallery / MANIFEST_NAME).write_text(text)
    report = build_gallery(specs_of(root), gallery)
    assert (report.failed, report.problems) == (True, [refused(gallery, position, entry, message)])


@pytest.mark.parametrize("kind", ["symlink to /dev/zero", "FIFO", "larger than the bound"])
def test_a_manifest_file_that_is_not_a_small_regular_file_is_not_read(tmp_path, monkeypatch, kind):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    gallery = root / "gallery"
    path = gallery / MANIFEST_NAME
    if kind == "symlink to /dev/zero":
        path.symlink_to("/dev/zero")
        reason = "a symbolic link, not a regular file"
    elif kind == "FIFO":
        os.mkfifo(path)  # a blocking open would hang the build
        reason = "a FIFO, not a regular file"
    else:
        with open(path, "wb") as stream:  # sparse: nothing is read to refuse it
            stream.truncate(MAX_MANIFEST_BYTES + 1)
        reason = f"larger than {MAX_MANIFEST_BYTES >> 20} MB"
    started = time.monotonic()
    report = check_gallery(specs_of(root), gallery)
    assert report.problems == [refused(gallery, (1, 1), (), msg.manifest_unreadable(reason))]
    assert time.monotonic() - started < 5


def test_the_input_bound_lets_through_every_file_a_compile_accepts():
    from chartc.stages.load import MAX_SPEC_BYTES
    from chartc.stages.data import MAX_FILE_BYTES

    assert MAX_INPUT_BYTES >= max(MAX_SPEC_BYTES, MAX_FILE_BYTES)


def test_a_spec_over_the_size_bound_is_stale_without_being_read(tmp_path, monkeypatch):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    with open(root / "specs" / "bars.yaml", "r+b") as stream:
        stream.truncate(MAX_INPUT_BYTES + 1)
    manifest = hand_made_manifest(root)
    manifest["charts"]["bars"]["outputs"]["bars.svg"] = output_hash(b"<svg/>")
    (root / "gallery" / "bars.svg").write_bytes(b"<svg/>")
    write_manifest(root / "gallery", manifest)
    report = check_gallery(specs_of(root)[:1], root / "gallery")
    reason = msg.chart_input_unreadable("specs/bars.yaml", f"larger than {MAX_INPUT_BYTES >> 20} MB")
    assert f"{root / 'gallery' / 'bars.svg'}: {msg.output_stale(reason)}" in report.problems


def test_a_data_file_over_the_size_bound_is_hashed_in_full(tmp_path, monkeypatch):
    """A data file has no size bound: the compile streams it, and the check hashes it the same way."""
    import hashlib

    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    big = root / "specs" / "data" / "big.csv"
    with open(big, "wb") as stream:
        stream.truncate(MAX_INPUT_BYTES + 1)
    manifest = hand_made_manifest(root)
    manifest["charts"]["bars"]["inputs"]["../specs/data/big.csv"] = HASH
    manifest["charts"]["bars"]["outputs"]["bars.svg"] = output_hash(b"<svg/>")
    (root / "gallery" / "bars.svg").write_bytes(b"<svg/>")
    write_manifest(root / "gallery", manifest)
    report = check_gallery(specs_of(root)[:1], root / "gallery")
    reason = msg.chart_input_changed("specs/data/big.csv")
    assert f"{root / 'gallery' / 'bars.svg'}: {msg.output_stale(reason)}" in report.problems
    manifest["charts"]["bars"]["inputs"]["../specs/data/big.csv"] = hashlib.sha256(bytes(MAX_INPUT_BYTES + 1)).hexdigest()
    write_manifest(root / "gallery", manifest)
    report = check_gallery(specs_of(root)[:1], root / "gallery")
    assert not [p for p in report.problems if "bars.svg" in p], report.problems


def test_an_output_that_is_a_symlink_is_not_followed(tmp_path, monkeypatch):
    """A committed ``gallery/bars.svg -> elsewhere`` is neither read nor, when removed, followed."""
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    gallery = root / "gallery"
    victim = root / "victim.svg"
    victim.write_text("<svg/>")
    manifest = hand_made_manifest(root)
    manifest["charts"]["bars"]["outputs"] = {"bars.svg": output_hash(victim.read_bytes())}
    write_manifest(gallery, manifest)
    (gallery / "bars.svg").symlink_to(victim)
    check = check_gallery(specs_of(root)[:1], gallery)
    assert f"{gallery / 'bars.svg'}: {msg.output_modified()}" in check.problems  # its target is not hashed

    (root / "specs" / "bars.yaml").unlink()  # the chart goes: its symlink is removed, not its target
    report = build_gallery([], gallery)
    assert report.removed == ["bars.svg"] and not os.path.lexists(gallery / "bars.svg")
    assert victim.read_text() == "<svg/>"


# ------------------------------------------------------------------ the lock

HOLD_LOCK = """\
import fcntl, os, sys, time
handle = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(handle, fcntl.LOCK_EX)
os.write(handle, f"{os.getpid()}\\n".encode())
print("locked", flush=True)
time.sleep(60)
"""


def test_a_second_build_stops_at_once_and_writes_nothing(tmp_path, monkeypatch, capsys):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    gallery = root / "gallery"
    (gallery / ".notes.txt.abcd1234.tmp").write_text("the user's")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(gallery / LOCK_NAME)], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        before = entries(gallery)
        started = time.monotonic()
        assert main(["build", "specs", "--out", "gallery"]) == 1
        assert capsys.readouterr() == ("", f"gallery: error: {msg.build_locked('gallery', str(holder.pid))}\n")
        assert time.monotonic() - started < 5  # it did not wait
        assert entries(gallery) == before
        check = check_gallery(specs_of(root), gallery)  # --check takes no lock
        assert check.failed and not [p for p in check.problems if LOCK_NAME in p]
    finally:
        holder.kill()
        holder.wait()


# ------------------------------------------------------------------ edits and deletions during a build

@pytest.fixture(scope="module")
def built_in_process(tmp_path_factory):
    """A gallery built in this process (``jobs=0``), so patches of the render reach it."""
    root = tmp_path_factory.mktemp("built")
    make_project(root)
    report = build_gallery(specs_of(root), root / "gallery", jobs=0)
    assert not report.failed, report.problems
    return root


@pytest.fixture
def project(built_in_process, tmp_path, monkeypatch):
    shutil.copytree(built_in_process, tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    return tmp_path / "p"


def during_render(monkeypatch, stem: str, action) -> None:
    """Run `action` once, after chart `stem` is compiled (its files read) and before it is recorded."""
    import chartc.commands.gallery.run as run  # where the worker's `render_chart` looks it up

    chart_outputs = run.chart_outputs

    def render_then_act(compiled):
        outputs = chart_outputs(compiled)
        if Path(compiled.document.file).name.startswith(stem + "."):
            action()
        return outputs
    monkeypatch.setattr(run, "chart_outputs", render_then_act)


@pytest.mark.slow
def test_a_spec_saved_while_its_chart_renders_stays_stale_and_the_next_build_renders_it(project, monkeypatch):
    spec = project / "specs" / "bars.yaml"
    compiled_text = BARS.replace("title: Bars", "title: Compiled")
    spec.write_text(compiled_text)
    during_render(monkeypatch, "bars", lambda: spec.write_text(BARS.replace("title: Bars", "title: Saved later")))
    report = build_gallery(specs_of(project), Path("gallery"), jobs=0)
    assert report.rendered == ["bars"] and not report.failed
    assert "Compiled" in Path("gallery/bars.svg").read_text()
    assert read_manifest(Path("gallery")).charts["bars"].inputs["../specs/bars.yaml"] == input_hash(
        compiled_text.encode())
    assert "title: Compiled" in Path("gallery/bars.html").read_text()  # the page shows the source it drew

    check = check_gallery(specs_of(project), Path("gallery"))
    stale = msg.output_stale(msg.chart_input_changed("specs/bars.yaml"))
    assert check.failed and f"gallery/bars.svg: {stale}" in check.problems

    monkeypatch.undo()
    monkeypatch.chdir(project)
    assert build_gallery(specs_of(project), Path("gallery"), jobs=0).rendered == ["bars"]
    assert "Saved later" in Path("gallery/bars.svg").read_text()
    assert not check_gallery(specs_of(project), Path("gallery")).failed


@pytest.mark.slow
def test_a_data_file_saved_while_its_chart_renders_stays_stale(project, monkeypatch):
    data = project / "specs" / "data" / "points.csv"
    data.write_text(POINTS + "6,12.2\n")
    during_render(monkeypatch, "trend", lambda: data.write_text(POINTS + "6,12.2\n7,13.9\n"))
    report = build_gallery(specs_of(project), Path("gallery"), jobs=0)
    assert report.rendered == ["trend"]
    assert '"n": 6' in Path("gallery/trend.fits.json").read_text()
    record = read_manifest(Path("gallery")).charts["trend"]
    assert record.inputs["../specs/data/points.csv"] == input_hash((POINTS + "6,12.2\n").encode())
    check = check_gallery(specs_of(project), Path("gallery"))
    assert f"gallery/trend.svg: {msg.output_stale(msg.chart_input_changed('specs/data/points.csv'))}" in check.problems
    monkeypatch.undo()
    monkeypatch.chdir(project)
    assert build_gallery(specs_of(project), Path("gallery"), jobs=0).rendered == ["trend"]
    assert '"n": 7' in Path("gallery/trend.fits.json").read_text()


@pytest.mark.slow
def test_a_spec_deleted_before_it_is_read_fails_alone(project, monkeypatch):
    for spec in specs_of(project):
        spec.write_text(spec.read_text().replace("title: ", "title: New "))
    trend = Path("specs/trend.yaml")
    old_trend = Path("gallery/trend.svg").read_bytes()
    during_render(monkeypatch, "bars", trend.unlink)  # bars renders first, trend is read after
    report = build_gallery([Path("specs/bars.yaml"), trend], Path("gallery"), jobs=0)
    assert report.failed and report.rendered == ["bars"]
    [problem] = report.problems
    assert problem.startswith(f"specs/trend.yaml:1:1: {label(msg.spec_not_found('x'))}: $: {msg.spec_not_found('specs/trend.yaml')}")
    assert "New" in Path("gallery/bars.svg").read_text()
    assert Path("gallery/trend.svg").read_bytes() == old_trend  # kept until a build without it
    assert sorted(build_gallery([Path("specs/bars.yaml")], Path("gallery"), jobs=0).removed) == [
        "trend.fits.json", "trend.html", "trend.png", "trend.svg", "trend.vl.json"]


@pytest.mark.slow
def test_a_spec_deleted_after_it_was_read_gets_its_chart_then_goes(project, monkeypatch):
    bars = Path("specs/bars.yaml")
    bars.write_text(BARS.replace("title: Bars", "title: Last words"))
    during_render(monkeypatch, "bars", bars.unlink)
    report = build_gallery(specs_of(project), Path("gallery"), jobs=0)
    assert not report.failed and report.rendered == ["bars"]
    assert "Last words" in Path("gallery/bars.svg").read_text()
    check = check_gallery([Path("specs/trend.yaml")], Path("gallery"))
    assert f"gallery/bars.svg: {msg.output_orphaned('specs/bars.yaml')}" in check.problems
    assert "bars.svg" in build_gallery([Path("specs/trend.yaml")], Path("gallery"), jobs=0).removed


# ------------------------------------------------------------------ fault injection (processes)

def changed_project(tmp_path: Path) -> tuple[Path, dict, dict]:
    """A built project whose specs then changed; the gallery's bytes before, and those a build gives after."""
    root = tmp_path / "project"
    make_project(root)
    assert not build_gallery(specs_of(root), root / "gallery").failed
    before = outputs_of(root / "gallery")
    for spec in specs_of(root):
        spec.write_text(spec.read_text().replace("title: ", "title: Changed "))
    reference = tmp_path / "reference"
    shutil.copytree(root, reference)
    assert not build_gallery(specs_of(reference), reference / "gallery").failed
    return root, before, outputs_of(reference / "gallery")


PAUSE_LOCKED = """\
import pathlib, time
import chartc.commands.gallery.run as _run
def _pause(*args, **kwargs):
    pathlib.Path({marker!r}).touch()
    time.sleep(60)
_run.plan_charts = _pause
"""

PAUSE_AFTER_FIRST_RENAME = """\
import os, pathlib, time
_replace = os.replace
def _replace_then_pause(source, target):
    _replace(source, target)
    if ".chartc-staging" in str(source):
        pathlib.Path({marker!r}).touch()
        time.sleep(60)
os.replace = _replace_then_pause
"""

PAUSE_BEFORE_MANIFEST = """\
import os, pathlib, time
_replace = os.replace
def _pause_before_manifest(source, target):
    if str(target).endswith("manifest.json"):
        pathlib.Path({marker!r}).touch()
        time.sleep(60)
    _replace(source, target)
os.replace = _pause_before_manifest
"""


def wait_for(marker: Path, process: subprocess.Popen, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the build never reached the point to stop it at"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("driver", [PAUSE_LOCKED, PAUSE_AFTER_FIRST_RENAME, PAUSE_BEFORE_MANIFEST],
                         ids=["holding-the-lock", "between-renames", "before-the-manifest"])
def test_a_build_killed_at_any_moment_leaves_whole_files_and_the_next_build_repairs_it(tmp_path, driver):
    root, before, after = changed_project(tmp_path)
    gallery = root / "gallery"
    marker = tmp_path / "reached"
    process = start_build(root, "gallery", tz="UTC", seed="0", driver=driver.format(marker=str(marker)))
    wait_for(marker, process)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    killed = outputs_of(gallery)
    for name, content in killed.items():  # each file is the old one or the new one, never a part
        if name not in (LOCK_NAME, STAGING_DIR):
            assert content in (before.get(name), after.get(name)), name
    assert check_gallery(specs_of(root), gallery).failed

    report = build_gallery(specs_of(root), gallery)
    assert not report.failed, report.problems
    assert outputs_of(gallery) == after  # and no lock file or staging folder is left
    assert not check_gallery(specs_of(root), gallery).failed


WAIT_IN_RENAMES = """\
import os, pathlib, time
_replace = os.replace
def _wait_for_go(source, target):
    while ".chartc-staging" in str(source) and not pathlib.Path({go!r}).exists():
        pathlib.Path({marker!r}).touch()
        time.sleep(0.05)
    _replace(source, target)
os.replace = _wait_for_go
"""


@pytest.mark.slow
def test_two_builds_into_one_folder_the_second_stops_and_the_first_finishes(tmp_path):
    root, before, after = changed_project(tmp_path)
    gallery = root / "gallery"
    users = gallery / ".notes.txt.abcd1234.tmp"  # named like the temporary files of older versions
    users.write_text("the user's")
    marker, go = tmp_path / "staged", tmp_path / "go"
    first = start_build(root, "gallery", tz="UTC", seed="0",
                        driver=WAIT_IN_RENAMES.format(marker=str(marker), go=str(go)))
    try:
        wait_for(marker, first)
        staged = sorted(p.name for p in (gallery / STAGING_DIR).glob("*/*"))
        second = subprocess.run([sys.executable, "-m", "chartc", "build", "specs", "--out", "gallery"], cwd=root,
                                capture_output=True, text=True, timeout=120)
        assert (second.returncode, second.stdout) == (1, "")
        assert second.stderr == f"gallery: error: {msg.build_locked('gallery', str(first.pid))}\n"
        assert sorted(p.name for p in (gallery / STAGING_DIR).glob("*/*")) == staged  # the first's files are intact
        check = subprocess.run([sys.executable, "-m", "chartc", "build", "--check", "specs", "--out", "gallery"],
                               cwd=root, capture_output=True, text=True, timeout=120)
        assert check.returncode == 1 and "another chartc build" not in check.stderr  # no lock, no wait
    finally:
        go.touch()
    out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert users.read_text() == "the user's"
    assert {name: content for name, content in outputs_of(gallery).items() if name != users.name} == after
    assert not check_gallery(specs_of(root), gallery).failed


# ------------------------------------------------------------------ a read-only folder, a full disk

def mount_tmpfs(folder: Path, size: int) -> bool:
    """Mount a tmpfs of `size` bytes on `folder` (root only); False when this machine does not allow it."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, timeout=30)
    return done.returncode == 0


def umount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def remount(folder: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(folder)], check=True, capture_output=True, timeout=30)


@pytest.mark.slow
def test_a_read_only_gallery_folder_is_named_before_anything_renders(tmp_path, monkeypatch, capsys, request):
    root, before, _ = changed_project(tmp_path)
    gallery = root / "gallery"
    saved = tmp_path / "saved"
    shutil.copytree(gallery, saved)
    monkeypatch.chdir(root)
    mounted = mount_tmpfs(gallery, 8 << 20)
    if mounted:  # a real read-only file system
        request.addfinalizer(lambda: umount(gallery))
        shutil.copytree(saved, gallery, dirs_exist_ok=True)
        remount(gallery, "ro")
        reason = os.strerror(errno.EROFS)
    elif os.geteuid() != 0:  # chmod stops writes for anyone but root
        gallery.chmod(0o555)
        request.addfinalizer(lambda: gallery.chmod(0o755))
        reason = os.strerror(errno.EACCES)
    else:  # root without mount: the system call fails as on a read-only file system
        real_open = os.open

        def read_only_open(path, flags, *args, **kwargs):
            if str(path).startswith(str(gallery)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
            return real_open(path, flags, *args, **kwargs)
        monkeypatch.setattr(os, "open", read_only_open)
        reason = os.strerror(errno.EROFS)
    print("read-only folder:", "tmpfs mounted read-only" if mounted else
          "chmod 555" if os.geteuid() != 0 else "os.open patched to raise EROFS")
    capsys.readouterr()
    started = time.monotonic()
    assert main(["build", "specs", "--out", "gallery"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"chartc: error: {msg.gallery_unwritable(f'gallery/{LOCK_NAME}', reason)}\n")
    assert time.monotonic() - started < 5  # stopped before rendering anything
    assert outputs_of(gallery) == before
    assert main(["build", "--check", "specs", "--out", "gallery"]) == 1  # --check needs no write
    assert "gallery/bars.svg: stale (" in capsys.readouterr().err


@pytest.mark.slow
def test_a_full_disk_changes_no_output_and_names_the_file(tmp_path, monkeypatch, request):
    root, before, after = changed_project(tmp_path)
    gallery = root / "gallery"
    monkeypatch.chdir(root)
    pages = sum(-(-len(content) // 4096) for content in before.values())
    saved = tmp_path / "saved"
    shutil.copytree(gallery, saved)
    # room for the gallery and the lock, not for the new outputs beside the old ones
    mounted = mount_tmpfs(gallery, (pages + 8) * 4096)
    if mounted:
        request.addfinalizer(lambda: umount(gallery))
        shutil.copytree(saved, gallery, dirs_exist_ok=True)
    else:  # no mount here: the second staged write fails as on a full disk
        import chartc.infra.files as files

        create, calls = files._create, []

        def full_disk(temp, content):
            calls.append(temp)
            if len(calls) == 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(temp))
            return create(temp, content)
        monkeypatch.setattr(files, "_create", full_disk)
    print("full disk:", "a small tmpfs" if mounted else "the second staged write raises ENOSPC")
    report = build_gallery(specs_of(root), Path("gallery"))
    assert report.failed and report.rendered == [] and report.removed == []
    [problem] = report.problems
    names = [name for name in after if after[name] != before.get(name)]
    assert problem in [f"chartc: error: {msg.gallery_unwritable(f'gallery/{name}', os.strerror(errno.ENOSPC))}"
                       for name in names], problem
    assert outputs_of(gallery) == before  # every previous file as it was; no lock, no staged file left
    if mounted:
        remount(gallery, f"size={8 << 20}")
    else:
        monkeypatch.undo()
        monkeypatch.chdir(root)
    assert not build_gallery(specs_of(root), Path("gallery")).failed
    assert outputs_of(gallery) == after


@pytest.mark.slow
def test_compile_writes_the_chart_and_its_fits_or_neither(tmp_path, monkeypatch, capsys, request):
    root = tmp_path / "project"
    make_project(root)
    monkeypatch.chdir(root)
    Path("fits").mkdir()
    assert main(["compile", "specs/trend.yaml", "-o", "chart.svg", "--fits", "fits"]) == 1
    assert capsys.readouterr() == ("", f"chartc: error: {msg.compile_unwritable('fits', os.strerror(errno.EISDIR))}\n")
    assert not Path("chart.svg").exists()

    Path("chart.svg").write_text("old")
    read_only = root / "ro"
    if mount_tmpfs(read_only, 1 << 20):  # else the folder case above stands for it
        request.addfinalizer(lambda: umount(read_only))
        remount(read_only, "ro")
        assert main(["compile", "specs/trend.yaml", "-o", "chart.svg", "--fits", "ro/fits.json"]) == 1
        assert capsys.readouterr().err == (
            f"chartc: error: {msg.compile_unwritable('ro/fits.json', os.strerror(errno.EROFS))}\n")
        assert Path("chart.svg").read_text() == "old"
    assert main(["compile", "specs/trend.yaml", "-o", "chart.svg", "--fits", "fits.json"]) == 0
    assert Path("chart.svg").read_bytes().startswith(b"<svg") and json.loads(Path("fits.json").read_text())["trends"]
