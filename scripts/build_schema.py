#!/usr/bin/env python3
"""Write the registered trend methods and marker shapes into schemas/chart.schema.json.

The schema file is hand-written but for its registry parts: the trend
``method`` enum and each method's documentation, the method parameters
(``order``, ``bandwidth``, ``window``), the trend label's placeholders and
the marker shape vocabulary. `chartc.stages.validate.compose_schema` writes
those from the built-in registrations (`chartc.trends.methods`,
`chartc.infra.shapes`); this script puts its result on disk, so editors see
what chartc validates with. Run it after adding or changing a built-in
method or shape (tests/test_registry.py fails until you do):

    python scripts/build_schema.py            # rewrite schemas/chart.schema.json
    python scripts/build_schema.py --check    # exit 1 if the file is stale
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "chart.schema.json"


def schema_text(schema: dict) -> str:
    """The file's formatting (as scripts/enrich_schema.py writes it)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def built_schema(path: Path = SCHEMA) -> str:
    """The schema file's text with its registry parts written from the built-in registrations."""
    from chartc.stages.validate import compose_schema

    return schema_text(compose_schema(json.loads(path.read_text(encoding="utf-8"))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file would change")
    parser.add_argument("--schema", type=Path, default=SCHEMA)
    args = parser.parse_args(argv)
    text = built_schema(args.schema)
    if args.schema.read_text(encoding="utf-8") == text:
        return 0
    if args.check:
        print(f"{args.schema} is stale: run python scripts/build_schema.py", file=sys.stderr)
        return 1
    args.schema.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
