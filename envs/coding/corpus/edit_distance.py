"""String distance measures used for fuzzy matching and "did you mean" hints."""


def levenshtein(a, b):
    """Return the minimum number of insertions, deletions and substitutions
    needed to turn a into b.

    Uses two rolling rows, so memory is O(len(b)).
    """
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            cost = 0 if char_a == char_b else 1
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost))
        previous = current
    return previous[-1]


def hamming(a, b):
    """Return the number of positions at which equal-length strings differ."""
    if len(a) != len(b):
        raise ValueError("hamming distance needs strings of equal length")
    return sum(1 for x, y in zip(a, b) if x != y)


def similarity(a, b):
    """Return a similarity ratio in [0, 1] derived from the Levenshtein distance."""
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    return 1.0 - levenshtein(a, b) / longest


def longest_common_prefix(words):
    """Return the longest prefix shared by every word in the list."""
    if not words:
        return ""
    prefix = words[0]
    for word in words[1:]:
        end = 0
        while end < len(prefix) and end < len(word) and prefix[end] == word[end]:
            end += 1
        prefix = prefix[:end]
    return prefix


def closest_match(word, candidates, max_distance=2):
    """Return the candidate nearest to word, or None if none is within max_distance.

    Ties are broken by the candidate's position in the list.
    """
    best = None
    best_distance = max_distance + 1
    for candidate in candidates:
        distance = levenshtein(word, candidate)
        if distance < best_distance:
            best, best_distance = candidate, distance
    return best
