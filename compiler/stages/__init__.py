"""The compiler's stages, one module (or package) each, in the order the pipeline runs them.

    load -> validate -> parse -> data (+ markers) -> check -> limits -> fit -> translate -> verify
         (render) -> scene

`load` and `validate` read the spec file; `parse` builds the chart model
(`chartc.ir`), and every later stage reads that model, never the document.
`data` reads the rows and runs every layer's transforms as Vega does (the
one interpreter); `check`, `limits` and `fit` consume its output. Each stage
takes plain data and returns plain data; problems are `SpecError`s placed in
the spec file through the nodes. `translate` is the only place that knows
Altair. `scene` runs after the chart is rendered: it reads what the renderer
drew (Vega's scenegraph) against the chart model and its rows.

May import: `chartc.ir`, `chartc.trends`, `chartc.infra`, the public
functions of `chartc.render`, `chartc.errors`, and stages that run earlier
(never a later stage, `chartc.pipeline` or `chartc.commands`).
"""
