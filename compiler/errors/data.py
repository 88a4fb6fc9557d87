"""Messages of the data stage (stages/data/): reading, scrubbing and transforming the rows.

Each message is a function; one that a diagnostic reads carries its code
(`@code`), and its docstring is the explanation `chartc explain` prints.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from .registry import code
from .text import did_you_mean, quoted_list


@code("E401")
def file_not_found(path: str) -> str:
    """The data file does not exist.

    `data.path` names a file that does not exist. Paths are relative to the spec file; the hint lists
    the files that are there.

    Example:
        data: {path: data/missing.csv}
        mark: point
        encoding:
          x: a
          y: b
    """
    return f"data file {path!r} does not exist"


@code("E402")
def empty_data() -> str:
    """Data without rows.

    The data has no rows, so there is nothing to draw. Check the file, or the filter that removed every
    row.

    Example:
        data: {values: []}
        mark: point
        encoding:
          x: a
          y: b
    """
    return "the data has no rows"


def empty_data_hint() -> str:
    return "a chart needs at least one row of data"


@code("E403")
def data_url(path: str) -> str:
    """Data from a URL.

    chartc never fetches anything: a chart is drawn the same on every machine, offline. Download the
    file next to the spec and give its relative path.

    Example:
        data: {path: "https://example.com/data.csv"}
        mark: point
        encoding:
          x: a
          y: b
    """
    return f"data is never fetched from a URL: {path!r}"


def data_url_hint() -> str:
    return "download the file next to the spec and give its relative path"


@code("E404", hint="data_path_hint")
def data_path_absolute(path: str) -> str:
    """An absolute data path.

    Data paths are relative to the spec file, so a project renders the same on any machine; an absolute
    path (or one starting with `~`) is refused.

    Example:
        data: {path: /etc/passwd}
        mark: point
        encoding:
          x: a
          y: b
    """
    return f"data path {path!r} must be relative to the spec file"


def data_path_hint() -> str:
    return "keep data files inside the project, e.g. path: data/results.csv"


@code("E405")
def data_path_outside(path: str, root: str) -> str:
    """A data path leaving the project.

    The data path leaves the project folder (through `..` or a symbolic link). chartc reads data only
    from inside the project, so a spec cannot read other files on the machine that builds it. The
    project is the git work tree the spec is in (the folder holding `.git`), or the spec's own folder
    when it is in none: a spec outside any repository reads only files beside it and below.

    Example:
        data: {path: ../../../outside.csv}
        mark: point
        encoding:
          x: a
          y: b
    """
    return f"data path {path!r} leaves the project folder {root!r}"


def data_path_outside_hint(root: str, git: bool) -> str:
    if git:
        return f"the project is the git work tree the spec is in, {root}; move or copy the file inside it"
    return (f"the spec is in no git work tree, so the project is the spec's own folder, {root}; move or copy "
            "the file inside it, or run git init in a folder that holds both")


@code("E406")
def data_not_a_file(path: str) -> str:
    """A data path that is not a file.

    `data.path` names a folder or a special file, not a data file.
    """
    return f"data path {path!r} is not a file"


@code("E407", hint="data_format_hint")
def data_unknown_format(path: str) -> str:
    """A data file of unknown format.

    chartc reads .csv, .tsv, .json (and JSON Lines: .jsonl, .ndjson), .parquet and Arrow IPC (.arrow,
    .feather) data files, and tells them apart by the suffix. Rename the file, or give `data.format`.
    """
    return f"cannot tell the format of {path!r}"


def data_format_hint() -> str:
    return "use a .csv, .tsv, .json, .jsonl, .parquet or .arrow file, or set data.format"


@code("E408")
def data_too_large(path: str, size: int, limit: int) -> str:
    """A data file over the size limit.

    JSON files past 50 MB are read by the data engine, at any size; but records it does not type as chartc's
    reader does (a column mixing JSON types, integers past 64 bits, a key written twice) or cannot parse
    are left to that reader, which parses a file whole in Python and is limited in size so a build stays
    fast and within memory. CSV, TSV, Parquet and Arrow files have no such limit: write large data as
    CSV or Parquet, give each column one JSON type, or keep only the fields the chart uses.
    """
    return f"data file {path!r} is {size:,} bytes, over the limit of {limit:,}"


@code("E409")
def data_unreadable(path: str, reason: str) -> str:
    """A data file that cannot be read.

    The data file exists but cannot be read as a table: the reason says why (a malformed CSV or JSON
    file, a damaged Parquet or Arrow file, a column of nested values, a header or cell over its limit,
    too many columns).
    """
    return f"cannot read data file {path!r}: {reason}"


def data_changed_while_read_hint() -> str:
    return ("the file was read when the chart began, then failed: was it changed or replaced meanwhile? "
            "Compile again once it is written")


def data_row_too_long(line: int | None, count: int, width: int) -> str:
    """A row with more fields than the header (a reason of `data_unreadable`, from either reader)."""
    if line is None:
        return f"a row has {count} fields, but the header has {width}"
    return f"line {line} has {count} fields, but the header has {width}"


@code("E430")
def data_not_utf8_line(path: str, line: int | None) -> str:
    """A text data file that is not UTF-8.

    CSV, TSV and JSON files are read as UTF-8 (a byte order mark is allowed). A large file is read by the
    data engine, which names the first line holding bytes that are not UTF-8: a file saved in another
    encoding (Latin-1, Windows-1252, UTF-16), or a binary file with a text suffix.
    """
    where = f"line {line}" if line is not None else "a line"
    return f"cannot read data file {path!r}: {where} is not UTF-8 text"


def data_not_utf8_line_hint() -> str:
    return "save the file as UTF-8 (pandas: to_csv(..., encoding='utf-8')), or write it as Parquet"


@code("E431")
def data_unclosed_quote(path: str, line: int | None) -> str:
    """A quote in a delimited file that is never closed.

    A cell that opens with a double quote runs to the next double quote not doubled (``""`` inside a
    cell is one quote). A large CSV or TSV file is read by the data engine, which refuses a quote that
    is not closed at the end of its cell, or at all, and names the line where that record starts.
    """
    where = f"line {line}" if line is not None else "a line"
    return f"cannot read data file {path!r}: {where} opens a quoted cell that is not closed where the cell ends"


def data_unclosed_quote_hint() -> str:
    return 'close the quote, or double every quote inside a quoted cell ("")'


@code("E432")
def data_not_delimited(path: str, line: int | None) -> str:
    """A delimited file the data engine cannot parse.

    A large CSV or TSV file is read by the data engine; this is a record it cannot split into cells as
    the header's columns (not a row too long, which E409 names, and not an encoding or quoting problem,
    which E430 and E431 name). The line is where the record starts.
    """
    where = f"at line {line}" if line is not None else "in a record"
    return f"cannot read data file {path!r}: it is not delimited text {where}"


def data_not_delimited_hint() -> str:
    return "check the file's delimiter (.csv: comma, .tsv: tab) and its quotes around that line"


def data_header_too_wide(line: int, count: int, limit: int) -> str:
    return f"line {line}: the header has {count:,} columns, over the limit of {limit:,}"


def data_records_too_wide(count: int, limit: int) -> str:
    return f"the records have {count:,} different keys, over the limit of {limit:,} columns"


def data_header_too_wide_hint() -> str:
    return "a chart reads a few columns: keep only those it uses in the file"


def data_header_cell_too_long(line: int, column: int | None, length: int | None, limit: int) -> str:
    return _cell_too_long("header cell", line, column, length, limit)


def data_cell_too_long(line: int, column: int | None, length: int | None, limit: int) -> str:
    return _cell_too_long("cell", line, column, length, limit)


def _cell_too_long(what: str, line: int, column: int | None, length: int | None, limit: int) -> str:
    if column is None:  # the record was found, not the cell
        return f"line {line}: a {what} is longer than the limit of {limit:,} characters"
    return f"line {line}, column {column}: a {what} of {length:,} characters, over the limit of {limit:,}"


def data_long_cell_hint(unclosed: bool, header: bool) -> str:
    if unclosed:
        return 'the cell opens with a quote (") that is never closed, which makes the rest of the file one cell'
    if header:
        return "a column name is a short label: shorten it in the file"
    return "charts show short values: move long text out of the data file"


def data_too_many_cells(rows: int, columns: int, limit: int) -> str:
    return f"{rows:,} rows of {columns:,} columns make {rows * columns:,} cells, over the limit of {limit:,}"


def data_too_many_cells_hint() -> str:
    return "every row has a cell for every column; keep only the columns the chart uses in the file"


def files_in_folder(folder: str, names: Sequence[str]) -> str:
    where = f"in {folder!r}" if folder not in ("", ".") else "next to the spec"
    return f"files {where}: {quoted_list(names)}" if names else f"there are no files {where}"


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice `did_you_mean` would suggest, or None."""
    choices = [str(c) for c in choices]
    hint = did_you_mean(word, choices)
    return next((c for c in choices if hint == f"did you mean {c!r}?"), None)


