"""Long fuzzing run: generated and mutated specs through the whole pipeline.

    python benchmarks/fuzz.py --minutes 10 [--render] [--seed N]

Uses the strategies and the oracle of ``tests/test_properties.py``: every
input must compile to valid, deterministic Vega-Lite or raise a `SpecError`
with a ``FILE:LINE:COL``. With ``--render``, every chart that compiles is also
rendered to SVG (and HTML) in a child process, so a renderer abort
(SIGABRT, vl-convert#220) or hang is caught instead of killing the run.

Prints how many inputs were tried and, for each distinct failure, a minimal
reproducer (the spec, shrunk by Hypothesis). Exits 1 when anything failed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import multiprocessing
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

import chartc

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(chartc.__file__).resolve().parent  # compiler/ in a checkout, chartc/ when installed


def _load_properties():
    spec = importlib.util.spec_from_file_location("chartc_properties", ROOT / "tests" / "test_properties.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _render_worker(connection) -> None:
    """Render every chart sent over `connection` to SVG and HTML; reply "ok", "refused: ..." or the error."""
    from chartc.render.export import RenderRefused, render

    while True:
        text = connection.recv()
        if text is None:
            return
        try:
            for fmt in ("svg", "html"):
                if not render(json.loads(text), fmt):
                    raise AssertionError(f"empty {fmt}")
            connection.send("ok")
        except RenderRefused as refusal:  # chartc reports it on the spec: fine if the spec wrote an expression
            connection.send(f"refused: {refusal.reason}")
        except Exception as error:  # noqa: BLE001 - reported to the parent
            lines = [line.strip() for line in str(error).splitlines() if line.strip() and not line.startswith("    at ")]
            connection.send(f"{type(error).__name__}: {' '.join(lines)[:300]}")


class RenderFailure(AssertionError):
    """The renderer crashed, hung or raised on a chart that compiled."""


class Renderer:
    """A child process that renders; a crash or hang there is a finding, not the end of the run."""

    def __init__(self, timeout: float = 60.0):
        self.timeout = timeout
        self.context = multiprocessing.get_context("spawn")
        self.process = None

    def _start(self) -> None:
        self.connection, child_end = self.context.Pipe()
        self.process = self.context.Process(target=_render_worker, args=(child_end,), daemon=True)
        self.process.start()

    def _restart(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.process.kill()
        if self.process is not None:
            self.process.join()
        self.process = None

    def check(self, text: str, spec) -> None:
        """Render `text` (compiled Vega-Lite); raise `RenderFailure` if the renderer died, hung or raised.

        Vega refusing to draw is a diagnostic on the spec (`verify.render_refusal`)
        when the spec wrote an expression (a filter or calculate text) that can be
        at fault; otherwise chartc generated what Vega refused, a finding.
        """
        if self.process is None:
            self._start()
        self.connection.send(text)
        if not self.connection.poll(self.timeout):
            self._restart()
            raise RenderFailure(f"render hung for more than {self.timeout:.0f} s")
        try:
            reply = self.connection.recv()
        except EOFError:
            code = self.process.exitcode if self.process else None
            self._restart()
            raise RenderFailure(f"renderer process died (exit code {code})") from None
        if reply.startswith("refused: ") and _writes_an_expression(spec):
            return
        if reply != "ok":
            raise RenderFailure(f"render failed: {reply}")

    def close(self) -> None:
        if self.process is not None and self.process.is_alive():
            self.connection.send(None)
            self.process.join(5)
        self._restart()


def _writes_an_expression(value) -> bool:
    """Whether a spec holds a filter or calculate written as expression text."""
    if isinstance(value, dict):
        return any((key in ("filter", "calculate") and isinstance(item, str)) or _writes_an_expression(item)
                   for key, item in value.items())
    if isinstance(value, list):
        return any(_writes_an_expression(item) for item in value)
    return False


def _shortened(spec, props):
    """The spec with the fixed test table named rather than spelled out."""
    if isinstance(spec, dict) and isinstance(spec.get("data"), dict) and spec["data"].get("values") == props.ROWS:
        spec = dict(spec, data={"values": "ROWS of tests/test_properties.py"})
    return spec


def signature(error: BaseException) -> str:
    """What makes two failures the same bug: the exception type and where it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    inner = [f for f in frames if Path(f.filename).resolve().is_relative_to(PACKAGE)] or frames
    where = f"{Path(inner[-1].filename).name}:{inner[-1].lineno}" if inner else "?"
    head = str(error).splitlines()[0][:80] if str(error) else ""
    if isinstance(error, AssertionError):
        return f"AssertionError: {head}"
    return f"{type(error).__name__} at {where}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0, help="how long to run (default 1)")
    parser.add_argument("--render", action="store_true", help="also render each compiled chart in a child process")
    parser.add_argument("--seed", type=int, default=None, help="first seed (default: random)")
    parser.add_argument("--batch", type=int, default=300, help="examples per Hypothesis run")
    args = parser.parse_args(argv)

    from hypothesis import HealthCheck, Phase, given, settings, seed
    from hypothesis import strategies as st

    props = _load_properties()
    workspace = props.make_workspace(Path(tempfile.mkdtemp(prefix="chartc-fuzz-")))
    deadline = time.monotonic() + args.minutes * 60
    tried = 0
    outcomes = {"compiled": 0, "spec-error": 0}
    failures: dict[str, tuple[str, str]] = {}  # signature -> (reproducer, message)
    current = {}
    renderer = Renderer() if args.render else None

    def run_one(spec: dict, suffix: str) -> None:
        nonlocal tried
        tried += 1
        current["spec"], current["suffix"] = spec, suffix
        path = props.write_spec(workspace, spec, suffix)
        try:
            outcome = props.check_spec_file(path)
            if args.render and outcome.kind == "compiled":
                renderer.check(outcome.text, spec)
        except BaseException as error:  # noqa: BLE001 - anything but a SpecError is a finding
            if isinstance(error, (KeyboardInterrupt, SystemExit)):
                raise
            key = signature(error)
            if key in failures:
                return  # known: don't let Hypothesis stop on it again
            current["error"] = error
            raise
        outcomes[outcome.kind] += 1

    run = 0
    while time.monotonic() < deadline:
        run += 1
        kind = ("schema", "mutated")[run % 2]
        remaining = deadline - time.monotonic()
        strategy = (props.schema_specs().flatmap(lambda s: st.one_of(st.just(s), props.mutate(s, rounds=2)))
                    if kind == "schema" else props.mutated_specs())

        @seed(args.seed + run if args.seed is not None else random.getrandbits(32))
        @settings(max_examples=args.batch, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                  phases=(Phase.generate, Phase.shrink) if remaining > 30 else (Phase.generate,))
        @given(spec=strategy, suffix=st.sampled_from((".json", ".yaml")))
        def fuzz(spec, suffix):
            if time.monotonic() > deadline:
                return
            run_one(spec, suffix)

        current.clear()
        try:
            fuzz()
        except BaseException as error:  # noqa: BLE001
            if isinstance(error, KeyboardInterrupt):
                break
            found = current.get("error", error)
            key = signature(found)
            reproducer = json.dumps(_shortened(current.get("spec"), props), ensure_ascii=False, sort_keys=True)
            failures.setdefault(key, (f"{current.get('suffix', '')} {reproducer}", str(found)[:500]))
            print(f"FAILURE {key}\n  input{failures[key][0]}\n  {failures[key][1]}", file=sys.stderr, flush=True)

    if renderer is not None:
        renderer.close()
    print(f"inputs tried: {tried} ({outcomes['compiled']} compiled, {outcomes['spec-error']} spec errors)")
    print(f"failures found: {len(failures)}")
    for number, (key, (reproducer, message)) in enumerate(sorted(failures.items()), 1):
        print(f"\n[{number}] {key}\n  input{reproducer}\n  {message}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
