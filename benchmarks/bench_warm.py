"""The warm renderer (issue 22, item 5): a repeated `chartc validate --full` / `chartc compile -o x.svg`
handed to `chartc daemon` against the same command cold.

Each command runs as a fresh process, interleaved (cold, warm, cold, warm ...)
after one unmeasured round; the median is reported, in wall time and in the
CPU time of the client (the command the user ran, and every process it
started; the daemon's own CPU is reported per run in the notes, not counted:
it is what the warm renderer spends instead of a cold start). The cold runs
set ``CHARTC_WARM=0``; both use a runtime folder of their own (never the
user's daemon). The outputs of the two are compared byte for byte.

    python benchmarks/bench_warm.py [--quick] [--repeat N] [--at REV]
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import Row, chartc, child_env, compare, failed_row, print_series, repeats, run_script, seconds

SPEC = "specs/seed_pretraining.yaml"
TARGET, LIMIT = "<= 0.2", 0.2


def run(args) -> list[Row]:
    folder = Path(tempfile.mkdtemp(prefix="chartc-bench-warm-"))
    runtime = folder / "run"
    runtime.mkdir(mode=0o700)
    cold_env = child_env(args.repo, XDG_RUNTIME_DIR=str(runtime), CHARTC_WARM="0")
    warm_env = child_env(args.repo, XDG_RUNTIME_DIR=str(runtime))
    warm_env.pop("CHARTC_WARM", None)
    started = subprocess.run(chartc("daemon", "start"), cwd=args.repo, env=warm_env, capture_output=True, text=True)
    if started.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        return [Row("warm renderer", "error", "-", None, TARGET, verdict="error",
                    note=(started.stderr or started.stdout).strip())]
    daemon = _daemon_pid(args.repo, warm_env)
    try:
        commands = {}
        for mode, env in (("cold", cold_env), ("warm", warm_env)):
            commands[f"validate --full ({mode})"] = dict(cmd=chartc("validate", "--full", SPEC), cwd=args.repo,
                                                          env=env)
            commands[f"compile -o x.svg ({mode})"] = dict(cmd=chartc("compile", SPEC, "-o", folder / f"{mode}.svg"),
                                                          cwd=args.repo, env=env)
        count = repeats(args, 7, 3)
        for spec in commands.values():  # the unmeasured round, so the daemon's CPU counts measured runs only
            subprocess.run(spec["cmd"], cwd=spec["cwd"], env=spec["env"], capture_output=True)
        daemon_before = _tree_cpu(daemon)
        series = compare(commands, count, warmup=0)
        daemon_cpu = _tree_cpu(daemon) - daemon_before
    finally:
        subprocess.run(chartc("daemon", "stop"), cwd=args.repo, env=warm_env, capture_output=True)
        _reap_daemon()
    print_series("the warm renderer: cold and warm runs", series, commands)
    same = (folder / "cold.svg").read_bytes() == (folder / "warm.svg").read_bytes()
    shutil.rmtree(folder, ignore_errors=True)
    rows = []
    for command in ("validate --full", "compile -o x.svg"):
        cold, warm = series[f"{command} (cold)"], series[f"{command} (warm)"]
        broken = failed_row(f"warm {command}", TARGET, {f"{command} (cold)": cold, f"chartc {command}": warm})
        if broken:
            rows.append(broken)
            continue
        note = f"the SVGs {'are' if same else 'are NOT'} byte-identical" if command.startswith("compile") else ""
        rows.append(Row(f"warm {command}, wall", seconds(warm.median), seconds(cold.median),
                        warm.median / cold.median, TARGET, LIMIT, note=note))
        rows.append(Row(f"warm {command}, client CPU", seconds(warm.cpu), seconds(cold.cpu),
                        warm.cpu / cold.cpu, TARGET, LIMIT))
    rows.append(Row("the daemon's CPU per warm run", seconds(daemon_cpu / (2 * count)), "-", None, "-",
                    note="the daemon process and its renderer worker (/proc), over the measured runs"))
    if not same:
        rows.append(Row("same SVG bytes warm and cold", "no", "yes", None, "identical", verdict="fail"))
    return rows


def _daemon_pid(repo: Path, env: dict) -> int:
    answer = subprocess.run(chartc("daemon", "status"), cwd=repo, env=env, capture_output=True, text=True)
    return int(answer.stdout.split("(pid ", 1)[1].split(",", 1)[0])


def _tree_cpu(pid: int) -> float:
    """User + system seconds of process `pid` and its children so far (Linux /proc)."""
    total, tick = 0, os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for process in [pid, *map(int, children)]:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{process}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime: the 14th and 15th of the line
    return total / tick


def _reap_daemon(seconds_: float = 10.0) -> None:
    """Wait for the stopped daemon and its worker (adopted here: `_common` makes this process their reaper)."""
    deadline = time.monotonic() + seconds_
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.01)
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def main(argv=None):
    run_script(run, "the warm renderer: a repeated validate --full / compile, cold vs warm", argv)


if __name__ == "__main__":
    sys.exit(main())
