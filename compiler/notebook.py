"""The notebook: ``%load_ext chartc`` and the ``%%chartc`` cell magic, a YAML spec drawn from the notebook's DataFrames.

    %%chartc runs                      the cell's body is a spec; the DataFrame `runs` is its data
    mark: point                        (a spec without `data` draws it)
    encoding: {x: step, y: loss}

    %%chartc --name chart --save loss.svg
    data: {frame: runs}                a spec may name the DataFrame itself
    ...

The cell shows the chart (`api.Chart._repr_mimebundle_`). A spec with
problems shows its diagnostics as text, each at its line and column in the
cell (the ``%%chartc`` line is line 1), never a traceback.

May import: the public API (`api`) and the layers below it; IPython only
when the extension is loaded (by IPython itself).
"""

from __future__ import annotations

import html
import shlex

from . import errors as msg
from .api import Chart, from_spec
from .errors import SpecError
from .stages.data import is_table

# The cell's name in its diagnostics.
CELL_FILE = "<cell>"
# The ``%%chartc`` line itself: the body's first line is the cell's second.
MAGIC_LINES = 1


def load_ipython_extension(ipython) -> None:
    """Register the ``%%chartc`` cell magic (IPython calls this for ``%load_ext chartc``)."""
    ipython.register_magic_function(lambda line, cell: chartc_cell(ipython, line, cell),
                                    magic_kind="cell", magic_name="chartc")


def chartc_cell(ipython, line: str, cell: str) -> Chart | None:
    """Run one ``%%chartc`` cell: compile its body, show the chart or its diagnostics.

    Args:
        ipython: the shell (its `user_ns` holds the DataFrames).
        line: the magic's arguments: ``[TABLE] [--name VARIABLE] [--save FILE]``.
        cell: the body, a YAML spec.

    Returns:
        The chart, which the notebook then shows; None when the spec has
        problems (their diagnostics are shown instead).
    """
    try:
        table, name, save = _arguments(line)
    except ValueError:
        _show_problems([msg.notebook_usage()])
        return None
    namespace = ipython.user_ns
    tables = {key: value for key, value in namespace.items() if not key.startswith("_") and is_table(value)}
    if table is not None and table not in tables:
        missing = msg.notebook_variable_missing(table, sorted(tables))
        _show_problems([f"error[{missing.code}]: {missing}"])
        return None
    text = "\n" * MAGIC_LINES + cell  # positions count the cell's lines, the magic's included
    try:
        chart = from_spec(text, data=_data_for(text, table, tables), name=CELL_FILE)
        # the compile's warnings; with --save, the scene check's of what was drawn too
        warnings = chart.warnings if save is None else chart.save(save)
    except SpecError as error:
        _show_problems([problem.diagnostic() for problem in error.errors])
        return None
    except OSError as error:
        _show_problems([msg.compile_unwritable(save, error.strerror or str(error))])
        return None
    if name is not None:
        namespace[name] = chart
    for warning in warnings:
        print(warning.diagnostic())
    return chart


def _arguments(line: str) -> tuple[str | None, str | None, str | None]:
    """``[TABLE] [--name VARIABLE] [--save FILE]``; ValueError for anything else."""
    words = shlex.split(line)
    table = name = save = None
    while words:
        word = words.pop(0)
        if word in ("--name", "-n", "--save", "-s"):
            if not words:
                raise ValueError(word)
            if word in ("--name", "-n"):
                name = words.pop(0)
            else:
                save = words.pop(0)
        elif word.startswith("-") or table is not None:
            raise ValueError(word)
        else:
            table = word
    return table, name, save


def _data_for(text: str, table: str | None, tables: dict):
    """The tables the cell's spec may read: the one named on the magic's line, else those its `frame` names."""
    if table is not None:
        return {table: tables[table]}
    from .stages.load import load_text

    try:
        data = load_text(text, CELL_FILE).data.get("data")
    except SpecError:
        return None  # compiling it reports why
    # A spec reading a file or a dataset gets no table (passing one would be an error); one naming a frame
    # gets the notebook's DataFrames to pick from (a name that is not there lists them).
    return tables if isinstance(data, dict) and "frame" in data else None


def _show_problems(lines: list[str]) -> None:
    """Diagnostics in the cell's output: plain text, and the same lines as HTML for a notebook."""
    from IPython.display import display

    text = "\n".join(lines)
    markup = ('<pre style="color: #b00020; white-space: pre-wrap">' + html.escape(text) + "</pre>")
    display({"text/plain": text, "text/html": markup}, raw=True)