@code("W401")
def data_text_scrubbed(field: str, count: int) -> str:
    """Control characters replaced in data text.

    Text in the data holds control characters, which crash the renderer. They are replaced with U+FFFD
    (shown as a question mark in a box) and the chart is drawn; clean the file to make the warning go
    away.
    """
    noun = "character" if count == 1 else "characters"
    return f"data field {field!r}: replaced {count} control {noun} or Unicode non-{noun} with U+FFFD"


@code("W402")
def data_column_scrubbed(name: str, clean: str, count: int) -> str:
    """Control characters replaced in a column name.

    A column name in the data holds control characters, which crash the renderer; they are replaced with
    U+FFFD and the chart is drawn. Rename the column in the file to make the warning go away.
    """
    noun = "character" if count == 1 else "characters"
    return (f"data column {name!r}: replaced {count} control {noun} or Unicode non-{noun} in its name "
            f"with U+FFFD; it is now {clean!r}")


def data_scrubbed_hint() -> str:
    return ("the renderer aborts on them; clean the data file (tab, newline and carriage return are "
            "the only control characters allowed)")


@code("W403")
def data_integers_rounded(field: str, count: int) -> str:
    """Integers too large for a double, rounded.

    Integers beyond ±2⁵³ cannot be held exactly by the double-precision numbers the renderer uses, so
    they were rounded. Store such identifiers as text, or scale the numbers down.
    """
    noun = "integer" if count == 1 else "integers"
    return f"data field {field!r}: {count} {noun} beyond ±2⁵³ made floating-point"


