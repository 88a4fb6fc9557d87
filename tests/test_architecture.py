"""The folder layout is the architecture: each layer imports only the layers below it.

Every module of the package is parsed with `ast` (nothing is imported), and
its imports, at module level, inside functions and under ``TYPE_CHECKING``
alike, make one graph of modules. The tests below check that graph against
the layering docs/how-it-works.md describes:

    commands  ->  api  ->  pipeline  ->  stages  ->  (ir, trends, infra, render)  ->  errors
                                     render -> infra -> errors

and a few rules that keep the boundaries honest: which third-party libraries
each layer may import, no cycles, no reaching into another module's private
names or globals, a docstring on every module that says what it owns, and
one module that writes the head of every HTML page.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import chartc

PACKAGE = "chartc"
SOURCE = Path(chartc.__file__).resolve().parent

# Module name prefix -> layer; the longest matching prefix wins. A module in
# no layer fails `test_every_module_is_in_a_layer`: add it here on purpose.
LAYERS = {
    "chartc": "api",                 # the public API (lazy); the package's __init__ only
    "chartc.__main__": "entry",      # `python -m chartc`
    "chartc.version": "shared",
    "chartc.errors": "shared",
    "chartc.ir": "ir",
    "chartc.trends": "trends",
    "chartc.infra": "infra",
    "chartc.render": "render",
    "chartc.stages": "stages",
    "chartc.pipeline": "pipeline",
    "chartc.api": "public",          # the Python API (Chart, load, from_spec): what the CLI and a notebook call
    "chartc.notebook": "public",     # `%load_ext chartc`: the cell magic, on the API
    "chartc.commands": "commands",
}
# Layer -> the layers its modules may import (its own included).
ALLOWED = {
    "shared": {"shared"},
    "ir": {"ir", "shared"},
    "trends": {"trends", "shared"},
    "infra": {"infra", "shared"},
    "render": {"render", "infra", "shared"},
    "stages": {"stages", "ir", "trends", "infra", "render", "shared"},
    "pipeline": {"pipeline", "stages", "render", "infra", "ir", "trends", "shared"},
    "public": {"public", "pipeline", "stages", "render", "infra", "ir", "trends", "shared"},
    "commands": {"commands", "public", "pipeline", "stages", "render", "infra", "ir", "trends", "shared"},
    "api": {"api", "public", "pipeline", "shared"},
    "entry": {"commands"},
}
# A stage imports only stages that run before it (or beside it: markers are
# the data stage's marker styles), never a later one.
STAGE_ORDER = {"load": 0, "validate": 1, "parse": 2, "data": 3, "markers": 3, "check": 4, "limits": 5, "fit": 6,
               "translate": 7, "verify": 8, "scene": 9}
# Third-party libraries only some modules may import: the library's top-level
# name -> module name prefixes allowed to import it (empty: none).
RESTRICTED = {
    # The translator; and `Chart.to_altair`, which hands the compiled chart to Altair.
    "altair": ("chartc.stages.translate", "chartc.api"),
    "vl_convert": ("chartc.render",),
    # The fits, and the table's float columns (for the fits) and seeded sampling.
    "numpy": ("chartc.trends", "chartc.stages.fit", "chartc.infra.table"),
    "pandas": (),
    "scipy": (),
    # The data engine: only the stages run queries (through stages/data/engine.py's connection).
    "duckdb": ("chartc.stages",),
    # Arrow IPC files, read in place for the engine; rows carried into Spark (the Spark backend).
    "pyarrow": ("chartc.stages.data.sources", "chartc.stages.data.spark"),
}


@dataclass(frozen=True)
class Import:
    """One imported module (or package member) in one module of the package."""

    source: str          # the importing module
    target: str          # the module imported, absolute
    names: tuple         # for `from target import a, b`: ("a", "b"); empty for `import target`
    line: int
    local: bool          # inside a function (imported when it runs)

    def where(self) -> str:
        imported = f"from {self.target} import {', '.join(self.names)}" if self.names else f"import {self.target}"
        return f"{module_file(self.source)}:{self.line}: {imported}"


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


@cache
def modules() -> dict[str, Path]:
    """Module name -> source file, for every module of the package."""
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py")) if "__pycache__" not in path.parts}


def module_file(name: str) -> str:
    return modules()[name].relative_to(SOURCE.parent).as_posix()


@cache
def tree(name: str) -> ast.Module:
    return ast.parse(modules()[name].read_text(encoding="utf-8"), filename=str(modules()[name]))


def _local_nodes(module: ast.Module) -> set[int]:
    """ids of the import statements inside a function body."""
    return {id(node) for function in ast.walk(module) if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
            for node in ast.walk(function) if isinstance(node, (ast.Import, ast.ImportFrom))}


def _absolute(name: str, node: ast.ImportFrom) -> str:
    """The module a (possibly relative) `from X import ...` reads from."""
    if not node.level:
        return node.module
    package = name if modules()[name].name == "__init__.py" else name.rpartition(".")[0]
    parts = package.split(".")
    base = parts[:len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@cache
def imports() -> tuple[Import, ...]:
    """Every import of every module; `from package import module` names the module itself."""
    found = []
    for name in modules():
        module = tree(name)
        local = _local_nodes(module)
        for node in ast.walk(module):
            if isinstance(node, ast.Import):
                found.extend(Import(name, alias.name, (), node.lineno, id(node) in local) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(name, node)
                members = [alias.name for alias in node.names if f"{base}.{alias.name}" in modules()]
                rest = tuple(alias.name for alias in node.names if alias.name not in members)
                found.extend(Import(name, f"{base}.{member}", (), node.lineno, id(node) in local)
                             for member in members)
                if rest:
                    found.append(Import(name, base, rest, node.lineno, id(node) in local))
    return tuple(sorted(found, key=lambda i: (i.source, i.line, i.target)))


def internal_imports() -> list[Import]:
    return [i for i in imports() if i.target in modules() and i.target != i.source]


def layer(name: str) -> str | None:
    matches = [prefix for prefix in LAYERS if name == prefix or name.startswith(prefix + ".")]
    if name != PACKAGE:
        matches = [prefix for prefix in matches if prefix != PACKAGE]  # "chartc" is the __init__ alone
    return LAYERS[max(matches, key=len)] if matches else None


def stage(name: str) -> str | None:
    """The stage a module of `chartc.stages` belongs to (`translate` for its subpackage)."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == [PACKAGE, "stages"] else None


