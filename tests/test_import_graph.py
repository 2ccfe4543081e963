"""Dependencies point one way (docs/architecture.md "The one-way data flow"; no import cycle).

The module import graph of ``simulator/``, ``steps/`` and ``reports/`` is read from the source with ``ast``, not
by importing it: every ``import`` / ``from … import`` statement counts wherever it stands (module level, inside a
function, a ``try``), except those under ``if TYPE_CHECKING:``, which never run. An edge goes to the module
named, or to the package when the imported name is not a submodule; importing ``a.b.c`` is not counted as an
edge to ``a`` and ``a.b`` (the parent packages Python runs first). Imports by string (``importlib``, the
``REFERENCE_STARTERS`` registry) are not edges: that is how the harness reaches a reference without importing it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulator", "steps", "reports")

#: Cycles inside ``simulator/`` not broken yet, each named with its modules and the reason. Empty: none remain.
#: An entry here is a known debt, never a way to make this test pass quietly.
ALLOWED_CYCLES: tuple[frozenset[str], ...] = ()

#: What ``reports/`` may import of the simulator (architecture: reports render a ``RunRecord`` and nothing else).
#: What the renderers may import of the harness: the record, the wire log, where the schema is, and the causes
#: (simulator/verdicts/causes.py: the Next steps, a pure function of the record) and the grades
#: (simulator/verdicts/grades.py: a colour per spec and family, a pure function of the record).
REPORTS_MAY_IMPORT = frozenset({"simulator.verdicts.results", "simulator.wirelog", "simulator.suite", "simulator.verdicts.causes",
                                "simulator.verdicts.grades"})


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(node: ast.AST, *, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under ``node``, at any depth; ``if TYPE_CHECKING:`` bodies only if asked."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test) and not type_checking:
            for stmt in child.orelse:
                yield from _statements_of(stmt, type_checking=type_checking)
            continue
        yield from _statements_of(child, type_checking=type_checking)


def _statements_of(node: ast.AST, *, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    yield from _statements(node, type_checking=type_checking)


def _known(name: str) -> str | None:
    """The longest prefix of ``name`` that is one of our modules (None: a third-party or stdlib module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, *, type_checking: bool = False) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: set[str] = set()
    for stmt in _statements(tree, type_checking=type_checking):
        if isinstance(stmt, ast.Import):
            targets: Iterable[str | None] = (_known(alias.name) for alias in stmt.names)
        else:
            if stmt.level:
                base = ".".join(package[: len(package) - stmt.level + 1] + ([stmt.module] if stmt.module else []))
            else:
                base = stmt.module or ""
            targets = (
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else _known(base) for alias in stmt.names
            )
        out.update(t for t in targets if t)
    out.discard(module)
    return out


