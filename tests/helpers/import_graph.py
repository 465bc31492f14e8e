"""The project's import graph, read from the source with `ast`: every import counts,
those inside functions and under TYPE_CHECKING too, because each is a dependency the
next engineer must keep in their head. The layer test and the closing notes of layout
work measure the house with it."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("arena", "protocol")

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("vocabulary", ("protocol", "arena.errors", "arena.files", "arena.lazy", "arena.termination",
                    "arena.timecontrol", "arena.version")),
    ("games and statistics", ("arena.games", "arena.stats")),
    ("records and drawings", ("arena.records", "arena.render")),
    ("bot processes and isolation", ("arena.process",)),
    ("referee", ("arena.referee",)),
    ("leagues and learning", ("arena.league", "arena.rl")),
    ("cluster, pages and people at the board", ("arena.cluster", "arena.web", "arena.people")),
    ("sessions and the ladder", ("arena.session", "arena.ladder")),
    ("commands and the public face", ("arena.cli", "arena.bench", "arena", "arena.__main__")),
)
"""Bottom up. A module may import its own layer's modules and those of lower layers."""

PROCESS_FACE = tuple(f"arena.process.{name}" for name in (
    "channel", "spec", "faults", "backends", "bot_process", "botnames", "botfolder", "folder_checks", "secret",
    "sandbox", "cgroups", "cores", "reaper", "stderr_log", "build"))
"""What the layers over the bot processes may import of them: the seam (a `Launcher`
turns a `Launch` into a `LineChannel`), what a bot is (spec, names, folder, faults) and
what the machine offers (sandbox probe, cgroups, cores). The rest (pipes, process trees,
/proc, scratch folders, the spawner, the sandbox's view and filter) is the layer's own;
`arena bench` alone, which measures those parts, reaches them."""


def reaching_in(found: Iterable[Edge]) -> list[Edge]:
    """Imports from outside the process layer (bench excepted) of its own parts."""
    return [edge for edge in found if edge.target.startswith("arena.process.") and edge.target not in PROCESS_FACE
            and not edge.source.startswith(("arena.process", "arena.bench"))]


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _resolve(target: str, known: dict[str, Path]) -> str | None:
    """The project module `target` names: itself, or the package holding the name."""
    while target:
        if target in known:
            return target
        target = target.rpartition(".")[0]
    return None


def edges(known: dict[str, Path] | None = None) -> list[Edge]:
    known = modules() if known is None else known
    found: list[Edge] = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            line = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                resolved = _resolve(target, known)
                if resolved is not None and resolved != name:
                    found.append(Edge(name, resolved, line))
    return found


def layer_of(module: str) -> int:
    best, depth = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            within = module == prefix or (prefix != "arena" and module.startswith(prefix + "."))
            if within and len(prefix) > depth:
                best, depth = index, len(prefix)
    if best < 0:
        raise LookupError(f"{module} is in no layer: add it to LAYERS")
    return best


def upward(found: Iterable[Edge]) -> list[Edge]:
    return [edge for edge in found if layer_of(edge.target) > layer_of(edge.source)]


def cycles(found: Sequence[Edge]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), ignoring a package's
    imports of its own modules, which are how a package shows its names."""
    graph: dict[str, set[str]] = {}
    for edge in found:
        if edge.target.startswith(edge.source + "."):
            continue
        graph.setdefault(edge.source, set()).add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def floors(found: Sequence[Edge]) -> dict[str, int]:
    """Each module's floor: 0 for one that imports no module of the project, else one
    more than the highest floor it imports (modules in a cycle share one floor)."""
    graph: dict[str, set[str]] = {}
    for edge in found:
        if not edge.target.startswith(edge.source + "."):
            graph.setdefault(edge.source, set()).add(edge.target)
    together = {name: frozenset(group) for group in cycles(found) for name in group}
    floor: dict[str, int] = {}

    def visit(node: str, path: frozenset[str]) -> int:
        if node in floor:
            return floor[node]
        group = together.get(node, frozenset({node}))
        below = [visit(n, path | group) for m in group for n in graph.get(m, ()) if n not in group | path]
        value = 1 + max(below) if below else 0
        for member in group:
            floor[member] = value
        return value

    for name in modules():
        visit(name, frozenset())
    return floor


def loose_modules() -> list[str]:
    """Modules lying at arena/'s top, beside the packages (the package's own
    __init__ and __main__ excepted)."""
    return sorted(
        path.stem for path in (ROOT / "arena").glob("*.py") if path.stem not in ("__init__", "__main__")
    )


if __name__ == "__main__":
    graph = edges()
    print("loose modules:", len(loose_modules()), " ".join(loose_modules()))
    for edge in upward(graph):
        print(f"upward: {edge.source}:{edge.line} -> {edge.target}")
    for group in cycles(graph):
        print("cycle:", " ".join(group))
    levels = floors(graph)
    print("floors:", max(levels.values()) + 1, " top:", " ".join(sorted(m for m, f in levels.items()
                                                                   if f == max(levels.values()))))
