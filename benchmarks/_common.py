"""Shared helpers for the benchmark scripts: running children, timing, tables.

Every figure of a cold run is measured in a fresh child process, so such a
benchmark script itself never imports chartc or matplotlib; the warm benchmarks
of one stage (`median_time`, `parsed_chart`) import it in their own process. Wall time is
`time.perf_counter` around the child; peak memory is the child's own
`ru_maxrss` as returned by `os.wait4` (the same number as
`resource.getrusage(RUSAGE_CHILDREN)` read in a fresh parent per measurement).

chartc runs as ``python -m chartc`` (installed, e.g. ``pip install -e .``); set
CHARTC (e.g. ``CHARTC=chartc``) to time another command instead.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import json
import os
import platform
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_REPO = HERE.parent


# ------------------------------------------------------------------ options

def arguments(description: str, argv=None, extra=None) -> argparse.Namespace:
    """The options every benchmark script takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer repeats and smaller inputs")
    parser.add_argument("--repeat", type=int, default=None, help="cold runs per command (median reported)")
    parser.add_argument("--repo", type=Path, default=DEFAULT_REPO,
                        help="the chartc checkout to measure (default: this one, as it is on disk)")
    parser.add_argument("--at", metavar="REV",
                        help="measure git revision REV of --repo instead (exported to a temporary folder)")
    if extra:
        extra(parser)
    args = parser.parse_args(argv)
    args.repo = args.repo.resolve()
    if args.at:
        args.repo = snapshot(args.repo, args.at)
    if args.repo != DEFAULT_REPO:
        installed(args.repo)  # before anything is timed; decides the module name
    return args


def snapshot(repo: Path, rev: str) -> Path:
    """`git archive REV` of `repo` unpacked into a temporary folder (removed at exit).

    Measures a fixed revision while other people edit the working tree.
    """
    folder = Path(tempfile.mkdtemp(prefix=f"chartc-{rev.replace('/', '_')}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", rev], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", rev],
                            capture_output=True, text=True, check=True).stdout.strip()
    (folder / ".bench-revision").write_text(f"{rev} ({commit})\n")
    return folder


def repeats(args, full: int, quick: int) -> int:
    if args.repeat:
        return args.repeat
    return quick if args.quick else full


# ------------------------------------------------------------------ commands

def child_env(repo: Path, **extra: str) -> dict:
    """The environment of a measured child: `repo`'s chartc importable, no stray state.

    The default checkout runs as installed (``pip install -e .``); another
    checkout or an ``--at`` snapshot is installed into a folder of its own
    first, and put on PYTHONPATH.
    """
    env = dict(os.environ)
    if Path(repo).resolve() != DEFAULT_REPO:
        site = installed(Path(repo))
        env["PYTHONPATH"] = str(site) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["MPLBACKEND"] = "Agg"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    return env


_INSTALLED: dict[Path, Path] = {}
# Revisions before the package was named `chartc` import as `compiler`.
_MODULE = ["chartc"]


def installed(repo: Path) -> Path:
    """`repo` installed without dependencies into a temporary folder (once per run)."""
    if repo not in _INSTALLED:
        site = Path(tempfile.mkdtemp(prefix="chartc-site-"))
        atexit.register(shutil.rmtree, site, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                        str(repo)], check=True)
        if not (site / "chartc").is_dir():
            _MODULE[0] = "compiler"
        _INSTALLED[repo] = site
    return _INSTALLED[repo]


def chartc(*args: str) -> list[str]:
    """The chartc command line (``python -m chartc`` unless CHARTC says otherwise)."""
    base = shlex.split(os.environ["CHARTC"]) if os.environ.get("CHARTC") else [sys.executable, "-m", _MODULE[0]]
    return base + [str(a) for a in args]


def python(*args: str) -> list[str]:
    return [sys.executable] + [str(a) for a in args]


_HELP_CACHE: dict = {}


def chartc_supports(repo: Path, command: str, option: str) -> bool:
    """Whether ``chartc COMMAND --help`` mentions OPTION (features land over time)."""
    key = (str(repo), command)
    if key not in _HELP_CACHE:
        done = subprocess.run(chartc(command, "--help"), cwd=repo, env=child_env(repo),
                              capture_output=True, text=True, timeout=120)
        _HELP_CACHE[key] = done.stdout + done.stderr
    return option in _HELP_CACHE[key]


# ------------------------------------------------------------------ measuring

