"""Infrastructure every layer may use: rows, colours, shapes, files, hashes and JSON output.

`table` (the rows a chart draws), `colors` and `shapes` (names the renderer
draws), `files` (bounded reads, atomic writes, staging), `provenance` (input
hashes and the ``usermeta.chartc`` block), `jsonout` (canonical JSON) and
`html` (the one HTML page skeleton every page chartc writes is made with).

May import: `chartc.errors`, `chartc.version`, other `infra` modules and the
standard library (numpy only in `table`, for the fits and sampling); never a
stage, the renderer, the pipeline or a command.
"""