def data_integers_hint() -> str:
    return "charts are drawn with JavaScript numbers, exact only up to 2⁵³ = 9007199254740992"


def data_damaged(kind: str) -> str:
    return f"it is not a {kind} file, or it is damaged (truncated, or written by a writer that failed)"


def data_nested_column(column: str) -> str:
    return f"column {column!r} holds lists, structs or maps, but chart data are flat rows"


def data_glob_schemas() -> str:
    return "the files the glob matches have columns of the same name but different types"


def data_needs_pyarrow() -> str:
    return "reading Arrow IPC files needs the pyarrow package, which is not installed"


def data_needs_pyarrow_hint() -> str:
    return "pip install 'chartc[arrow]' (or pyarrow), or write the data as Parquet"


@code("E413")
def data_glob_no_match(pattern: str) -> str:
    """A glob that matches no file.

    `data.path` is a glob (it holds `*`, `?` or `[`) and no file matches it, relative to the spec file.
    The hint lists the files that are there.

    Example:
        data: {path: "runs/*.parquet"}
        mark: line
        encoding:
          x: step
          y: loss
    """
    return f"no data file matches {pattern!r}"


@code("E414", hint="data_glob_formats_hint")
def data_glob_formats(pattern: str, suffixes: Sequence[str]) -> str:
    """A glob matching files of different formats.

    The files a glob matches are read as one table, so they must be of one format: a glob such as
    `runs/*` that matches both CSV and Parquet files is refused. Narrow the glob (`runs/*.parquet`).
    """
    return f"the files {pattern!r} matches are of different formats: {quoted_list(suffixes)}"


def data_glob_formats_hint() -> str:
    return "end the glob with the suffix of the files to read, e.g. runs/*.parquet"