@functools.cache
def import_graph(*, type_checking: bool = False) -> dict[str, set[str]]:
    """Module → the project modules it imports at run time (``type_checking``: those under the guard too).
    Cached: callers must not change it."""
    return {module: _imports(module, path, type_checking=type_checking) for module, path in MODULES.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
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
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _describe(cycles: list[list[str]], graph: dict[str, set[str]]) -> str:
    lines = []
    for cycle in cycles:
        members = set(cycle)
        lines.append(f"cycle of {len(cycle)}: " + ", ".join(cycle))
        lines.extend(f"    {m} -> {', '.join(sorted(graph[m] & members))}" for m in cycle)
    return "\n".join(lines)


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_sees_the_project():
    graph = import_graph()
    assert "simulator.hook.envelope" in graph and "reports._common" in graph and "steps" in graph
    assert "simulator.hook.issues" in graph["simulator.hook.envelope"]
    # A function-level import counts: the subjects module imports the dial watcher inside a method.
    assert "simulator.roles.dial_watch" in graph["simulator.harness.subjects"]


def test_no_import_cycle_in_simulator():
    graph = import_graph()
    cycles = [c for c in strongly_connected(graph) if all(_in(m, "simulator") for m in c)]
    unexpected = [c for c in cycles if frozenset(c) not in ALLOWED_CYCLES]
    assert not unexpected, "import cycles in simulator/ (runtime imports, function-level included):\n" + _describe(
        unexpected, graph
    )
    stale = [sorted(c) for c in ALLOWED_CYCLES if list(sorted(c)) not in cycles]
    assert not stale, f"ALLOWED_CYCLES entries that are no longer cycles (remove them): {stale}"


def test_no_cycle_in_the_protocol_core_even_for_the_type_checker():
    """``simulator/hook/`` is a one-way stack even counting ``TYPE_CHECKING`` imports (issues ← checks ← wire ←
    registry ← envelope: the result type holding a ``HookMessage`` lives in ``envelope``)."""
    graph = import_graph(type_checking=True)
    cycles = [c for c in strongly_connected(graph) if all(_in(m, "simulator.hook") for m in c)]
    assert not cycles, _describe(cycles, graph)


def test_protocol_core_imports_no_other_project_module_but_jsonpointer():
    graph = import_graph()
    outside = {
        (m, t)
        for m, targets in graph.items()
        if _in(m, "simulator.hook")
        for t in targets
        if not _in(t, "simulator.hook") and t != "simulator.jsonpointer"
    }
    assert not outside, sorted(outside)


def test_references_do_not_import_the_harness():
    """The references share only ``simulator.subjects.running`` with the harness (and the package's ``__version__``)."""
    graph = import_graph()
    harness = {"simulator.harness.subjects", "simulator.subjects.targets", "simulator.subjects.config", "simulator.harness.plugin"}
    bad = {
        (m, t)
        for m, targets in graph.items()
        if _in(m, "simulator.reference")
        for t in targets
        if t in harness
    }
    assert not bad, sorted(bad)
    assert graph["simulator.subjects.running"] == set(), graph["simulator.subjects.running"]


def test_reports_import_only_the_result_record_and_the_wire_log():
    graph = import_graph()
    bad = {
        (m, t)
        for m, targets in graph.items()
        if _in(m, "reports")
        for t in targets
        if _in(t, "simulator") and t not in REPORTS_MAY_IMPORT
    }
    assert not bad, sorted(bad)


def test_simulator_imports_nothing_from_steps():
    graph = import_graph()
    bad = {(m, t) for m, targets in graph.items() if _in(m, "simulator") for t in targets if _in(t, "steps")}
    assert not bad, sorted(bad)


def test_drivers_sit_between_the_roles_and_the_steps():
    """Core ← roles / references ← drivers ← harness ← steps. A driver never imports the steps, the pytest
    plugin or a reference implementation (a check built on the subject's own code would pass whatever it does); a
    reference never imports a driver; steps never import a reference."""
    graph = import_graph()
    upward = {"simulator.harness.plugin", "simulator.harness.subjects"}
    bad = {(m, t) for m, targets in graph.items() if _in(m, "simulator.drivers") for t in targets
           if _in(t, "steps") or _in(t, "simulator.reference") or t in upward}
    bad |= {(m, t) for m, targets in graph.items() if _in(m, "simulator.reference") for t in targets
            if _in(t, "simulator.drivers")}
    bad |= {(m, t) for m, targets in graph.items() if _in(m, "steps") for t in targets if _in(t, "simulator.reference")}
    assert not bad, sorted(bad)
    assert any(_in(t, "simulator.drivers") for m, targets in graph.items() if _in(m, "steps") for t in targets)


def test_the_one_hop_examples_of_the_architecture_name_what_exists():
    """docs/architecture.md "One hop from requirement to rule": every file and function it names exists."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text[text.index("### One hop from requirement to rule"):]
    table = table[:table.index("\n## ")] if "\n## " in table else table
    rows = [line for line in table.splitlines() if line.startswith("| **")]
    assert len(rows) == 3, rows
    for row in rows:
        for path, name in re.findall(r"`((?:steps|simulator)/[\w/]+\.py)` `(\w+)`", row):
            source = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"def {name}\b", source), f"{path} has no function {name} (docs/architecture.md)"
        rid = re.match(r"\| \*\*([A-Z0-9-]+)\*\*", row).group(1)
        assert any(f"@req:{rid}" in p.read_text(encoding="utf-8") for p in (ROOT / "features").rglob("*.feature")), rid


#: The layers of ``simulator/`` from the bottom up (docs/architecture.md "The package"): a module imports only
#: modules of its own layer or of a layer below. ``harness`` and ``replay`` form one layer (the pytest side: the
#: plugin runs the playback, the replay runs pytest); the load profile is a front door of its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("simulator", "simulator.errors", "simulator.jsonpointer", "simulator.wirelog", "simulator.suite"),
    ("simulator.verdicts",),
    ("simulator.hook",),
    ("simulator.subjects",),
    ("simulator.roles", "simulator.profiles.fuzz"),
    ("simulator.reference",),
    ("simulator.drivers",),
    ("simulator.harness", "simulator.replay"),
    ("simulator.profiles.load", "simulator.profiles"),
    ("simulator.__main__",),
)


def _layer(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for level, names in enumerate(LAYERS):
        for name in names:
            if module == name or (name != "simulator" and module.startswith(name + ".")):
                if best is None or len(name) > best[1]:
                    best = (level, len(name))
    return best[0] if best else None


def test_every_module_of_simulator_belongs_to_a_layer():
    assert [m for m in import_graph() if _in(m, "simulator") and _layer(m) is None] == []


def test_every_import_in_simulator_points_down_the_layers():
    graph = import_graph()
    up = sorted((m, t) for m, targets in graph.items() if _in(m, "simulator") for t in targets
                if _in(t, "simulator") and (_layer(t) or 0) > (_layer(m) or 0))
    assert up == [], "imports pointing up the layers (docs/architecture.md):\n" + "\n".join(f"{m} -> {t}" for m, t in up)


def test_roles_and_references_do_not_import_each_other():
    graph = import_graph()
    bad = {(m, t) for m, targets in graph.items() for t in targets
           if (_in(m, "simulator.roles") and _in(t, "simulator.reference"))
           or (_in(m, "simulator.reference") and _in(t, "simulator.roles"))}
    assert not bad, sorted(bad)


def test_only_the_harness_imports_pytest():
    """pytest and pytest-bdd are imported by ``simulator.harness`` (the plugin, its fixtures, the feature-file
    readers), by the steps, and by the front door that starts pytest (``simulator.__main__``); every other layer is
    plain Python, testable without a pytest session."""
    bad = []
    for name, path in MODULES.items():
        if not _in(name, "simulator") or _in(name, "simulator.harness") or name == "simulator.__main__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for stmt in ast.walk(tree):
            targets = ([a.name for a in stmt.names] if isinstance(stmt, ast.Import)
                       else [stmt.module or ""] if isinstance(stmt, ast.ImportFrom) and not stmt.level else [])
            bad += [(name, t) for t in targets if t.split(".")[0] in {"pytest", "_pytest", "pytest_bdd", "xdist"}]
    assert bad == [], sorted(bad)


def test_the_top_of_simulator_is_its_layers():
    top = sorted(p.name for p in (ROOT / "simulator").iterdir() if p.name != "__pycache__")
    files = [n for n in top if n.endswith(".py")]
    assert len(files) <= 8, files
    assert {n for n in top if not n.endswith(".py")} == {
        "drivers", "harness", "hook", "profiles", "reference", "replay", "roles", "subjects", "verdicts"}