# ------------------------------------------------------------------ 1. libraries

def test_restricted_libraries_are_imported_only_where_allowed():
    wrong = []
    for item in imports():
        library = item.target.split(".")[0]
        allowed = RESTRICTED.get(library)
        if allowed is None:
            continue
        if not any(item.source == prefix or item.source.startswith(prefix + ".") for prefix in allowed):
            where = ", ".join(allowed) or "no module of chartc"
            wrong.append(f"{item.where()}  ({library} belongs in {where})")
    assert not wrong, "libraries imported outside their layer:\n" + "\n".join(wrong)


# ------------------------------------------------------------------ 2. layers

def test_every_module_is_in_a_layer():
    missing = [module_file(name) for name in modules() if layer(name) is None]
    assert not missing, f"modules in no layer (add them to LAYERS): {missing}"


def test_layers_import_only_the_layers_below_them():
    wrong = []
    for item in internal_imports():
        source, target = layer(item.source), layer(item.target)
        if source is None or target is None:
            continue  # reported by test_every_module_is_in_a_layer
        if target not in ALLOWED[source]:
            wrong.append(f"{item.where()}  ({source} may not import {target}: it may import "
                         f"{', '.join(sorted(ALLOWED[source]))})")
    assert not wrong, "imports across the layering:\n" + "\n".join(wrong)


def test_stages_import_only_earlier_stages():
    wrong = []
    for item in internal_imports():
        source, target = stage(item.source), stage(item.target)
        if source is None or target is None:
            continue
        if source not in STAGE_ORDER or target not in STAGE_ORDER:
            wrong.append(f"{item.where()}  (a stage not in STAGE_ORDER: {source if source not in STAGE_ORDER else target})")
        elif STAGE_ORDER[target] > STAGE_ORDER[source]:
            wrong.append(f"{item.where()}  (stage {source} runs before {target}: it may not import it)")
    assert not wrong, "stages importing later stages:\n" + "\n".join(wrong)


# ------------------------------------------------------------------ 3. cycles

def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the strongly connected components of `graph`."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def cycle_through(start: str, members: set[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest path start -> ... -> start inside one component (breadth first)."""
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & members):
                if successor == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [start, *reversed(path[:-1]), start] if node != start else [start, start]
                if successor not in parents:
                    parents[successor] = node
                    following.append(successor)
        frontier = following
    return [start]


def test_no_import_cycles():
    graph: dict[str, set[str]] = {name: set() for name in modules()}
    lines: dict[tuple[str, str], Import] = {}
    for item in internal_imports():
        graph[item.source].add(item.target)
        lines.setdefault((item.source, item.target), item)
    cycles = []
    for component in strongly_connected(graph):
        if len(component) < 2:
            continue
        path = cycle_through(component[0], set(component), graph)
        steps = "\n".join(f"    {lines[a, b].where()}" for a, b in zip(path, path[1:]))
        cycles.append(f"{' -> '.join(path)}  (a cycle among {len(component)} modules: {', '.join(component)})\n"
                      + steps)
    assert not cycles, "import cycles (function-local imports count):\n" + "\n".join(cycles)


