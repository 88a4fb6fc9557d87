"""The schema teaches in the editor, and docs/reference.md is generated from it.

Every property of schemas/chart.schema.json carries a ``description``, a
``markdownDescription`` (what VS Code's YAML extension shows on hover) and
``examples``; scripts/enrich_schema.py adds them from its tables.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from chartc.commands.cli import main, reference_markdown
from chartc.infra.paths import SCHEMA_PATH

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference.md"


def load_enricher():
    spec = importlib.util.spec_from_file_location("enrich_schema", ROOT / "scripts" / "enrich_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def enricher():
    return load_enricher()


@pytest.fixture(scope="module")
def schema():
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def test_every_property_has_a_description_markdown_description_and_examples(enricher, schema):
    incomplete = {}
    for key, node in enricher.properties(schema):
        missing = [name for name in ("description", "markdownDescription", "examples") if not node.get(name)]
        if node.get("markdownDescription") not in (None, node.get("description")):
            missing.append("markdownDescription == description")
        if missing:
            incomplete[key] = missing
    assert incomplete == {}, "run python scripts/enrich_schema.py"


def test_every_described_node_has_its_markdown_description(enricher, schema):
    assert [n["description"][:40] for n in enricher.described_nodes(schema) if "markdownDescription" not in n] == []


def test_the_enricher_covers_every_property_with_valid_examples_and_defaults(enricher, schema):
    enriched, problems = enricher.enrich(schema)
    assert problems == []  # a new property needs an entry in the script's EXAMPLES table
    for key, node in enricher.properties(enriched):
        assert node["description"] and node["markdownDescription"] == node["description"], key
        assert node["examples"], key


def test_the_enricher_is_idempotent_and_keeps_the_schema_valid(enricher, schema):
    from jsonschema import Draft202012Validator

    once, _ = enricher.enrich(schema)
    twice, _ = enricher.enrich(once)
    assert enricher.schema_text(twice) == enricher.schema_text(once)
    Draft202012Validator.check_schema(once)
    validator = Draft202012Validator(once)
    for spec in sorted((ROOT / "specs").glob("*.yaml"))[:5]:  # annotations change no verdict
        from chartc.stages.load import load_spec

        data = load_spec(spec).data
        assert not list(validator.iter_errors(data)), spec


def test_enums_offer_every_allowed_value_as_completion(enricher, schema):
    enriched, _ = enricher.enrich(schema)
    for key, node in enricher.properties(enriched):
        if "enum" in node:
            assert set(map(json.dumps, node["examples"])) <= set(map(json.dumps, node["enum"])), key


def test_reference_is_generated_from_the_schema_and_up_to_date(capsys):
    assert main(["schema", "--markdown"]) == 0
    printed = capsys.readouterr().out
    assert printed == reference_markdown()
    assert REFERENCE.read_text(encoding="utf-8") == printed, (
        "docs/reference.md is stale: run chartc schema --markdown > docs/reference.md")