def data_file_line(path: str, line: int) -> str:
    return f"line {line} of {path!r}"


def data_row_number(index: int) -> str:
    return f"row {index + 1} of the data"


def rows_unknowable_unsupported(what: str) -> str:
    return f"chartc cannot reproduce what Vega computes here ({what})"


def rows_unknowable_random(op: str) -> str:
    return f"the aggregate op {op!r} draws a random bootstrap sample"


def rows_unknowable_parse_conflict(field: str) -> str:
    return f"Vega-Lite parses field {field!r} as a different type in different layers"


def rows_unknowable_unparsed() -> str:
    return "the expression does not parse"


def rows_unknowable_selection(param: str) -> str:
    return f"the filter keeps the rows the reader selects in {param!r}"


@code("E412", hint="expression_throws_hint")
def expression_throws(error: str) -> str:
    """An expression that throws on the data.

    Evaluated on the rows, the expression throws a JavaScript exception; Vega would stop there and draw
    nothing from these rows. Guard the expression (check for null or the type first).
    """
    return f"Vega stops at this expression ({error}) and draws nothing from these rows"


@code("E415", hint="date_out_of_range_hint")
def date_out_of_range(year: int, column: str | None = None) -> str:
    """A date before year 1 or after year 9999.

    JavaScript's dates reach the year 275,760, but chartc holds a date as Python does, from
    0001-01-01 to 9999-12-31, and writes it into the chart as ISO 8601 text of four digits of year.
    A date outside those years is refused where it is made (an expression) or read (a column of a
    Parquet or Arrow file, or of an engine's table), never drawn wrong. In data it is most often a
    typo (20240 for 2024) or milliseconds stored as seconds: fix it, or drop its row with a
    `filter` (which runs in the engine, before chartc holds a cell). A longer span of time is drawn
    as numbers (a year as a quantity).
    """
    where = "this expression makes" if column is None else f"column {column!r} holds"
    return f"{where} a date in the year {year}, outside the years 1 to 9999 chartc holds dates in"


def date_out_of_range_hint() -> str:
    return ("keep dates between 0001-01-01 and 9999-12-31 (a year of 5 digits is often a typo), or drop the row "
            "with a filter, e.g. \"year(datum.t) <= 9999\"; draw a longer span of time as numbers, e.g. the year as "
            "a quantity (type: quantitative)")


@code("E416", hint="rows_pulled_past_limit_hint")
def rows_pulled_past_limit(count: int, limit: int, why: str, whose: str = "this layer's") -> str:
    """A layer whose rows would all be read into Python, past the limit of such rows.

    Rows left in the engine (a Parquet or Arrow file, a large CSV or JSON file, a table of the
    engine's catalog) are filtered, computed, aggregated, reduced and fitted there, at any number of
    rows: only the marks drawn come back. A few steps the engine does not compute as Vega does (a
    value of several kinds among which an array or another object, Dates as an impute's keys or
    groups, a pivot on dates, an expression only the renderer runs) need every row of the layer in
    Python, and a lookup's second source is read whole to be indexed as Vega does: their memory
    grows with the rows (on a cluster, in its driver). Past the limit they are refused before a row
    is read rather than exhaust the machine. Give the step's value one kind (`toString(...)`,
    `toNumber(...)`, `time(...)` for a date's milliseconds), or filter or aggregate the rows first in
    steps the engine runs; look up in a table of one row per key.
    """
    return (f"{whose} {count:,} rows would all be read into Python ({why}), past the limit of "
            f"{limit:,} rows chartc reads so")


def rows_pulled_past_limit_hint() -> str:
    return ("give the value one kind (e.g. toString(...), toNumber(...), or time(...) for a date's milliseconds), "
            "or filter or aggregate the rows first, in steps the engine runs")


def lookup_too_many_rows_hint() -> str:
    return ("look up in a smaller table (one row per key: aggregate the second source first and save it), or join "
            "the two in the engine before charting (a view or table of its catalog)")


