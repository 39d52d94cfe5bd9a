"""Union-find (disjoint set) with path compression and union by size.

Used for grouping connected items, e.g. clustering accounts that share an
email address or checking whether a graph is connected.
"""


class DisjointSet:
    """Partition of hashable items into disjoint groups."""

    def __init__(self, items=()):
        self._parent = {}
        self._size = {}
        self.groups = 0
        for item in items:
            self.add(item)

    def add(self, item):
        """Add item as its own group; does nothing if it is already present."""
        if item in self._parent:
            return
        self._parent[item] = item
        self._size[item] = 1
        self.groups += 1

    def find(self, item):
        """Return the representative of item's group (KeyError if unknown)."""
        root = item
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[item] != root:
            self._parent[item], item = root, self._parent[item]
        return root

    def union(self, a, b):
        """Merge the groups of a and b (adding them if needed).

        Returns True if two different groups were merged.
        """
        self.add(a)
        self.add(b)
        root_a, root_b = self.find(a), self.find(b)
        if root_a == root_b:
            return False
        if self._size[root_a] < self._size[root_b]:
            root_a, root_b = root_b, root_a
        self._parent[root_b] = root_a
        self._size[root_a] += self._size[root_b]
        self.groups -= 1
        return True

    def connected(self, a, b):
        """Return True if a and b are known and in the same group."""
        if a not in self._parent or b not in self._parent:
            return False
        return self.find(a) == self.find(b)

    def group_size(self, item):
        """Return the number of items in item's group."""
        return self._size[self.find(item)]

    def group_list(self):
        """Return all groups as sorted lists, ordered by their first item."""
        by_root = {}
        for item in self._parent:
            by_root.setdefault(self.find(item), []).append(item)
        return sorted(sorted(group) for group in by_root.values())


def count_components(nodes, edges):
    """Return the number of connected components of an undirected graph."""
    sets = DisjointSet(nodes)
    for a, b in edges:
        sets.union(a, b)
    return sets.groups


def has_cycle(edges):
    """Return True if the undirected edge list contains a cycle."""
    sets = DisjointSet()
    for a, b in edges:
        if not sets.union(a, b):
            return True
    return False
