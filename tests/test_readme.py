"""What README.md promises a new user, kept true; and the generated spec reference.

The tutorial is run as written (its data, its spec, its diagnostic), the
documents it links to exist, the versions it says were tested are the locked
ones, and its command table lists every command. The reference in
docs/reference.md is generated from the schema (tests/test_schema_docs.py
checks the file is current); here its generator is checked for completeness.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from chartc.commands import reference
from chartc.commands.cli import _parser, main
from chartc.commands.reference import schema_reference_markdown
from chartc.stages.validate import load_schema

from conftest import ROOT

README = ROOT / "README.md"


@pytest.fixture(scope="module")
def readme() -> str:
    return README.read_text(encoding="utf-8")


def tutorial_block(readme: str, language: str, index: int = 0) -> str:
    tutorial = readme.split("## Tutorial", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(rf"^( *)```{language}\n(.*?)^\1```", tutorial, re.MULTILINE | re.DOTALL)
    indent, body = blocks[index]
    return textwrap.dedent(body)


def test_the_tutorial_chart_validates_renders_and_its_mistake_reads_as_shown(readme, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    (tmp_path / "charts" / "data").mkdir(parents=True)
    (tmp_path / "charts" / "data" / "runs.csv").write_text(tutorial_block(readme, "csv"), encoding="utf-8")
    spec = tutorial_block(readme, "yaml")
    (tmp_path / "charts" / "loss.yaml").write_text(spec, encoding="utf-8")
    capsys.readouterr()
    assert main(["validate", "charts/loss.yaml"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["compile", "charts/loss.yaml", "-o", "loss.svg"]) == 0
    assert (tmp_path / "loss.svg").read_text(encoding="utf-8").startswith("<svg")

    (tmp_path / "charts" / "loss.yaml").write_text(spec.replace("mark: point", "mark: pointt"), encoding="utf-8")
    assert main(["validate", "charts/loss.yaml"]) == 1
    shown = [line for line in tutorial_block(readme, "sh", 1).splitlines() if not line.startswith("$ ")]
    assert capsys.readouterr().err.splitlines() == shown


def test_every_linked_document_exists(readme):
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert {"docs/reference.md", "docs/api.md", "docs/pre-commit.md", "docs/contributing.md"} <= set(links)
    missing = [link for link in links if not (ROOT / link).exists()]
    assert missing == []


def test_the_tested_versions_named_are_the_locked_ones(readme):
    from test_packaging import locked_versions

    named = dict(re.findall(r"\b(altair|vl-convert-python|numpy)==(\S+?)[,.]?(?:\s|$)", readme))
    assert set(named) == {"altair", "vl-convert-python", "numpy"}
    pins = locked_versions()
    assert named == {name: pins[name] for name in named}


def test_the_command_table_lists_every_command(readme):
    table = readme.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `chartc (\w+)", table, re.MULTILINE))
    commands = _parser()._subparsers._group_actions[0].choices
    assert listed == set(commands)


def test_the_reference_lives_in_docs_only(readme):
    assert "### Top level" not in readme and "(docs/reference.md)" in readme


# ------------------------------------------------------ the generated reference

@pytest.fixture(scope="module")
def generated() -> str:
    return schema_reference_markdown()


def test_reference_documents_every_property(generated):
    def properties(node, found):
        if isinstance(node, dict):
            found.update(node.get("properties", {}))
            for value in node.values():
                properties(value, found)
        elif isinstance(node, list):
            for value in node:
                properties(value, found)
        return found

    rows = set(re.findall(r"^\| `([^`]+)`", generated, re.MULTILINE))
    assert properties(load_schema(), set()) <= rows


def test_reference_links_and_headings(generated):
    headings = re.findall(r"^### (.+)$", generated, re.MULTILINE)
    assert len(headings) == len(set(headings))
    anchors = {reference._slug(h) for h in headings}
    links = set(re.findall(r"\]\(#([^)]+)\)", generated))
    assert links and links <= anchors
    assert generated.endswith("\n") and "\n\n\n" not in generated


def test_reference_rows_have_a_type_and_a_description(generated):
    for line in generated.splitlines():
        if line.startswith("| `"):
            cells = re.split(r"(?<!\\)\|", line)[1:-1]
            assert len(cells) == 3 and all(c.strip() for c in cells), line