@code("E411")
def data_nested(field: str, index: int) -> str:
    """Nested values in a data column.

    Chart data are flat rows of numbers, text, dates and nulls; a cell holds a list or mapping. Flatten
    the data (one column per value).

    Example:
        data:
          values: [{x: 1, y: [1, 2]}]
        mark: point
        encoding:
          x: x
          y: y
    """
    return f"field {field!r} of row {index + 1} holds a list or mapping, but chart data are flat rows"


def data_nested_hint() -> str:
    return "give each value its own field, e.g. {x: 1, y: 2} rather than {point: [1, 2]}"


@code("E480")
def density_unsupported(reason: str) -> str:
    """A density raster over an encoding it cannot count.

    `mark: {type: point, density: true}` draws a scatter as the number of its points in each cell of
    a grid over x and y (a rect per non-empty cell, coloured by its count), computed by the engine
    over every row drawn. It needs a point, circle or square mark, x and y plain quantitative fields
    (no `aggregate`, `bin`, `timeUnit` or `scale` of their own: the cells are even steps of the data's
    extent) and no other channel: the colour is the count (a `color` without a field may still set
    its `title`, `legend` and `scale`, such as `{title: Requests, scale: {scheme: viridis}}`).

    Example:
        data: {dataset: cars}
        mark: {type: point, density: true}
        encoding:
          x: Horsepower
          y: Miles_per_Gallon
          color: Origin
    """
    return f"a density raster counts points per cell of x and y: {reason}"


def density_unsupported_hint() -> str:
    return ("keep `x` and `y` as plain quantitative fields and drop the other channels (the colour is the count), "
            "or draw the points without `density`")


@code("E481")
def density_unknowable() -> str:
    """A density raster over rows only the renderer knows.

    The density's counts are computed before rendering, from the layer's rows with its transforms done.
    A transform only Vega can evaluate (see the data stage's other diagnostics) leaves those rows unknown,
    so the cells cannot be counted.
    """
    return "the density's cells cannot be counted: this layer's rows are only known to the renderer"


def density_unknowable_hint() -> str:
    return "write the transform so that chartc can evaluate it (a field predicate, plain arithmetic), or drop `density`"


# ------------------------------------------------------------------ density

@code("E470", hint="density_not_numeric_hint")
def density_not_numeric(field: str) -> str:
    """A density of a field that does not hold numbers.

    A `density` transform estimates the distribution of a numeric field; every value of this one is
    text, a date or a boolean, and Vega would draw a curve of NaN (nothing). Estimate a numeric field,
    or convert it first with a `calculate` (`toNumber(datum.FIELD)`).

    Example:
        data: {dataset: cars}
        transform:
          - {density: Origin}
        mark: line
        encoding:
          x: {field: value, type: quantitative}
          y: {field: density, type: quantitative}
    """
    return f"density of {field!r}, which does not hold numbers"


def density_not_numeric_hint(kind: str) -> str:
    return f"its values are {kind}: estimate a numeric field, or convert this one with a calculate (toNumber)"


# ------------------------------------------------------------------ tables passed from Python

@code("E485", hint="table_stream_read_hint")
def table_stream_read(type_name: str) -> str:
    """A stream passed as a table that was already read.

    A pyarrow `RecordBatchReader` (or any object that hands out its rows as an Arrow stream only once)
    gives its batches a single time. It was read before chartc got it (by a `read_all()`, another
    chart, a loop over it), so no row is left to draw. chartc reads a stream once, into its engine:
    pass a fresh reader for each chart, or the table or dataset the reader came from, which can be
    read again.
    """
    return f"the {type_name} was already read: a stream gives its rows once"


def table_stream_read_hint() -> str:
    return "pass a new reader for each chart, or the pyarrow Table or Dataset it reads from"


@code("E486")
def table_plan_failed(type_name: str, reason: str) -> str:
    """A lazy table whose query failed when the engine ran it.

    A Polars LazyFrame, a pyarrow Dataset, a DuckDB relation or an Ibis table expression is a query,
    not rows: chartc's engine runs it when the chart reads it (only the columns and rows the chart
    needs), and it failed there: a file it scans is missing or damaged, a column it names does not
    exist, an Ibis expression is not bound to a backend. The reason is the library's own first line;
    `collect()` (or `execute()`) on the same object shows the whole error.
    """
    return f"the {type_name} failed when its query ran: {reason}"


