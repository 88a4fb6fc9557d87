"""The gallery build (``chartc build``): every spec rendered to every format, an index page and a manifest.

Built only on `pipeline`: a chart's .vl.json, .svg and .png are exactly what
`chartc compile` makes of the same spec; its .html is the chart's gallery
page. Builds are incremental, git-friendly and safe to kill at any moment.
One module per concern:

- `plan`: which charts and outputs the gallery holds, which are stale (from
  the manifest's hashes), and `check_gallery` (``--check``), which writes nothing.
- `lock`: one build per folder at a time (an OS lock on ``.chartc-build.lock``).
- `run`: `build_gallery`, rendering the stale charts in warm worker
  processes, and `render_chart`, what a worker runs per chart.
- `commit`: every new output and the manifest staged, then renamed into
  place, the manifest last; a full disk changes nothing.
- `pages`: the index and each chart's page (and its fits).

Imports the pipeline, the renderer's public functions and `commands.manifest`;
the compiler itself only inside the workers (`run.RENDER_MODULES`).
"""

from .lock import LOCK_NAME
from .pages import chart_page, fits_json, index_page, output_stem
from .plan import GALLERY_FORMATS, BuildReport, check_gallery
from .run import RENDER_MODULES, build_gallery, chart_outputs, render_chart, warm_worker

__all__ = ["GALLERY_FORMATS", "LOCK_NAME", "RENDER_MODULES", "BuildReport", "build_gallery", "chart_outputs",
           "chart_page", "check_gallery", "fits_json", "index_page", "output_stem", "render_chart", "warm_worker"]
