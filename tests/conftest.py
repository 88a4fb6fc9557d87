"""Shared test fixtures: golden files and the Vega-Lite schema.

Golden files hold reviewed outputs (``tests/golden/<name>.vl.json``). A test
compares its output with the golden file; ``pytest --update-golden`` writes
the outputs instead, to be reviewed in the diff.
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Every `chartc` a test starts compiles in its own process, even while the developer's warm
# renderer (`chartc daemon`) runs: tests/test_daemon.py gives the daemon its own folder.
os.environ["CHARTC_WARM"] = "0"


def _pin_kernels() -> None:
    """Load OpenBLAS and numpy (later) with the kernels the command names (`cli.pin_kernels`): a fit compiled in
    this process is then the bytes of one compiled by `chartc`, on any CPU."""
    from chartc.commands.cli import pin_kernels

    pin_kernels()


_pin_kernels()

SPECS = ROOT / "specs"
GOLDEN = Path(__file__).resolve().parent / "golden"
SPEC_SUFFIXES = (".yaml", ".yml", ".json")


def label(message: str, severity: str = "error") -> str:
    """What a diagnostic line prints before its path for `message`: ``error[E451]``, ``warning[W401]``.

    `message` comes from a message function, so the code is the one it declares.
    """
    assert message.code, f"{message!r} has no diagnostic code"
    return f"{severity}[{message.code}]"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="write golden files from the current outputs instead of comparing")


@pytest.fixture(scope="session")
def update_golden(request) -> bool:
    """True when the run should rewrite golden files."""
    return bool(request.config.getoption("--update-golden"))


def example_specs() -> list[Path]:
    """Every example spec in specs/ (not the data files), sorted by name."""
    return sorted(p for p in SPECS.iterdir() if p.is_file() and p.suffix in SPEC_SUFFIXES)


def assert_golden(path: Path, text: str, update: bool) -> None:
    """Compare `text` with the golden file at `path`, or (re)write it when updating.

    Args:
        path: the golden file.
        text: the output under test.
        update: write `text` to `path` instead of comparing.
    """
    path = Path(path)
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.relative_to(ROOT)}; run pytest --update-golden and review it")
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{path.name} (golden)", tofile=f"{path.name} (now)", n=2))
        pytest.fail(f"output differs from {path.relative_to(ROOT)} "
                    f"(pytest --update-golden rewrites it):\n{diff[:6000]}", pytrace=False)


@functools.cache
def vega_lite_validator():
    """A Draft 7 validator for the Vega-Lite schema that Altair ships, built once."""
    import altair
    from jsonschema import Draft7Validator

    schema_file = Path(altair.__file__).parent / "vegalite" / "v6" / "schema" / "vega-lite-schema.json"
    return Draft7Validator(json.loads(schema_file.read_text(encoding="utf-8")))


def vega_lite_errors(vega_lite: dict) -> list[str]:
    """Vega-Lite schema violations of a compiled chart, most specific first."""
    found = []
    for error in vega_lite_validator().iter_errors(vega_lite):
        leaves = list(error.context) or [error]
        leaf = max(leaves, key=lambda e: len(e.absolute_path))
        found.append(f"{'/'.join(map(str, leaf.absolute_path))}: {leaf.message[:300]}")
    return found


@pytest.fixture(scope="session")
def vl_validator():
    return vega_lite_validator()


# ------------------------------------------------------------------ a local Apache Spark (tests marked `spark`)

SPARK_MASTER = "local[2]"
# How long the session's Spark took to start, for the terminal summary.
SPARK_STARTUP = pytest.StashKey[float]()
# Spark logs through log4j2 from the JVM's first line on, before any setLogLevel call could reach it: only
# errors, so a passing run prints nothing of Spark's. Spark's own loggers need a level of their own: without
# one, Spark treats a pyspark driver as a shell, lowers the threshold to WARN again and says so.
SPARK_LOG_CONFIG = """\
rootLogger.level = error
logger.spark.name = org.apache.spark
logger.spark.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
"""


def spark_missing() -> str | None:
    """Why a local Spark cannot start here, or None: it needs pyspark and the `java` Spark would run."""
    if importlib.util.find_spec("pyspark") is None:
        return "pyspark is not installed (the test extra: pip install -c requirements/lock.txt -e '.[test]')"
    java_home = os.environ.get("JAVA_HOME")  # what Spark's launcher runs: $JAVA_HOME/bin/java, else `java`
    if java_home and not os.access(os.path.join(java_home, "bin", "java"), os.X_OK):
        return f"JAVA_HOME={java_home} has no bin/java"
    if not java_home and shutil.which("java") is None:
        return "no `java` on PATH (scripts/setup-test-env installs Debian's openjdk-17-jre-headless)"
    return None


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(config, items):
    # A test that starts Spark is a `spark` test, so `-m "not spark"` leaves out every one of them.
    for item in items:
        if ({"spark_session", "spark_connect_server"} & set(getattr(item, "fixturenames", ()))
                and item.get_closest_marker("spark") is None):
            item.add_marker(pytest.mark.spark)


def pytest_runtest_setup(item):
    # CI (CHARTC_REQUIRE_SPARK=1, set by .ci/run) fails a Spark test it cannot run; a developer without a JDK
    # sees it skipped, with the reason.
    if item.get_closest_marker("spark") is None:
        return
    missing = spark_missing()
    if missing is None:
        return
    if os.environ.get("CHARTC_REQUIRE_SPARK") == "1":
        pytest.fail(f"Spark is required (CHARTC_REQUIRE_SPARK=1) but cannot start: {missing}", pytrace=False)
    pytest.skip(f"Spark cannot start: {missing}")


def spark_test_conf(folder: Path) -> dict:
    """The tests' Spark settings, for a local session and for the Connect server alike: no web UI, UTC, 2
    shuffle partitions, the driver on the loopback interface, its files and a quiet log in `folder`."""
    log_config = folder / "log4j2.properties"
    log_config.write_text(SPARK_LOG_CONFIG, encoding="utf-8")
    return {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
            "spark.sql.session.timeZone": "UTC", "spark.sql.shuffle.partitions": "2",
            "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
            "spark.sql.warehouse.dir": str(folder / "warehouse"), "spark.local.dir": str(folder / "scratch"),
            # C1 only (no C2 JIT): halves the JVM's CPU to start (~20 s -> ~11 s) and to run the first
            # queries; the tests' rows are few, so Spark's steady-state speed does not matter here.
            "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log_config.as_uri()} "
                                             "-XX:TieredStopAtLevel=1"}


@pytest.fixture(scope="session")
def spark_session(request, tmp_path_factory):
    """A local Spark on 2 cores, started once per run and stopped at its end.

    The session time zone is UTC, so timestamps read alike on every machine; 2 shuffle partitions, not
    Spark's 200 tasks per shuffle on 2 cores; no web UI, and the driver bound to the loopback interface: it
    opens no port beyond 127.0.0.1 and needs no network. Its files (warehouse, scratch, log config) live in
    a temporary folder, never in the checkout.
    """
    folder = tmp_path_factory.mktemp("spark")
    with pytest.MonkeyPatch.context() as patch:
        # Read as the JVM starts: bind to loopback without resolving the host's name; Python workers (UDFs)
        # run this interpreter, not whatever `python3` is on PATH.
        patch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
        patch.setenv("PYSPARK_PYTHON", sys.executable)
        patch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
        started = time.perf_counter()
        from pyspark.sql import SparkSession

        builder = SparkSession.builder.master(SPARK_MASTER).appName("chartc-tests")
        for key, value in spark_test_conf(folder).items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        request.config.stash[SPARK_STARTUP] = time.perf_counter() - started
        try:
            yield spark
        finally:
            spark.stop()


@pytest.fixture(scope="session")
def spark_connect_server(tmp_path_factory):
    """A Spark Connect server on `SPARK_MASTER`, started from pyspark's own jars (`SparkConnectServer`, as
    Spark's start-connect-server.sh starts it) on a free loopback port, stopped at the run's end; yields its
    URL (``sc://127.0.0.1:PORT``). Its log is in the fixture's folder."""
    import pyspark

    folder = tmp_path_factory.mktemp("spark-connect")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = Path(pyspark.__file__).parent
    settings = {**spark_test_conf(folder), "spark.connect.grpc.binding.address": "127.0.0.1",
                "spark.connect.grpc.binding.port": port}
    command = [str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
               "--master", SPARK_MASTER, *(f"--conf={key}={value}" for key, value in settings.items()), "spark-internal"]
    environment = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1",
                   "PYSPARK_PYTHON": sys.executable}
    log = folder / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(command, env=environment, stdout=output, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while True:  # the port is bound once the gRPC service runs
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the Spark Connect server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if SPARK_STARTUP in config.stash:
        terminalreporter.write_line(f"Spark {SPARK_MASTER} started in {config.stash[SPARK_STARTUP]:.1f} s")


# ------------------------------------------------------------------ charts and what Vega draws of them

def compile_text(tmp_path: Path, text: str):
    """Compile a spec written in a test (dedented) from a file of its own."""
    from chartc.pipeline import compile_spec

    path = tmp_path / "chart.yaml"
    path.write_text(textwrap.dedent(text))
    return compile_spec(path)


def scene_nodes(graph, marktype: str | None = None, role: str | None = None, name: str | None = None) -> list[dict]:
    """Mark nodes of the scene, in drawing order; `name` matches a layer's marks in a facet's cells too."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if ("marktype" in node and (marktype is None or node["marktype"] == marktype)
                    and (role is None or node.get("role") == role)
                    and (name is None or re.fullmatch(rf"(child_)?{name}", str(node.get("name"))))):
                found.append(node)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(graph)
    return found


# ---------------------------------------------------------------- the ported corpora (test_corpus, test_corpus2)


@functools.cache
def vega_dataset(name: str):
    """A vega-datasets table, read by pandas from the file vega_datasets ships (its text as written)."""
    import pandas as pd
    import vega_datasets

    source = getattr(vega_datasets.local_data, name.replace("-", "_"))
    if source.format == "json":
        return pd.DataFrame(json.loads(Path(source.filepath).read_text(encoding="utf-8")))
    return pd.read_csv(source.filepath)


def valid_rows(frame, *fields: str) -> int:
    """Rows with every field present: what Vega-Lite draws on continuous scales."""
    return len(frame.dropna(subset=list(fields)))


def group_count(frame, *keys) -> int:
    """Number of non-empty groups."""
    return frame.groupby(list(keys), observed=True).ngroups


def layer_items(graph, marktype: str, name: str) -> list[dict]:
    """The items a data layer draws."""
    return [item for node in scene_nodes(graph, marktype, "mark", name) for item in node.get("items", [])]


def legend_labels(graph) -> list[str]:
    return [item["text"] for node in scene_nodes(graph, "text", "legend-label") for item in node["items"]]


def facet_panels(graph) -> tuple[int, int]:
    """The facet grid as (columns, rows), from where Vega places the cells."""
    (cells,) = [node["items"] for node in scene_nodes(graph, "group") if node.get("name") == "cell"]
    return len({cell["x"] for cell in cells}), len({cell["y"] for cell in cells})
