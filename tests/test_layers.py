"""The layout shows the layers (docs/architecture.md): no import points up a layer, no
modules import one another in a circle (imports inside functions count), and few
modules lie loose at arena/'s top. Each check is shown failing on a small made-up graph."""

from __future__ import annotations

from tests.helpers.import_graph import (
    LAYERS,
    Edge,
    cycles,
    edges,
    layer_of,
    loose_modules,
    modules,
    reaching_in,
    upward,
)

MAX_LOOSE = 6


def test_every_module_lies_in_a_layer() -> None:
    for name in modules():
        layer_of(name)  # LookupError names a module no layer holds


def test_no_import_points_up() -> None:
    assert [f"{e.source}:{e.line} imports {e.target}" for e in upward(edges())] == []


def test_no_import_cycle() -> None:
    assert cycles(edges()) == []


def test_only_the_bench_reaches_into_the_process_layer() -> None:
    assert [f"{e.source}:{e.line} imports {e.target}" for e in reaching_in(edges())] == []


def test_few_loose_modules() -> None:
    loose = loose_modules()
    assert len(loose) <= MAX_LOOSE, loose


def test_the_checks_see_what_they_forbid() -> None:
    referee = next(prefixes[0] for _, prefixes in LAYERS if prefixes[0] == "arena.referee")
    made_up = [Edge("arena.process.view", f"{referee}.match", 1), Edge(f"{referee}.match", "arena.process.view", 2),
               Edge("arena.games.base", "arena.errors", 3)]
    assert upward(made_up) == [made_up[0]]
    assert cycles(made_up) == [["arena.process.view", "arena.referee.match"]]
    assert reaching_in(made_up) == [made_up[1]]


def test_imports_inside_functions_count() -> None:
    graph = edges()
    inner = [e for e in graph if e.source == "arena.process.view" and e.target == "protocol"]
    assert inner, "view.py imports protocol inside arena_folders(): the graph must see it"
