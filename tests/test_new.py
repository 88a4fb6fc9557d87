"""`chartc new`: commented starter specs that validate and render as written."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from chartc import errors as msg
from chartc.commands.cli import main
from chartc.commands.templates import SCHEMA_COPY, TEMPLATE_NAMES, starter_spec
from chartc.infra.paths import SCHEMA_PATH


def test_every_template_file_is_offered_and_every_offered_template_exists():
    files = {p.name[:-len(".yaml")] for p in resources.files("chartc.commands.templates").iterdir()
             if p.name.endswith(".yaml")}
    assert files == set(TEMPLATE_NAMES) == {"scatter", "line", "bar", "trend", "markers"}


@pytest.mark.parametrize("template", TEMPLATE_NAMES)
def test_template_writes_a_spec_that_validates_and_renders(template, tmp_path, monkeypatch, capsys):
    from chartc.render.export import render
    from chartc.pipeline import compile_spec

    monkeypatch.chdir(tmp_path)
    assert main(["new", "charts/first", "--template", template]) == 0
    path = Path("charts/first.yaml")
    assert capsys.readouterr().out == (msg.new_schema_written("schemas/chart.schema.json") + "\n"
                                       + msg.new_written(str(path), template) + "\n")

    compiled = compile_spec(path)  # raises SpecError on any problem
    assert compiled.warnings == ()
    svg = render(compiled.vega_lite, "svg").decode()
    assert svg.startswith("<svg") and 'class="mark-' in svg
    if template == "trend":
        assert compiled.fits


@pytest.mark.parametrize("template", TEMPLATE_NAMES)
def test_template_is_commented_and_points_editors_at_the_schema(template, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no git work tree: the project root is the current folder
    target = tmp_path / "deep" / "er" / "spec.yaml"
    text = starter_spec(template, target)
    lines = text.splitlines()
    schema = lines[0].removeprefix("# yaml-language-server: $schema=")
    assert schema != lines[0], "the first line is the editor modeline"
    assert schema == "../../schemas/chart.schema.json"
    assert (target.parent / schema).resolve() == (tmp_path / SCHEMA_COPY).resolve()
    assert f"$schema: {schema}" in text
    blocks: dict[str, list[str]] = {}  # top-level key -> its lines
    for line in lines:
        if re.match(r"^[a-z$][\w$]*:", line):
            blocks[line.split(":", 1)[0]] = [line]
        elif blocks and line.startswith(" "):
            list(blocks.values())[-1].append(line)
    assert {"title", "data", "encoding"} <= set(blocks)
    silent = [key for key, block in blocks.items() if not any("#" in line for line in block)]
    assert silent == [], "every top-level key is explained by a comment"
    assert "SCHEMA_PATH" not in text


def test_the_written_file_is_the_template(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "bars.yml", "--template", "bar"]) == 0  # .yml is kept
    assert Path("bars.yml").read_text() == starter_spec("bar", tmp_path / "bars.yml")


def test_the_default_template_is_scatter(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "plain"]) == 0
    assert Path("plain.yaml").read_text() == starter_spec("scatter", tmp_path / "plain.yaml")


def test_an_existing_file_is_never_overwritten(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("mine.yaml").write_text("title: keep me\n")
    assert main(["new", "mine", "--template", "line"]) == 2
    assert Path("mine.yaml").read_text() == "title: keep me\n"
    assert not Path("schemas").exists(), "a refused spec writes nothing"
    assert capsys.readouterr().err == f"chartc: error: {msg.new_file_exists('mine.yaml')}\n"


def test_an_unknown_template_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(["new", "x", "--template", "pie"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'pie'" in capsys.readouterr().err
    assert not Path("x.yaml").exists()


def test_new_in_a_subfolder_points_at_the_project_schema_and_validates(tmp_path, monkeypatch, capsys):
    from chartc.pipeline import validate_spec

    (tmp_path / ".git").mkdir()  # the project root is the work tree's top, not the current folder
    (tmp_path / "specs" / "team").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "specs" / "team")
    assert main(["new", "q1/sales", "--template", "bar"]) == 0
    path = Path("q1/sales.yaml")
    assert capsys.readouterr().out == (msg.new_schema_written("../../schemas/chart.schema.json") + "\n"
                                       + msg.new_written(str(path), "bar") + "\n")
    text = path.read_text()
    assert text.startswith("# yaml-language-server: $schema=../../../schemas/chart.schema.json\n")
    assert "\n$schema: ../../../schemas/chart.schema.json " in text
    copy = path.parent / "../../../schemas/chart.schema.json"
    assert copy.resolve() == (tmp_path / SCHEMA_COPY).resolve() and copy.read_bytes() == SCHEMA_PATH.read_bytes()
    assert validate_spec(path) == []


def test_new_leaves_an_existing_schema_copy_to_init(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    copy = tmp_path / SCHEMA_COPY
    copy.parent.mkdir()
    copy.write_text('{"$id": "from another version"}\n')
    assert main(["new", "specs/a"]) == 0
    assert capsys.readouterr().out == msg.new_written("specs/a.yaml", "scatter") + "\n"
    assert copy.read_text() == '{"$id": "from another version"}\n'
    assert "$schema: ../schemas/chart.schema.json " in Path("specs/a.yaml").read_text()
