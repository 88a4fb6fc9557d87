"""README.md's spec reference is generated from the schema, and kept in sync by this test.

After changing schemas/chart.schema.json, run::

    python -m chartc.reference --write README.md
"""

from __future__ import annotations

import re

import pytest

from chartc import reference
from chartc.reference import END, START, readme_block, replace_block, schema_reference_markdown
from chartc.validate import load_schema

from conftest import ROOT

README = ROOT / "README.md"


@pytest.fixture(scope="module")
def generated() -> str:
    return schema_reference_markdown()


def test_readme_reference_matches_the_schema(generated):
    block = readme_block(README.read_text(encoding="utf-8"))
    assert block is not None, f"README.md has no {START} ... {END} block"
    assert block == "\n" + generated, (
        "README.md's spec reference is stale: run python -m chartc.reference --write README.md")


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


def test_write_and_check(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{START}\nold\n{END}\n\nafter\n", encoding="utf-8")
    assert reference.main(["--check", str(readme)]) == 1
    assert reference.main(["--write", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# x\n\n") and text.endswith(f"{END}\n\nafter\n")
    assert readme_block(text) == "\n" + schema_reference_markdown()
    assert reference.main(["--check", str(readme)]) == 0
    assert replace_block(text, schema_reference_markdown()) == text  # idempotent
    no_markers = tmp_path / "OTHER.md"
    no_markers.write_text("# x\n", encoding="utf-8")
    assert reference.main(["--write", str(no_markers)]) == 2
