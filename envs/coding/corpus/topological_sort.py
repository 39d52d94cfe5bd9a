"""Ordering tasks by their dependencies (Kahn's algorithm).

Dependencies are given as a mapping from each task to the tasks it
depends on. Ties are broken alphabetically so results are reproducible.
"""

import heapq


class CycleError(ValueError):
    """Raised when the dependencies contain a cycle; ``nodes`` lists the tasks involved."""

    def __init__(self, nodes):
        super().__init__(f"dependency cycle among: {', '.join(sorted(nodes))}")
        self.nodes = sorted(nodes)


def _graph(dependencies):
    nodes = set(dependencies)
    for deps in dependencies.values():
        nodes.update(deps)
    dependents = {node: [] for node in nodes}
    remaining = {node: 0 for node in nodes}
    for node, deps in dependencies.items():
        for dep in set(deps):
            dependents[dep].append(node)
            remaining[node] += 1
    return dependents, remaining


def topological_order(dependencies):
    """Return every task after all of its dependencies; raises CycleError on cycles."""
    dependents, remaining = _graph(dependencies)
    ready = [node for node, count in remaining.items() if count == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for dependent in dependents[node]:
            remaining[dependent] -= 1
            if remaining[dependent] == 0:
                heapq.heappush(ready, dependent)
    if len(order) < len(remaining):
        raise CycleError([node for node, count in remaining.items() if count > 0])
    return order


def build_levels(dependencies):
    """Group tasks into levels that can run in parallel.

    Level 0 has no dependencies; each later level depends only on earlier ones.
    """
    order = topological_order(dependencies)
    level = {}
    for node in order:
        deps = dependencies.get(node, ())
        level[node] = 1 + max((level[dep] for dep in deps), default=-1)
    levels = [[] for _ in range(max(level.values(), default=-1) + 1)]
    for node in order:
        levels[level[node]].append(node)
    return levels


def all_dependencies(dependencies, task):
    """Return the sorted set of tasks that task depends on, directly or not."""
    seen = set()
    stack = list(dependencies.get(task, ()))
    while stack:
        dep = stack.pop()
        if dep not in seen:
            seen.add(dep)
            stack.extend(dependencies.get(dep, ()))
    seen.discard(task)
    return sorted(seen)