@code("E495", hint="engine_unavailable_hint")
def engine_unavailable(engine: str, reason: str) -> str:
    """The data engine the chart runs on cannot be started or reached.

    `--engine spark` (or `engine = "spark"` in the project's `chartc.toml`, or `engine="spark"` in Python)
    sends the chart's queries to Apache Spark. Spark needs pyspark and a Java 17 runtime; a cluster given
    by `master` or `remote` in the project file's `[spark]` table must be reachable. The diagnostic is
    placed on the project file's line that chose the master, or on the spec's `data` when the command
    line chose Spark. Only a chart whose data the engine queries starts it. A project file with
    `engine = "spark"` and `remote = "sc://no-such-host:15002"` in its `[spark]` table reports it.
    """
    return f"the {engine} engine cannot run this chart's data: {reason}"


def engine_unavailable_hint() -> str:
    return ("check the project's chartc.toml [spark] table (master, remote), that `java -version` shows Java 17 "
            "and pyspark is installed (pip install 'chartc[spark]'); or run on the default engine: --engine duckdb")


@code("E496")
def engine_query_failed(engine: str, reason: str) -> str:
    """The data engine refused or failed one of the chart's queries.

    The data stage writes each query once, in DuckDB's dialect; on Spark it is transpiled and run there.
    A query Spark refuses (a function it lacks, a type it cannot cast) stops the chart with Spark's
    own first line, never a Java stack trace. The same spec on the default engine (`--engine duckdb`)
    shows whether the spec or the engine is at fault.
    """
    return f"the {engine} engine could not run this chart's query: {reason}"

# ------------------------------------------------------------------ tables of the engine's catalog

@code("E490", hint="catalog_no_engine_hint")
def catalog_no_engine(name: str) -> str:
    """A table of the engine's catalog, on the DuckDB engine.

    `data: {table: NAME}` reads a table that lives in the data engine's catalog (a Spark or Hive
    metastore table, `db.table`), not in a file. The default engine, DuckDB, runs in memory for each
    compile and has no catalog of tables: run the chart on Spark (`engine = "spark"` and a `[spark]`
    table in chartc.toml, or `--engine spark`), or write the table's rows to a Parquet file and give
    its `path`.

    Example:
        data: {table: logs.runs}
        mark: point
        encoding:
          x: step
          y: loss
    """
    return f"the DuckDB engine has no table {name!r}: it reads files, and has no catalog of tables"


def catalog_no_engine_hint() -> str:
    return ('set engine = "spark" in chartc.toml or run with --engine spark; '
            "or write the rows to a Parquet file, read by path")


@code("E491")
def catalog_table_missing(name: str, engine: str) -> str:
    """A table the engine's catalog does not have.

    `data: {table: NAME}` names a table the catalog of the engine the chart runs on does not know:
    a misspelled name, a database not given (`runs` is looked up in the current database; write
    `logs.runs` for another), or a table not created yet. The hint names the nearest table there is,
    else the catalog's tables.
    """
    return f"the {engine} catalog has no table {name!r}"


def catalog_tables(names: Sequence[str]) -> str:
    return f"the catalog's tables: {quoted_list(names)}" if names else "the catalog has no tables"


def catalog_flat_view_hint(name: str, flat: Sequence[str]) -> str:
    shown = ", ".join(flat[:4]) + (", ..." if len(flat) > 4 else "") if flat else "..."
    return f"draw a view of its flat columns: CREATE VIEW {name}_flat AS SELECT {shown} FROM {name}"


@code("E492")
def catalog_table_unreadable(name: str, reason: str) -> str:
    """A table of the engine's catalog that cannot be read.

    The engine has the table named by `data: {table: NAME}` but cannot give its rows as a chart reads
    them: a column holds lists, structs or maps (a chart's rows are flat: select or flatten the
    columns into a view of the catalog and name that), the engine could not start or be reached, or
    it refused the table's scan (files behind it gone or damaged). The reason is the engine's first
    line.
    """
    return f"the table {name!r} cannot be read: {reason}"
