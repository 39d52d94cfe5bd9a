"""Shortest paths on small graphs: breadth-first search on unweighted graphs,
Dijkstra on weighted ones, and path finding on character grids.

Graphs are dicts mapping a node to its neighbours (a list, or a dict of
neighbour -> edge weight for weighted graphs).
"""

import heapq
from collections import deque


def bfs_path(graph, start, goal):
    """Return the shortest path from start to goal as a list of nodes, or None."""
    if start == goal:
        return [start]
    previous = {start: None}
    frontier = deque([start])
    while frontier:
        node = frontier.popleft()
        for neighbour in graph.get(node, ()):
            if neighbour in previous:
                continue
            previous[neighbour] = node
            if neighbour == goal:
                path = [goal]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return path[::-1]
            frontier.append(neighbour)
    return None


def dijkstra(graph, start):
    """Return a dict of the shortest distance from start to every reachable node."""
    distances = {start: 0}
    heap = [(0, start)]
    while heap:
        distance, node = heapq.heappop(heap)
        if distance > distances[node]:
            continue
        for neighbour, weight in graph.get(node, {}).items():
            if weight < 0:
                raise ValueError("negative edge weight")
            candidate = distance + weight
            if candidate < distances.get(neighbour, float("inf")):
                distances[neighbour] = candidate
                heapq.heappush(heap, (candidate, neighbour))
    return distances


def grid_distance(grid, start, goal):
    """Return the number of steps between two (row, col) cells of a grid of
    strings, moving up/down/left/right and never onto '#'; -1 if unreachable."""
    rows, cols = len(grid), len(grid[0])
    for row, col in (start, goal):
        if not (0 <= row < rows and 0 <= col < cols) or grid[row][col] == "#":
            raise ValueError(f"cell {(row, col)} is outside the grid or blocked")
    seen = {start}
    frontier = deque([(start, 0)])
    while frontier:
        (row, col), steps = frontier.popleft()
        if (row, col) == goal:
            return steps
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            r, c = row + dr, col + dc
            if 0 <= r < rows and 0 <= c < cols and grid[r][c] != "#" and (r, c) not in seen:
                seen.add((r, c))
                frontier.append(((r, c), steps + 1))
    return -1


def reachable(graph, start):
    """Return the sorted list of nodes reachable from start (including it)."""
    seen = {start}
    stack = [start]
    while stack:
        for neighbour in graph.get(stack.pop(), ()):
            if neighbour not in seen:
                seen.add(neighbour)
                stack.append(neighbour)
    return sorted(seen)
