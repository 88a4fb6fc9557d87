"""The compiler's stages, one module each, in the order the pipeline runs them.

    load -> validate -> resolve (+ markers, limits) -> fit -> translate -> verify

Each stage takes plain data and returns plain data; problems are `SpecError`s
placed in the spec file. `translate` is the only place that knows Altair.

May import: `chartc.ir`, `chartc.trends`, `chartc.infra`, the public
functions of `chartc.render`, `chartc.errors`, and stages that run earlier
(never a later stage, `chartc.pipeline` or `chartc.commands`).
"""
