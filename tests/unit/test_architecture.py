"""The house as docs/architecture.md draws it ("Rooms"), read from the imports: every arrow points down a floor, no
import circle among the product's modules, and the monitor reads no other service's code. Every import counts, a
function's lazy one too; only those under `if TYPE_CHECKING:` do not run and are left out."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The floors, lowest first; a package imports only from lower floors or from itself.
FLOORS = {
    "shared": 0,
    "games": 1,
    "seamless": 1,
    "services": 2,
    "deploy": 2,
    "refwallet": 2,
    "ops": 3,
    "mathtools": 3,
    "reelstream": 4,
    "bench": 5,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def product_modules() -> dict[str, Path]:
    return {module_name(path): path for package in FLOORS for path in sorted((ROOT / package).rglob("*.py"))}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(node: ast.AST):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            yield from (n for branch in child.orelse for n in _import_nodes_of(branch))
            continue
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child
        yield from _import_nodes(child)


def _import_nodes_of(node: ast.AST):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    yield from _import_nodes(node)


def _resolved(name: str, modules: dict[str, Path]) -> str | None:
    """The product module `name` loads: itself, or the nearest enclosing package or module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The product modules `module` imports at run time (module level or inside a function)."""
    found = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _import_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names = [f"{base}.{alias.name}" for alias in node.names]
        found |= {target for name in names if (target := _resolved(name, modules)) and target != module}
    return found


def import_graph() -> dict[str, set[str]]:
    modules = product_modules()
    return {module: imports_of(module, path, modules) for module, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
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


def test_every_arrow_points_down_a_floor():
    upward = [
        f"{source} -> {target}"
        for source, targets in import_graph().items()
        for target in targets
        if (a := source.split(".")[0]) != (b := target.split(".")[0]) and FLOORS[b] >= FLOORS[a]
    ]
    assert upward == []


def test_no_import_circle_among_the_product_modules():
    assert circles(import_graph()) == []


def test_the_monitor_imports_no_other_service():
    graph = import_graph()
    borrowed = [
        f"{source} -> {target}"
        for source, targets in graph.items()
        if source.startswith("services.monitor")
        for target in targets
        if target.startswith("services.") and not target.startswith("services.monitor")
    ]
    assert borrowed == []


def test_the_graph_reads_the_imports_it_should():
    """The reader itself: a lazy import counts, a TYPE_CHECKING one does not, a relative one resolves."""
    graph = import_graph()
    assert "shared.heap" in graph["shared.loop"]
    assert "services.audit.core.collect" not in graph["services.audit.core.trust"]
    assert "services.audit.core.trust" in graph["services.audit.core.collect"]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
