import pytest

from topological_sort import CycleError, all_dependencies, build_levels, topological_order

VISIBLE = ["test_simple_chain", "test_diamond", "test_cycle_detected"]

BUILD = {
    "app": ["lib", "config"],
    "lib": ["utils"],
    "tests": ["app", "fixtures"],
    "config": [],
}


def test_simple_chain():
    assert topological_order({"c": ["b"], "b": ["a"]}) == ["a", "b", "c"]


def test_empty_and_single():
    assert topological_order({}) == []
    assert topological_order({"solo": []}) == ["solo"]


def test_diamond():
    deps = {"d": ["b", "c"], "b": ["a"], "c": ["a"]}
    assert topological_order(deps) == ["a", "b", "c", "d"]


def test_alphabetical_tie_break():
    assert topological_order({"z": [], "y": [], "x": []}) == ["x", "y", "z"]
    assert topological_order({"b": ["c"], "a": ["c"]}) == ["c", "a", "b"]


def test_implicit_nodes_and_duplicates():
    order = topological_order(BUILD)
    assert order == ["config", "fixtures", "utils", "lib", "app", "tests"]
    assert topological_order({"b": ["a", "a"]}) == ["a", "b"]


def test_order_respects_every_edge():
    order = topological_order(BUILD)
    for task, deps in BUILD.items():
        for dep in deps:
            assert order.index(dep) < order.index(task)


def test_cycle_detected():
    with pytest.raises(CycleError) as info:
        topological_order({"a": ["b"], "b": ["c"], "c": ["a"], "d": []})
    assert info.value.nodes == ["a", "b", "c"]
    assert "a, b, c" in str(info.value)


def test_self_cycle_and_downstream():
    with pytest.raises(CycleError) as info:
        topological_order({"a": ["a"], "b": ["a"], "c": []})
    assert info.value.nodes == ["a", "b"]


def test_build_levels():
    assert build_levels(BUILD) == [["config", "fixtures", "utils"], ["lib"], ["app"], ["tests"]]
    assert build_levels({"d": ["b", "c"], "b": ["a"], "c": ["a"]}) == [["a"], ["b", "c"], ["d"]]
    assert build_levels({}) == []
    assert build_levels({"x": []}) == [["x"]]


def test_build_levels_uses_longest_path():
    deps = {"c": ["a", "b"], "b": ["a"]}
    assert build_levels(deps) == [["a"], ["b"], ["c"]]


def test_all_dependencies():
    assert all_dependencies(BUILD, "tests") == ["app", "config", "fixtures", "lib", "utils"]
    assert all_dependencies(BUILD, "lib") == ["utils"]
    assert all_dependencies(BUILD, "utils") == []
    assert all_dependencies(BUILD, "unknown") == []
    assert all_dependencies({"a": ["b"], "b": ["a"]}, "a") == ["b"]
