import pytest

from csv_fields import join_record, needs_quotes, parse_table, split_record

VISIBLE = ["test_split_simple", "test_split_quoted", "test_join_simple"]


def test_split_simple():
    assert split_record("a,b,c") == ["a", "b", "c"]
    assert split_record("") == [""]
    assert split_record("a,,c,") == ["a", "", "c", ""]


def test_split_quoted():
    assert split_record('"a,b",c') == ["a,b", "c"]
    assert split_record('"say ""hi""",x') == ['say "hi"', "x"]
    assert split_record('""') == [""]
    assert split_record('"",""') == ["", ""]


def test_split_quote_inside_unquoted_field():
    assert split_record('ab"c,d') == ['ab"c', "d"]
    assert split_record('x,"y"') == ["x", "y"]


def test_split_other_delimiter():
    assert split_record("a;b,c;d", delimiter=";") == ["a", "b,c", "d"]
    assert split_record('"1;2";3', delimiter=";") == ["1;2", "3"]


def test_split_unterminated():
    with pytest.raises(ValueError):
        split_record('"abc,d')
    with pytest.raises(ValueError):
        split_record('a,"b""')


def test_needs_quotes():
    assert needs_quotes("plain") is False
    assert needs_quotes("a,b") is True
    assert needs_quotes('say "x"') is True
    assert needs_quotes("two\nlines") is True
    assert needs_quotes("cr\r") is True
    assert needs_quotes(" padded") is True
    assert needs_quotes("a;b") is False
    assert needs_quotes("a;b", delimiter=";") is True


def test_join_simple():
    assert join_record(["a", "b", "c"]) == "a,b,c"
    assert join_record([1, 2.5, None]) == "1,2.5,"
    assert join_record([]) == ""


def test_join_quoting():
    assert join_record(["a,b", 'q"t', "ok"]) == '"a,b","q""t",ok'
    assert join_record(["x;y"], delimiter=";") == '"x;y"'


def test_round_trip():
    rows = [["a", "b,c", 'd"e', ""], ["  lead", "tail  ", "x\ny"], ['"', ",", ""]]
    for row in rows:
        assert split_record(join_record(row)) == row


def test_parse_table():
    lines = ["name,age,city", "ann,31,Oslo", '"Bob, Jr",40', "cy"]
    assert parse_table(lines) == [
        {"name": "ann", "age": "31", "city": "Oslo"},
        {"name": "Bob, Jr", "age": "40", "city": ""},
        {"name": "cy", "age": "", "city": ""},
    ]
    assert parse_table([]) == []
    assert parse_table(["a,b"]) == []


def test_parse_table_too_many_fields():
    with pytest.raises(ValueError, match="row 3"):
        parse_table(["a,b", "1,2", "1,2,3"])
    assert parse_table(["a,b", "1,2"]) == [{"a": "1", "b": "2"}]
