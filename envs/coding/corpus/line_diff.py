"""Line-based diffs computed from the longest common subsequence (LCS).

Produces edit scripts and a compact unified-style rendering; intended for
short texts such as configuration files, where an O(n*m) table is fine.
"""


def lcs_table(a, b):
    """Return the (len(a)+1) x (len(b)+1) table of LCS lengths of suffixes."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            if a[i] == b[j]:
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    return table


def lcs_length(a, b):
    """Return the length of the longest common subsequence of two sequences."""
    return lcs_table(a, b)[0][0]


def edit_script(a, b):
    """Return a list of (op, line) with op ' ' (keep), '-' (delete) or '+' (insert).

    Deletions are listed before insertions when both are possible.
    """
    table = lcs_table(a, b)
    i = j = 0
    script = []
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            script.append((" ", a[i]))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            script.append(("-", a[i]))
            i += 1
        else:
            script.append(("+", b[j]))
            j += 1
    script.extend(("-", line) for line in a[i:])
    script.extend(("+", line) for line in b[j:])
    return script


def diff_lines(old_text, new_text):
    """Return the edit script as text lines prefixed with ' ', '-' or '+'."""
    script = edit_script(old_text.splitlines(), new_text.splitlines())
    return [op + line for op, line in script]


def change_counts(old_text, new_text):
    """Return (added, removed) line counts."""
    script = edit_script(old_text.splitlines(), new_text.splitlines())
    added = sum(1 for op, _ in script if op == "+")
    removed = sum(1 for op, _ in script if op == "-")
    return added, removed


def similarity_ratio(old_text, new_text):
    """Return 2 * LCS / (total lines), 1.0 for two empty texts."""
    a, b = old_text.splitlines(), new_text.splitlines()
    if not a and not b:
        return 1.0
    return 2 * lcs_length(a, b) / (len(a) + len(b))
