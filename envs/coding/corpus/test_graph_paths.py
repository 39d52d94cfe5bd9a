import pytest

from graph_paths import bfs_path, dijkstra, grid_distance, reachable

VISIBLE = ["test_bfs_path_basic", "test_dijkstra_basic", "test_grid_distance_open"]

GRAPH = {"a": ["b", "c"], "b": ["d"], "c": ["d", "e"], "d": ["f"], "e": ["f"], "f": []}
WEIGHTED = {"a": {"b": 4, "c": 1}, "c": {"b": 2, "d": 7}, "b": {"d": 1}, "d": {}}
MAZE = [
    "..#.",
    "..#.",
    "....",
    "#.#.",
]


def test_bfs_path_basic():
    assert bfs_path(GRAPH, "a", "f") == ["a", "b", "d", "f"]
    assert bfs_path(GRAPH, "a", "e") == ["a", "c", "e"]
    assert bfs_path(GRAPH, "a", "b") == ["a", "b"]


def test_bfs_path_trivial_and_missing():
    assert bfs_path(GRAPH, "c", "c") == ["c"]
    assert bfs_path(GRAPH, "f", "a") is None
    assert bfs_path(GRAPH, "zz", "a") is None


def test_bfs_prefers_fewest_edges():
    graph = {1: [2, 5], 2: [3], 3: [4], 5: [4], 4: []}
    assert bfs_path(graph, 1, 4) == [1, 5, 4]


def test_bfs_handles_cycles():
    graph = {1: [2], 2: [1, 3], 3: [2]}
    assert bfs_path(graph, 1, 3) == [1, 2, 3]
    assert bfs_path({1: [1]}, 1, 2) is None


def test_dijkstra_basic():
    assert dijkstra(WEIGHTED, "a") == {"a": 0, "c": 1, "b": 3, "d": 4}


def test_dijkstra_unreachable_and_start():
    assert dijkstra(WEIGHTED, "d") == {"d": 0}
    assert dijkstra(WEIGHTED, "b") == {"b": 0, "d": 1}
    assert dijkstra({}, "x") == {"x": 0}


def test_dijkstra_zero_and_negative_weights():
    assert dijkstra({"a": {"b": 0}, "b": {"c": 2}}, "a") == {"a": 0, "b": 0, "c": 2}
    with pytest.raises(ValueError):
        dijkstra({"a": {"b": -1}}, "a")


def test_dijkstra_stale_entries():
    graph = {"s": {"a": 10, "b": 1}, "b": {"a": 1}, "a": {"t": 1}, "t": {}}
    assert dijkstra(graph, "s") == {"s": 0, "a": 2, "b": 1, "t": 3}


def test_grid_distance_open():
    assert grid_distance(MAZE, (0, 0), (0, 0)) == 0
    assert grid_distance(MAZE, (0, 0), (2, 3)) == 5
    assert grid_distance(MAZE, (0, 0), (0, 3)) == 7
    assert grid_distance(MAZE, (3, 1), (3, 3)) == 4


def test_grid_distance_blocked():
    walled = [".#.", "##.", "..."]
    assert grid_distance(walled, (0, 0), (2, 2)) == -1
    assert grid_distance([".#."], (0, 0), (0, 2)) == -1
    assert grid_distance([".#."], (0, 2), (0, 0)) == -1
    assert grid_distance([".", "#", "."], (0, 0), (2, 0)) == -1
    assert grid_distance([".", "#", "."], (2, 0), (0, 0)) == -1
    with pytest.raises(ValueError):
        grid_distance(MAZE, (0, 2), (0, 0))
    with pytest.raises(ValueError):
        grid_distance(MAZE, (0, 0), (4, 0))
    with pytest.raises(ValueError):
        grid_distance(MAZE, (0, -1), (0, 0))
    with pytest.raises(ValueError):
        grid_distance(MAZE, (0, 0), (0, 4))


def test_grid_distance_edges_of_grid():
    assert grid_distance(["...."], (0, 0), (0, 3)) == 3
    assert grid_distance([".", ".", "."], (2, 0), (0, 0)) == 2
    assert grid_distance([".", ".", "."], (0, 0), (2, 0)) == 2
    assert grid_distance(["...."], (0, 3), (0, 0)) == 3


def test_reachable():
    assert reachable(GRAPH, "c") == ["c", "d", "e", "f"]
    assert reachable(GRAPH, "f") == ["f"]
    assert reachable({1: [2], 2: [1]}, 1) == [1, 2]
