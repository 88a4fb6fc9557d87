"""Jupyter: a `Chart` displays itself, `%%chartc` draws the notebook's DataFrames, diagnostics show at cell positions.

Run with a real kernel (nbclient + ipykernel), as a notebook is: the example
notebook docs/notebook.ipynb (both seed charts from DataFrames; stored without
outputs), and a notebook of the magic's cases built here. Outputs are held to
the same charts compiled in this process.
"""

from __future__ import annotations

import copy
from ast import literal_eval
from xml.etree import ElementTree

import pytest

import chartc
from chartc import errors as msg

from conftest import ROOT, SPECS

NOTEBOOK = ROOT / "docs" / "notebook.ipynb"
VEGA_LITE = "application/vnd.vegalite.v6+json"


def without_provenance(vega_lite: dict) -> dict:
    vega_lite = copy.deepcopy(vega_lite)
    vega_lite["usermeta"].pop("chartc")
    if not vega_lite["usermeta"]:
        del vega_lite["usermeta"]
    return vega_lite


def execute(notebook, folder):
    """Run every cell in a fresh kernel (this interpreter's, ipykernel's native spec), in `folder`."""
    from nbclient import NotebookClient

    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}},
                   allow_errors=False).execute()
    return notebook


def shown(cell) -> list[dict]:
    """The MIME bundles a cell displayed (its result and display calls), in order."""
    return [output["data"] for output in cell["outputs"] if output["output_type"] in ("display_data", "execute_result")]


def svg_texts(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    return ["".join(node.itertext()) for node in root.iter() if node.tag.endswith("text")]


def test_the_example_notebook_is_stored_without_outputs():
    import nbformat

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.outputs == [] and cell.execution_count is None for cell in code)


@pytest.mark.slow
def test_the_example_notebook_draws_both_seed_charts_from_dataframes():
    import nbformat

    notebook = execute(nbformat.read(NOTEBOOK, as_version=4), NOTEBOOK.parent)
    charts = [bundle for cell in notebook.cells if cell.cell_type == "code" for bundle in shown(cell)
              if VEGA_LITE in bundle]
    assert len(charts) == 2
    for bundle, name in zip(charts, ("seed_pretraining", "seed_flops")):
        expected = chartc.load(SPECS / f"{name}.yaml")
        assert set(bundle) == {VEGA_LITE, "image/svg+xml", "text/plain"}
        assert without_provenance(bundle[VEGA_LITE]) == without_provenance(expected.vega_lite)
        assert bundle[VEGA_LITE]["usermeta"]["chartc"]["data"].startswith("frame:")
        assert expected.compiled.chart.title in svg_texts(bundle["image/svg+xml"])
    fit_cell = next(cell for cell in notebook.cells if "pretraining.fits" in cell.source)
    (fit,) = chartc.load(SPECS / "seed_pretraining.yaml").fits
    assert literal_eval(shown(fit_cell)[0]["text/plain"]) == (fit.method, fit.n, fit.coefficients, round(fit.r2, 3))
    altair_cell = notebook.cells[-1]
    assert shown(altair_cell)[0]["text/plain"] == "'Edited in Altair'"


MAGIC_CASES = {
    # cell source -> what the test expects of its outputs
    "draws the named DataFrame": "%%chartc runs --name chart\nmark: point\nencoding: {x: step, y: loss}\n",
    "a spec naming its frame": "%%chartc\ndata: {frame: runs}\nmark: line\nencoding: {x: step, y: loss}\n",
    "a mistake at its cell position": "%%chartc runs\ntitle: Loss\nmark: pointt\nencoding: {x: step, y: loss}\n",
    "a field not in the DataFrame": "%%chartc runs\nmark: point\nencoding:\n  x: step\n  y: los\n",
    "a variable that is not there": "%%chartc rnus\nmark: point\nencoding: {x: step, y: loss}\n",
    "a frame name that is not there": "%%chartc\ndata: {frame: rns}\nmark: point\nencoding: {x: step, y: loss}\n",
}
RUNS = {"step": [1, 2, 3], "loss": [3.0, 2.0, 1.5]}


def in_process(source: str):
    """The cell compiled here, as the magic does (the `%%chartc` line counts as the cell's line 1)."""
    import pandas as pd

    body = source.split("\n", 1)[1]
    return chartc.from_spec("\n" + body, data={"runs": pd.DataFrame(RUNS)}, name="<cell>")


@pytest.mark.slow
def test_the_cell_magic_in_a_kernel(tmp_path):
    import nbformat

    saved = f"%%chartc runs --save {tmp_path / 'saved.svg'}\nmark: point\nencoding: {{x: step, y: loss}}\n"
    cells = [nbformat.v4.new_code_cell(f"import pandas as pd\nruns = pd.DataFrame({RUNS!r})\n%load_ext chartc"),
             *(nbformat.v4.new_code_cell(source) for source in MAGIC_CASES.values()),
             nbformat.v4.new_code_cell("chart.vega_lite['datasets']"), nbformat.v4.new_code_cell(saved)]
    notebook = execute(nbformat.v4.new_notebook(cells=cells), ROOT)
    assert (tmp_path / "saved.svg").read_bytes() == in_process(saved).render("svg")
    outputs = dict(zip(MAGIC_CASES, notebook.cells[1:]))
    assert not any(output["output_type"] == "error" for cell in notebook.cells for output in cell["outputs"])

    for case in ("draws the named DataFrame", "a spec naming its frame"):
        (bundle,) = shown(outputs[case])
        assert bundle[VEGA_LITE] == in_process(MAGIC_CASES[case]).vega_lite
        ElementTree.fromstring(bundle["image/svg+xml"])
    (datasets,) = shown(notebook.cells[-2])
    assert literal_eval(datasets["text/plain"]) == in_process(MAGIC_CASES["draws the named DataFrame"]).vega_lite["datasets"]

    for case, line, column in (("a mistake at its cell position", 3, 7), ("a field not in the DataFrame", 5, 6)):
        with pytest.raises(chartc.SpecError) as raised:
            in_process(MAGIC_CASES[case])
        assert (raised.value.location.line, raised.value.location.column) == (line, column)
        (bundle,) = shown(outputs[case])
        assert bundle["text/plain"] == raised.value.diagnostic()
        assert bundle["text/plain"].startswith(f"<cell>:{line}:{column}: error[")
        assert "<pre" in bundle["text/html"] and "&lt;cell&gt;" in bundle["text/html"]

    (bundle,) = shown(outputs["a variable that is not there"])
    assert bundle["text/plain"] == f"error[E830]: {msg.notebook_variable_missing('rnus', ['runs'])}"
    (bundle,) = shown(outputs["a frame name that is not there"])
    expected = msg.table_not_named("rns", ["runs"])
    assert bundle["text/plain"] == f"<cell>:2:15: error[E826]: data.frame: {expected} ({msg.did_you_mean('rns', ['runs'])})"
