"""A prefix tree (trie) of words with counts, for autocompletion.

Each node is a dict of child characters plus a count of how many times the
word ending at that node was inserted.
"""


class _Node:
    __slots__ = ("children", "count")

    def __init__(self):
        self.children = {}
        self.count = 0


class Trie:
    """Set of words (with multiplicities) supporting prefix queries."""

    def __init__(self, words=()):
        self._root = _Node()
        self._size = 0
        for word in words:
            self.insert(word)

    def __len__(self):
        """Number of distinct words stored."""
        return self._size

    def insert(self, word):
        """Add one occurrence of word."""
        node = self._root
        for char in word:
            node = node.children.setdefault(char, _Node())
        if node.count == 0:
            self._size += 1
        node.count += 1

    def _find(self, prefix):
        node = self._root
        for char in prefix:
            node = node.children.get(char)
            if node is None:
                return None
        return node

    def count(self, word):
        """Return how many times word was inserted."""
        node = self._find(word)
        return node.count if node else 0

    def __contains__(self, word):
        return self.count(word) > 0

    def has_prefix(self, prefix):
        """Return True if any stored word starts with prefix."""
        return self._find(prefix) is not None

    def complete(self, prefix, limit=None):
        """Return stored words starting with prefix, most frequent first,
        ties in alphabetical order, at most limit of them."""
        start = self._find(prefix)
        if start is None:
            return []
        found = []
        stack = [(start, prefix)]
        while stack:
            node, word = stack.pop()
            if node.count:
                found.append((word, node.count))
            for char, child in node.children.items():
                stack.append((child, word + char))
        found.sort(key=lambda pair: (-pair[1], pair[0]))
        words = [word for word, _ in found]
        return words if limit is None else words[:limit]

    def remove(self, word):
        """Remove all occurrences of word; returns how many there were."""
        node = self._find(word)
        if node is None or node.count == 0:
            return 0
        removed, node.count = node.count, 0
        self._size -= 1
        return removed

    def longest_prefix_of(self, text):
        """Return the longest stored word that is a prefix of text ('' if none)."""
        node = self._root
        best = ""
        for index, char in enumerate(text):
            node = node.children.get(char)
            if node is None:
                break
            if node.count:
                best = text[:index + 1]
        return best