# ------------------------------------------------------------------ 4. privacy

def _module_aliases(name: str) -> dict[str, str]:
    """Local name -> module, for every name a module binds to a module object.

    Names bound by ``import X [as Y]``, ``from P import module``, and names
    assigned from ``sys.modules`` (a module looked up at run time).
    """
    aliases = {}
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in modules():
                    aliases[alias.asname or alias.name] = f"{base}.{alias.name}"
        elif isinstance(node, ast.Assign) and "sys.modules" in ast.unparse(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    aliases[target.id] = "a module from sys.modules"
    return aliases


def _private(attribute: str) -> bool:
    return attribute.startswith("_") and not (attribute.startswith("__") and attribute.endswith("__"))


def test_no_module_reaches_into_another_modules_private_names():
    wrong = [f"{item.where()}  (private: {', '.join(n for n in item.names if _private(n))})"
             for item in imports() if item.target.startswith(PACKAGE) and item.target != item.source
             and any(_private(n) for n in item.names)]
    for name in modules():
        aliases = _module_aliases(name)
        for node in ast.walk(tree(name)):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and _private(node.attr) and aliases[node.value.id].startswith(PACKAGE)):
                wrong.append(f"{module_file(name)}:{node.lineno}: {node.value.id}.{node.attr}  "
                             f"(a private name of {aliases[node.value.id]})")
    assert not wrong, "private names used across modules (make them public, with a docstring):\n" + "\n".join(wrong)


def test_no_module_sets_another_modules_globals():
    wrong = []
    for name in modules():
        aliases = _module_aliases(name)
        for node in ast.walk(tree(name)):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in aliases:
                    wrong.append(f"{module_file(name)}:{node.lineno}: {ast.unparse(target)} = ...  "
                                 f"(a global of {aliases[target.value.id]})")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("setattr", "delattr") and node.args:
                first = node.args[0]
                if (isinstance(first, ast.Name) and first.id in aliases) or "sys.modules" in ast.unparse(first):
                    wrong.append(f"{module_file(name)}:{node.lineno}: {ast.unparse(node)}  (sets a module's global)")
    assert not wrong, ("module globals set from outside (pass the value, or give the module a setter "
                       "that says why):\n" + "\n".join(wrong))


# Stages that read the spec file itself; every later stage reads the chart model (`chartc.ir`) only.
DOCUMENT_STAGES = ("load", "validate", "parse")
DOCUMENT = "Document"


def document_uses(name: str) -> list[str]:
    """Where a module imports the loaded document's type or the loader, or a signature takes a document."""
    found = []
    for node in ast.walk(tree(name)):
        if isinstance(node, ast.ImportFrom) and any(alias.name == DOCUMENT for alias in node.names):
            found.append(f"{module_file(name)}:{node.lineno}: imports {DOCUMENT}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs,
                         *filter(None, (node.args.vararg, node.args.kwarg))]
            annotations = [argument.annotation for argument in arguments] + [node.returns]
            if any(argument.arg == "document" for argument in arguments) or any(
                    DOCUMENT in ast.unparse(annotation) for annotation in annotations if annotation is not None):
                found.append(f"{module_file(name)}:{node.lineno}: {node.name}() takes or returns a document")
        elif isinstance(node, ast.AnnAssign) and DOCUMENT in ast.unparse(node.annotation):
            found.append(f"{module_file(name)}:{node.lineno}: a {DOCUMENT} attribute")
    found.extend(f"{item.where()}  (the loader)" for item in imports()
                 if item.source == name and item.target == f"{PACKAGE}.stages.load")
    return found


def test_no_stage_after_parse_takes_the_document_beside_the_tree():
    later = [name for name in modules() if layer(name) == "stages" and stage(name) not in DOCUMENT_STAGES]
    assert f"{PACKAGE}.stages.verify" in later and f"{PACKAGE}.stages.data.interpret" in later
    assert document_uses(f"{PACKAGE}.stages.parse")  # the check sees the stage that does take it
    wrong = [use for name in later for use in document_uses(name)]
    assert not wrong, "stages after parse reading the document instead of the chart model:\n" + "\n".join(wrong)


# ------------------------------------------------------------------ 5. docstrings

def test_every_module_says_what_it_owns():
    wrong = []
    for name in modules():
        docstring = ast.get_docstring(tree(name)) or ""
        first = docstring.strip().splitlines()[0] if docstring.strip() else ""
        if len(first.split()) < 3:
            wrong.append(f"{module_file(name)}: {'no docstring' if not first else repr(first)}")
    assert not wrong, "modules without a docstring that says what they own:\n" + "\n".join(wrong)