@dataclass
class Run:
    """One child process: how long, how much memory, how it ended."""

    wall: float
    returncode: int | None          # None when killed by a signal or the timeout
    signal: int | None
    maxrss_kb: int
    timed_out: bool
    stderr: str = ""
    cpu: float = 0.0                # user + system seconds of the child and every process it started
    stdout: str = ""                # the last 4,000 characters it printed


    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def status(self) -> str:
        if self.timed_out:
            return "timeout"
        if self.signal is not None:
            try:
                return signal.Signals(self.signal).name
            except ValueError:
                return f"signal {self.signal}"
        return "ok" if self.returncode == 0 else f"exit {self.returncode}"


def _adopt_orphans() -> bool:
    """Make this process the reaper of its descendants' orphans (Linux), so their CPU time is counted.

    A chartc command may end before a worker process it started (the worker
    exits when its parent does): reparented here, it is waited for after the
    command (`_reap_orphans`), and its CPU time lands in RUSAGE_CHILDREN.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


ADOPTS_ORPHANS = sys.platform.startswith("linux") and _adopt_orphans()


def _reap_orphans(group: int, seconds: float = 10.0) -> None:
    """Wait for the adopted orphans of process group `group` (a worker ending after its parent).

    Only that group's processes are waited for (a benchmark's own servers are
    not); what outlives `seconds` is killed.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            pid, _ = os.waitpid(-group, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(group, signal.SIGKILL)
            time.sleep(0.005)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(cmd: list[str], *, cwd=None, env=None, timeout: float | None = None) -> Run:
    """Run `cmd` once in a new process group; time it and read its peak RSS and CPU time.

    A child that crashes or aborts is a result, not an error. On timeout the
    whole process group is killed. CPU time counts every process the child
    started (workers included: orphans are adopted and waited for, on Linux).
    """
    cpu_before = _children_cpu()
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        result: dict = {}

        def reap():
            _, status, usage = os.wait4(proc.pid, 0)
            result["end"] = time.perf_counter()
            result["status"] = status
            result["usage"] = usage

        waiter = threading.Thread(target=reap, daemon=True)
        waiter.start()
        waiter.join(timeout)
        timed_out = waiter.is_alive()
        if timed_out:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            waiter.join()
        code = os.waitstatus_to_exitcode(result["status"])
        proc.returncode = code  # reaped by wait4; keep Popen from waiting again
        err.seek(0)
        tail = err.read()[-4000:].decode("utf-8", "replace")
        out.seek(0)
        printed = out.read()[-4000:].decode("utf-8", "replace")
    if ADOPTS_ORPHANS:
        _reap_orphans(proc.pid)  # the child's process group (start_new_session)
    return Run(
        wall=result["end"] - start,
        returncode=None if (timed_out or code < 0) else code,
        signal=-code if code < 0 and not timed_out else None,
        maxrss_kb=result["usage"].ru_maxrss,
        timed_out=timed_out,
        stderr=tail,
        cpu=_children_cpu() - cpu_before,
        stdout=printed,
    )


@dataclass
class Series:
    """Repeated cold runs of one command."""

    runs: list[Run] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(r.wall for r in self.runs)

    @property
    def cpu(self) -> float:
        """Median CPU seconds (user + system, the child's workers included)."""
        return statistics.median(r.cpu for r in self.runs)

    @property
    def spread(self) -> tuple[float, float]:
        walls = [r.wall for r in self.runs]
        return min(walls), max(walls)

    @property
    def maxrss_mb(self) -> float:
        return max(r.maxrss_kb for r in self.runs) / 1024

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.runs)

    @property
    def status(self) -> str:
        bad = [r.status for r in self.runs if not r.ok]
        return "ok" if not bad else bad[0]

    def first_error(self) -> str:
        for r in self.runs:
            if not r.ok:
                return r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.status
        return ""


def compare(commands: dict[str, dict], repeat: int, warmup: int = 1) -> dict[str, Series]:
    """Cold-run several commands `repeat` times each, interleaved (A B A B ...).

    Args:
        commands: name -> keyword arguments of `measure` (cmd, cwd, env, timeout).
        repeat: measured runs per command.
        warmup: unmeasured runs first (byte-compile, font caches, disk cache).
    """
    for _ in range(warmup):
        for spec in commands.values():
            measure(**spec)
    series = {name: Series() for name in commands}
    for _ in range(repeat):
        for name, spec in commands.items():
            series[name].runs.append(measure(**spec))
    return series


# ------------------------------------------------------------------ results

@dataclass
class Row:
    """One figure: chartc against its peer, as a ratio with a target."""

    figure: str
    chartc: str
    peer: str
    ratio: float | None
    target: str                        # e.g. "<= 1.5"
    limit: float | None = None         # ratio must be <= limit; None: judged by `verdict`
    verdict: str | None = None         # overrides the computed pass/fail ("n/a", "fail", ...)
    note: str = ""

    @property
    def result(self) -> str:
        if self.verdict:
            return self.verdict
        if self.ratio is None or self.limit is None:
            return "n/a"
        return "pass" if self.ratio <= self.limit else "fail"

    def as_dict(self) -> dict:
        return {"figure": self.figure, "chartc": self.chartc, "peer": self.peer,
                "ratio": self.ratio, "target": self.target, "result": self.result, "note": self.note}


