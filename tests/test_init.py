"""`chartc init`: the project's copy of the chart schema, and the staleness warning for old copies."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.infra import paths
from chartc.stages import validate
from chartc.commands.cli import main
from chartc.errors import Location, SpecWarning
from chartc.stages.load import load_spec
from chartc.commands.templates import (SCHEMA_COPY, SPEC_GLOBS, VSCODE_SETTINGS, vscode_settings,
                                       vscode_settings_snippet, write_schema_copy)
from chartc.infra.paths import SCHEMA_PATH
from chartc.stages.validate import check_schema_reference

SETTINGS_TEXT = """\
{
  "yaml.schemas": {
    "./schemas/chart.schema.json": [
      "specs/**/*.yaml",
      "specs/**/*.yml",
      "**/*.chart.yaml"
    ]
  }
}
"""
WRITTEN = (msg.init_schema_written("schemas/chart.schema.json") + "\n"
           + msg.init_settings_written(".vscode/settings.json") + "\n")


def git_init(folder: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(folder)], check=True, capture_output=True)


def stamps(root: Path) -> dict:
    return {name: (root / name).stat().st_mtime_ns for name in (SCHEMA_COPY, VSCODE_SETTINGS)}


def test_init_in_a_fresh_repository_writes_at_its_top(tmp_path, monkeypatch, capsys):
    git_init(tmp_path)
    (tmp_path / "specs" / "team").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "specs" / "team")
    assert main(["init"]) == 0
    assert capsys.readouterr().out == (msg.init_schema_written("../../schemas/chart.schema.json") + "\n"
                                       + msg.init_settings_written("../../.vscode/settings.json") + "\n")
    assert (tmp_path / SCHEMA_COPY).read_bytes() == SCHEMA_PATH.read_bytes()
    assert (tmp_path / VSCODE_SETTINGS).read_text() == SETTINGS_TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", ".vscode", "schemas", "specs"]


def test_the_settings_point_vs_code_at_the_copy():
    assert json.loads(SETTINGS_TEXT) == vscode_settings() == {"yaml.schemas": {"./schemas/chart.schema.json":
                                                                                 list(SPEC_GLOBS)}}


def test_init_in_a_plain_folder_writes_there(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert capsys.readouterr().out == WRITTEN
    assert (tmp_path / SCHEMA_COPY).read_bytes() == SCHEMA_PATH.read_bytes()


def test_init_takes_a_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init", "charts"]) == 0  # created, like `git init DIR`
    assert capsys.readouterr().out == (msg.init_schema_written("charts/schemas/chart.schema.json") + "\n"
                                       + msg.init_settings_written("charts/.vscode/settings.json") + "\n")
    assert (tmp_path / "charts" / SCHEMA_COPY).is_file() and (tmp_path / "charts" / VSCODE_SETTINGS).is_file()


def test_init_of_a_file_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("x")
    assert main(["init", "notes.txt"]) == 2
    assert capsys.readouterr().err == f"chartc: error: {msg.init_not_a_folder('notes.txt')}\n"


def test_running_init_again_changes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    before = stamps(tmp_path)
    capsys.readouterr()
    assert main(["init"]) == 0
    assert capsys.readouterr().out == (msg.init_schema_current("schemas/chart.schema.json") + "\n"
                                       + msg.init_settings_configured(".vscode/settings.json") + "\n")
    assert stamps(tmp_path) == before


def test_a_copy_with_other_line_endings_is_up_to_date(tmp_path):
    copy = tmp_path / SCHEMA_COPY
    copy.parent.mkdir()
    copy.write_bytes(SCHEMA_PATH.read_bytes().replace(b"\n", b"\r\n"))  # a checkout with autocrlf
    assert write_schema_copy(tmp_path) == "current"
    assert b"\r\n" in copy.read_bytes()


def test_init_replaces_another_versions_copy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / SCHEMA_COPY
    copy.parent.mkdir()
    copy.write_text(json.dumps(stale_schema(), indent=2))
    assert main(["init"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == msg.init_schema_updated("schemas/chart.schema.json")
    assert copy.read_bytes() == SCHEMA_PATH.read_bytes()


def test_an_existing_settings_file_is_left_alone_and_the_snippet_printed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    settings = tmp_path / VSCODE_SETTINGS
    settings.parent.mkdir()
    text = '{\n  // mine\n  "editor.tabSize": 2,\n}\n'  # VS Code allows comments and trailing commas
    settings.write_text(text)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert out == (msg.init_schema_written("schemas/chart.schema.json") + "\n"
                   + msg.init_settings_exists(".vscode/settings.json", vscode_settings_snippet()) + "\n")
    assert settings.read_text() == text
    assert json.loads("{" + vscode_settings_snippet() + "}") == vscode_settings()  # pastes as it is


def test_init_in_the_chartc_checkout_leaves_the_source_schema_alone(tmp_path, monkeypatch, capsys):
    checkout = tmp_path / "chartc"
    source = checkout / SCHEMA_COPY
    source.parent.mkdir(parents=True)
    source.write_text('{"$id": "https://chartc.dev/schemas/chart.schema.json", "edited": "by hand"}\n')
    monkeypatch.setattr(paths, "SCHEMA_PATH", source)  # chartc reads it from the checkout itself
    git_init(checkout)
    monkeypatch.chdir(checkout)
    before = source.stat().st_mtime_ns
    assert main(["init"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == msg.init_schema_is_source("schemas/chart.schema.json")
    assert source.stat().st_mtime_ns == before
    assert not list(source.parent.glob(".*.tmp"))


@pytest.mark.skipif(not (SCHEMA_PATH.parent.parent / "compiler").is_dir(),
                    reason="chartc is installed, not run from its checkout")
def test_this_checkout_is_recognised_as_the_source():
    assert write_schema_copy(SCHEMA_PATH.parent.parent) == "source"  # writes nothing


# ------------------------------------------------------------- staleness

def stale_schema() -> dict:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    schema["description"] = "The chart schema of an older chartc."
    return schema


def project_with_copy(root: Path, copy: dict | str) -> Path:
    """A project whose schema copy holds `copy`; returns a spec that points at it."""
    (root / "schemas").mkdir(parents=True)
    (root / SCHEMA_COPY).write_text(copy if isinstance(copy, str) else json.dumps(copy))
    spec = root / "specs" / "cars.yaml"
    spec.parent.mkdir()
    spec.write_text("title: Cars\n$schema: ../schemas/chart.schema.json\ndata: {dataset: cars}\nmark: point\n")
    return spec


def test_a_stale_copy_is_a_warning_at_the_schema_key(tmp_path):
    spec = project_with_copy(tmp_path, stale_schema())
    [warning] = check_schema_reference(load_spec(spec))
    assert isinstance(warning, SpecWarning)
    assert warning.message == msg.schema_copy_stale("../schemas/chart.schema.json")
    assert warning.hint == msg.schema_copy_stale_hint()
    assert warning.path == ("$schema",) and warning.location == Location(str(spec), 2, 1)
    assert warning.code == msg.schema_copy_stale.code and warning.code.startswith("W")
    assert warning.diagnostic().startswith(f"{spec}:2:1: warning[{msg.schema_copy_stale.code}]: $schema: ")


@pytest.mark.parametrize("copy", [
    json.loads(SCHEMA_PATH.read_text(encoding="utf-8")),  # up to date
    {"$id": "https://example.com/other.schema.json", "type": "object"},  # another schema
    "{ not json",
])
def test_no_warning_for_a_current_copy_or_another_file(copy, tmp_path):
    assert check_schema_reference(load_spec(project_with_copy(tmp_path, copy))) == []


@pytest.mark.parametrize("reference", [
    "https://chartc.dev/schemas/chart.schema.json", "../schemas/missing.json", "../schemas", None,
])
def test_no_warning_for_a_url_a_missing_file_or_no_schema(reference, tmp_path):
    spec = project_with_copy(tmp_path, stale_schema())
    text = spec.read_text().replace("$schema: ../schemas/chart.schema.json\n",
                                    f"$schema: {reference}\n" if reference else "")
    spec.write_text(text)
    assert check_schema_reference(load_spec(spec)) == []


def test_no_warning_for_the_example_specs():
    specs = sorted((SCHEMA_PATH.parent.parent / "specs").glob("*.yaml"))
    assert all(check_schema_reference(load_spec(spec)) == [] for spec in specs)


def test_each_copy_is_read_once(tmp_path):
    spec = project_with_copy(tmp_path, stale_schema())
    other = spec.with_name("other.yaml")
    other.write_text(spec.read_text().replace("../schemas/", "../specs/../schemas/"))
    validate._is_stale_copy.cache_clear()
    for path in (spec, other, spec):
        assert len(check_schema_reference(load_spec(path))) == 1
    assert validate._is_stale_copy.cache_info().misses == 1


def test_init_clears_the_warning(tmp_path, monkeypatch):
    spec = project_with_copy(tmp_path, stale_schema())
    monkeypatch.chdir(tmp_path)
    assert len(check_schema_reference(load_spec(spec))) == 1
    assert main(["init"]) == 0
    assert check_schema_reference(load_spec(spec)) == []


def test_validate_and_compile_report_a_stale_copy_as_a_warning_and_still_succeed(tmp_path, capsys):
    from chartc.commands.cli import main
    from chartc.pipeline import compile_spec

    spec = project_with_copy(tmp_path, stale_schema())
    assert main(["validate", str(spec)]) == 0
    assert capsys.readouterr().err.startswith(f"{spec}:2:1: warning[{msg.schema_copy_stale.code}]: $schema: "
                                              f"{msg.schema_copy_stale('../schemas/chart.schema.json')}")
    assert [w.message for w in compile_spec(spec).warnings] == [msg.schema_copy_stale("../schemas/chart.schema.json")]
