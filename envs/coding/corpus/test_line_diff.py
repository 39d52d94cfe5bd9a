from line_diff import change_counts, diff_lines, edit_script, lcs_length, lcs_table, similarity_ratio

VISIBLE = ["test_lcs_length", "test_edit_script_simple", "test_change_counts"]


def test_lcs_length():
    assert lcs_length("ABCBDAB", "BDCABA") == 4
    assert lcs_length("abc", "abc") == 3
    assert lcs_length("abc", "def") == 0
    assert lcs_length("", "abc") == 0
    assert lcs_length(["x", "y"], ["y"]) == 1


def test_lcs_table_shape():
    table = lcs_table("ab", "abc")
    assert len(table) == 3
    assert all(len(row) == 4 for row in table)
    assert table[0][0] == 2
    assert table[2] == [0, 0, 0, 0]
    assert table[1][1] == 1


def test_edit_script_simple():
    assert edit_script(["a", "b", "c"], ["a", "c"]) == [(" ", "a"), ("-", "b"), (" ", "c")]
    assert edit_script(["a", "c"], ["a", "b", "c"]) == [(" ", "a"), ("+", "b"), (" ", "c")]


def test_edit_script_replace_orders_delete_first():
    assert edit_script(["a", "x", "c"], ["a", "y", "c"]) == [(" ", "a"), ("-", "x"), ("+", "y"), (" ", "c")]


def test_edit_script_tails():
    assert edit_script(["a"], ["a", "b", "c"]) == [(" ", "a"), ("+", "b"), ("+", "c")]
    assert edit_script(["a", "b", "c"], ["a"]) == [(" ", "a"), ("-", "b"), ("-", "c")]
    assert edit_script([], ["n"]) == [("+", "n")]
    assert edit_script(["o"], []) == [("-", "o")]
    assert edit_script([], []) == []


def test_edit_script_prefers_longest_match():
    old = ["x", "a", "b", "c"]
    new = ["a", "b", "c", "x"]
    assert edit_script(old, new) == [("-", "x"), (" ", "a"), (" ", "b"), (" ", "c"), ("+", "x")]


def test_edit_script_insert_when_better():
    assert edit_script(["b", "c"], ["a", "b", "c"]) == [("+", "a"), (" ", "b"), (" ", "c")]


def test_diff_lines():
    old = "host=a\nport=1\nmode=x"
    new = "host=a\nport=2\nmode=x\ndebug=1"
    assert diff_lines(old, new) == [" host=a", "-port=1", "+port=2", " mode=x", "+debug=1"]


def test_change_counts():
    assert change_counts("a\nb\nc", "a\nc\nd\ne") == (2, 1)
    assert change_counts("same", "same") == (0, 0)
    assert change_counts("", "x\ny") == (2, 0)
    assert change_counts("x\ny\nz", "") == (0, 3)


def test_similarity_ratio():
    assert similarity_ratio("", "") == 1.0
    assert similarity_ratio("a\nb", "a\nb") == 1.0
    assert similarity_ratio("a\nb", "c\nd") == 0.0
    assert similarity_ratio("a\nb\nc", "a\nc") == 0.8
    assert similarity_ratio("", "a") == 0.0