def seconds(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def megabytes(value: float) -> str:
    return f"{value:.0f} MB"


def size(n_bytes: int | None) -> str:
    if n_bytes is None:
        return "n/a"
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} B"


def ratio_text(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain fixed-width table."""
    widths = [max(len(str(c)) for c in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def print_rows(title: str, rows: list[Row]) -> None:
    print(f"\n== {title}")
    print(table(["figure", "chartc", "peer", "ratio", "target", "result"],
                [[r.figure, r.chartc, r.peer, ratio_text(r.ratio), r.target, r.result] for r in rows]))
    notes = [f"  {r.figure}: {r.note}" for r in rows if r.note]
    if notes:
        print("notes:\n" + "\n".join(notes))


# ------------------------------------------------------------------ machine

def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


PACKAGES = ("altair", "vl-convert-python", "vega-datasets", "pandas", "numpy", "jsonschema",
            "ruamel.yaml", "PyYAML", "matplotlib")


def machine(repo: Path) -> list[tuple[str, str]]:
    """What the figures were measured on."""
    from importlib import metadata

    versions = []
    for name in PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (missing)")
    marker = repo / ".bench-revision"
    if marker.exists():
        commit = "git archive of " + marker.read_text().strip()
    else:
        try:
            commit = subprocess.run(["git", "-C", str(repo), "describe", "--always", "--dirty"],
                                    capture_output=True, text=True, timeout=30).stdout.strip() or "n/a"
        except (OSError, subprocess.SubprocessError):
            commit = "n/a"
    version = subprocess.run(chartc("--version"), cwd=repo, env=child_env(repo),
                             capture_output=True, text=True, timeout=120).stdout.strip()
    return [
        ("cores", str(os.cpu_count())),
        ("cpu", cpu_model()),
        ("os", f"{platform.system()} {platform.release()}"),
        ("load", "1/5/15-min load average %.2f %.2f %.2f (other work on the machine skews figures)"
         % os.getloadavg()),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
        ("chartc", f"{version or 'n/a'} at {repo} ({commit})"),
        ("packages", ", ".join(versions)),
    ]


def print_machine(repo: Path) -> None:
    print("\n== machine")
    for key, value in machine(repo):
        print(f"{key:9} {value}")


def print_series(title: str, series: dict[str, Series], commands: dict[str, dict] | None = None) -> None:
    """Every measured command: median, range, peak RSS, how it ended."""
    print(f"\n-- {title}")
    rows = []
    for name, s in series.items():
        low, high = s.spread
        rows.append([name, seconds(s.median), f"{seconds(low)} .. {seconds(high)}", seconds(s.cpu),
                     str(len(s.runs)), megabytes(s.maxrss_mb), s.status])
    print(table(["command", "median", "range", "CPU", "runs", "peak RSS", "status"], rows))
    for name, s in series.items():
        if not s.ok:
            print(f"   {name}: {s.first_error()}")
    if commands:
        for name, spec in commands.items():
            print(f"   {name}: {shlex.join(spec['cmd'])}")


def failed_row(figure: str, target: str, series: dict[str, Series]) -> Row | None:
    """A row saying the figure could not be measured, when a command failed."""
    broken = {name: s for name, s in series.items() if not s.ok}
    if not broken:
        return None
    name, s = next(iter(broken.items()))
    return Row(figure, "error" if "chartc" in name else "-", "error" if "chartc" not in name else "-",
               None, target, verdict="error", note=f"{name}: {s.status}: {s.first_error()}")


def run_script(module_run, description: str, argv=None, extra=None) -> list[Row]:
    """The `main` of one benchmark script: parse, measure, print its table and the machine."""
    args = arguments(description, argv, extra)
    started = time.perf_counter()
    rows = module_run(args)
    print_rows(description, rows)
    print_machine(args.repo)
    print(f"\n({seconds(time.perf_counter() - started)} in all)")
    return rows


# ------------------------------------------------------------------ warm benchmarks of one stage, in this process

def median_time(run, repeat: int) -> float:
    """The median wall time of `repeat` calls of `run`, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def parsed_chart(spec: dict, path: str):
    """The typed chart of a spec written as JSON at `path` (which anchors its relative data paths)."""
    from chartc.stages.load import load_text
    from chartc.stages.parse import parse_chart

    chart, problems = parse_chart(load_text(json.dumps(spec), path, format="json"))
    assert not problems, problems
    return chart
