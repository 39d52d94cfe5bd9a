import pytest

from table_format import align, column_widths, format_cell, render_table, totals_row

VISIBLE = ["test_format_cell", "test_align", "test_render_basic"]


def test_format_cell():
    assert format_cell(None) == ""
    assert format_cell(3.14159) == "3.14"
    assert format_cell(3.14159, precision=3) == "3.142"
    assert format_cell(2.0, precision=0) == "2"
    assert format_cell(7) == "7"
    assert format_cell("x") == "x"
    assert format_cell(True) == "True"


def test_column_widths():
    assert column_widths([["a", "bbb"], ["cc", "d"]]) == [2, 3]
    assert column_widths([["a"], ["bb", "ccc"]]) == [2, 3]
    assert column_widths([]) == []
    assert column_widths([[""]]) == [0]


def test_align():
    assert align("ab", 5, "left") == "ab   "
    assert align("ab", 5, "right") == "   ab"
    assert align("ab", 5, "center") == " ab  "
    assert align("ab", 6, "center") == "  ab  "
    assert align("abc", 2, "left") == "abc"
    with pytest.raises(ValueError):
        align("x", 3, "justify")


def test_render_basic():
    table = render_table(["name", "qty"], [["apple", 3], ["kiwi", 12]])
    assert table == "\n".join([
        "name  | qty",
        "------+----",
        "apple |   3",
        "kiwi  |  12",
    ])


def test_render_floats_and_none():
    table = render_table(["item", "price"], [["tea", 2.5], ["cake", None], ["pie", 10.0]])
    assert table.splitlines() == [
        "item | price",
        "-----+------",
        "tea  |  2.50",
        "cake |",
        "pie  | 10.00",
    ]


def test_render_explicit_alignment():
    table = render_table(["a", "b"], [["x", "y"]], alignments=["right", "center"])
    assert table.splitlines() == ["a | b", "--+--", "x | y"]
    table = render_table(["id", "label"], [[1, "ab"]], alignments=["left", "center"])
    assert table.splitlines() == ["id | label", "---+------", "1  |  ab"]


def test_render_bool_is_text():
    table = render_table(["flag"], [[True], [False]])
    assert table.splitlines() == ["flag", "-----", "True", "False"]


def test_render_no_rows():
    assert render_table(["a", "bb"], []) == "a | bb\n--+---"


def test_render_precision():
    table = render_table(["v"], [[1.23456]], precision=1)
    assert table.splitlines()[-1] == "1.2"


def test_totals_row():
    rows = [["a", 1, 2.5, "x"], ["b", 2, 0.5, "y"]]
    assert totals_row(rows) == ["Total", 3, 3.0, None]
    assert totals_row(rows, label="Sum")[0] == "Sum"
    assert totals_row([]) == ["Total"]
    assert totals_row([["only", True]]) == ["Total", None]
