"""Rendering: compiled Vega-Lite to the files people open, and the processes that render them.

`export` (the only module that knows vl-convert: SVG, PNG, PDF, HTML, JSON
bytes with their provenance), `pdf` (deterministic PDF bytes, written again
by qpdf through pikepdf) and `workers` (warm renderer processes that contain
crashes and hangs).

May import: `chartc.infra`, `chartc.errors`, the standard library and the
renderer's libraries (vl-convert, pikepdf); never a stage, the pipeline or a
command (callers pass what the workers should load).
"""
