"""The `chartc` command and what its subcommands build on the pipeline.

`cli` (arguments, exit codes), `daemon` (the warm renderer), `specs` (finding spec files), `gallery` and
`manifest` (incremental builds), `diff`, `serve`, `reference` (the schema as
Markdown) and `templates` (`chartc new` and `chartc init`).

May import: `chartc.pipeline`, `chartc.stages`, `chartc.render`,
`chartc.infra`, `chartc.ir`, `chartc.trends` and `chartc.errors`. Nothing
outside this package imports it (but `python -m chartc`).
"""
