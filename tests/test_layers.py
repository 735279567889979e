"""The house stays layered (issue 28): imports only point down, no module imports itself back
through others, and no function is too long to read.

The import graph is built from the source with ``ast`` (function-level imports included);
nothing of robodyn is imported. A package ``__init__.py`` that only hands names on (it
defines no function or class) is not a node: an import through it goes to the module that
defines the name. The top-level ``robodyn/__init__.py`` is such a face (its names load
lazily) and is left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "robodyn"

# The layers, lowest first: each module belongs to the first prefix that matches its dotted
# name (after "robodyn."). The README's design section shows the same table.
LAYERS: list[tuple[int, str, tuple[str, ...]]] = [
    (0, "base", ("errors", "_files", "_checks", "_command")),
    (1, "math", ("spatial", "inertia", "cspace")),
    (2, "model", ("model", "models")),
    (3, "core", ("kernels",)),
    (
        4,
        "algorithms",
        (
            "kinematics",
            "dynamics",
            "derivatives",
            "coriolis",
            "energy",
            "taskspace",
            "planar",
            "constrained",
            "workspace_maps",
            "rigidbody",
            "convert",
            "reference",
        ),
    ),
    (
        5,
        "applications",
        (
            "trajectory",
            "control",
            "sim",
            "mobile",
            "ident",
            "symbolic",
            "viz",
            "distributed",
            "mr",
        ),
    ),
    (6, "interfaces", ("cli", "bench", "jax")),
]

# the longest a function may be, in lines of code (docstring, blank lines and comments aside)
LONGEST = 80
LONGEST_BENCH = 120


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def layer_of(name: str) -> int:
    rest = name.split(".", 1)[1]
    for number, _, prefixes in LAYERS:
        for prefix in prefixes:
            if rest == prefix or rest.startswith(prefix + "."):
                return number
    raise AssertionError(f"{name} is in no layer: add it to LAYERS (and to the README)")


def is_face(path: Path, tree: ast.Module) -> bool:
    """A module that only hands names on (a package's __init__, or ``robodyn/sweep.py``
    keeping a public path): imports, ``__all__`` and a docstring, nothing of its own."""

    def hands_on(node) -> bool:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return True  # the docstring
        if isinstance(node, ast.If):  # if __name__ == "__main__": ...
            return ast.unparse(node.test) in ("__name__ == '__main__'", '__name__ == "__main__"')
        targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
        return all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)

    return all(hands_on(node) for node in tree.body)


def parse_package():
    files = {}
    for path in sorted(SRC.rglob("*.py")):
        files[module_name(path)] = (path, ast.parse(path.read_text(), str(path)))
    return files


def absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def raw_imports(files):
    """module -> list of (target module, imported name or None)."""
    out = {}
    for name, (path, tree) in files.items():
        edges = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                edges += [(a.name, None) for a in node.names if a.name.startswith("robodyn")]
            elif isinstance(node, ast.ImportFrom):
                target = absolute(name, node, path.name == "__init__.py")
                if target.startswith("robodyn"):
                    edges += [(target, a.name) for a in node.names]
        out[name] = edges
    return out


def import_graph():
    files = parse_package()
    raw = raw_imports(files)
    faces = {n for n, (p, t) in files.items() if is_face(p, t)} | {"robodyn"}

    def resolve(target, attr, seen=()):
        """The modules an import of ``attr`` from ``target`` reaches, through faces."""
        if attr is not None and f"{target}.{attr}" in files:
            target, attr = f"{target}.{attr}", None
        while target not in files and "." in target:
            target = target.rsplit(".", 1)[0]
        if target not in faces:
            return {target}
        if target == "robodyn" or target in seen:
            return set()
        hops = [(t, a) for t, a in raw[target] if attr is None or a == attr]
        found = set()
        for t, a in hops:
            found |= resolve(t, a, (*seen, target))
        return found

    graph = {}
    for name in files:
        if name in faces:
            continue
        graph[name] = set()
        for target, attr in raw[name]:
            graph[name] |= resolve(target, attr) - {name}
    return graph


def circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v), on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_through_faces():
    """The reader of the graph is right on a known edge, so an empty answer means something."""
    graph = import_graph()
    assert "robodyn.kernels.call" in graph["robodyn.dynamics"]
    assert "robodyn.sim.simulate" in graph or "robodyn.sim" in graph
    assert any(m.startswith("robodyn.model.") for m in graph["robodyn.kinematics.forward"])


def test_no_import_circle():
    found = circles(import_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_imports_point_down():
    up = [
        f"{a} (layer {layer_of(a)}) imports {b} (layer {layer_of(b)})"
        for a, targets in sorted(import_graph().items())
        for b in sorted(targets)
        if layer_of(b) > layer_of(a)
    ]
    assert not up, "imports that climb a layer:\n" + "\n".join(up)


def code_lines(lines: list[str], node) -> int:
    body = node.body
    doc = None
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        doc = (body[0].lineno, body[0].end_lineno)
    n = 0
    for i in range(node.lineno, node.end_lineno + 1):
        if doc and doc[0] <= i <= doc[1]:
            continue
        text = lines[i - 1].strip()
        if text and not text.startswith("#"):
            n += 1
    return n


def test_no_function_too_long_to_read():
    long = []
    for name, (path, tree) in parse_package().items():
        lines = path.read_text().splitlines()
        limit = LONGEST_BENCH if name.startswith("robodyn.bench") else LONGEST
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = code_lines(lines, node)
                if n > limit:
                    long.append(f"{path.relative_to(SRC.parent)}:{node.name} {n} > {limit}")
    assert not long, "functions over the limit:\n" + "\n".join(sorted(long))


@pytest.mark.parametrize("number, layer, prefixes", LAYERS)
def test_every_layer_names_modules_that_exist(number, layer, prefixes):
    names = set(parse_package())
    for prefix in prefixes:
        assert any(n == f"robodyn.{prefix}" or n.startswith(f"robodyn.{prefix}.") for n in names), (
            f"layer {number} ({layer}) names robodyn.{prefix}, which does not exist"
        )