def test_every_layer_says_what_it_may_import():
    packages = sorted({prefix for prefix in LAYERS if prefix in modules() and modules()[prefix].name == "__init__.py"
                       and prefix != PACKAGE})
    wrong = [module_file(name) for name in packages if "import" not in (ast.get_docstring(tree(name)) or "")]
    assert packages and not wrong, f"layer packages whose docstring does not say what they may import: {wrong}"


# ------------------------------------------------------------------ the graph itself

def test_the_graph_is_read_from_every_module():
    """The checks above see the real package: its stages, and imports made inside functions."""
    assert {"chartc.pipeline", "chartc.errors"} <= set(modules())
    assert any(item.local for item in internal_imports())
    assert all(item.source in modules() for item in imports())


# ------------------------------------------------------------------ 6. one page skeleton

def test_one_module_writes_the_head_of_every_html_page():
    """The export, the gallery's pages, the diff report and serve's pages all get their head from `infra.html`."""
    writers = sorted(name for name, path in modules().items()
                     if any(tag in path.read_text(encoding="utf-8").lower() for tag in ("<!doctype", "<head>")))
    assert writers == ["chartc.infra.html"], f"modules writing an HTML head of their own: {writers}"


# ------------------------------------------------------------------ 5. the light paths stay light

@pytest.mark.slow
@pytest.mark.parametrize("command", [
    ["--version"], ["schema"], ["new", "{tmp}/chart"], ["validate", "specs/seed_pretraining.yaml"],
    ["compile", "specs/seed_pretraining.yaml", "-o", "{tmp}/seed.vl.json"],
], ids=["version", "schema", "new", "validate-csv", "compile-csv-without-transforms"])
def test_the_light_commands_never_import_the_data_engine(command, tmp_path):
    """duckdb (~0.15 s) is imported at a compile's first query, never by a command or chart that needs none.

    The seed chart (a CSV, no transforms, least-squares trends over a few hundred rows) is compiled
    as it was before the engine: its cold start must not pay for it.
    """
    args = [part.format(tmp=tmp_path) for part in command]
    probe = ("import contextlib, io, sys; from chartc.commands import cli\n"
             "try:\n"
             "    with contextlib.redirect_stdout(io.StringIO()):\n"
             f"        code = cli.main({args!r})\n"
             "except SystemExit as exit:\n"
             "    code = exit.code\n"
             "print(code, sorted(m for m in ('duckdb', 'pyarrow', 'sqlglot') if m in sys.modules))")
    root = Path(__file__).resolve().parent.parent  # the checkout: specs/ is there
    result = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True)
    assert result.stdout.strip() == "0 []", result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("command, absent", [
    (None, ("numpy", "altair", "vl_convert")),
    (["validate", "specs/seed_pretraining.yaml"], ("numpy", "altair", "vl_convert")),
    (["compile", "specs/seed_pretraining.yaml", "-o", "{tmp}/seed.vl.json"], ("vl_convert",)),
    (["compile", "specs/seed_pretraining.yaml", "-o", "-"], ("vl_convert",)),
], ids=["import-chartc", "validate", "compile-vl-json", "compile-to-stdout"])
def test_the_json_path_starts_no_renderer_and_the_light_paths_no_numpy(command, absent, tmp_path):
    """`import chartc` and `chartc validate` load no numpy; a compile to Vega-Lite JSON loads no vl-convert.

    vl-convert's engine costs ~0.4 s and ~150 MB to start: a compile that draws nothing never starts
    it (Vega-Lite's compiler checks the chart where it is drawn, or under --full).
    """
    call = "code = 0" if command is None else \
        f"code = cli.main({[part.format(tmp=tmp_path) for part in command]!r})"
    probe = ("import contextlib, io, sys; import chartc; from chartc.commands import cli\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             f"    {call}\n"
             f"print(code, sorted(m for m in {absent!r} if m in sys.modules))")
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True)
    assert result.stdout.strip() == "0 []", result.stderr


@pytest.mark.slow
def test_import_chartc_is_light():
    """`import chartc` (and reading its public names) imports none of the heavy libraries: they load on first use."""
    heavy = ("numpy", "pandas", "altair", "duckdb", "pyarrow", "polars", "jsonschema", "ruamel", "vl_convert",
             "IPython")
    probe = ("import sys, chartc\n"
             "assert callable(chartc.load_ipython_extension) and chartc.SpecError and chartc.__version__\n"
             f"print(sorted(m for m in {heavy!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr
