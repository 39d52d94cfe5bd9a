import pytest

from query_params import build_query, first_value, parse_query, quote, unquote

VISIBLE = ["test_quote_basic", "test_parse_query_basic", "test_build_query_basic"]


def test_quote_basic():
    assert quote("hello") == "hello"
    assert quote("a b") == "a+b"
    assert quote("a&b=c") == "a%26b%3Dc"
    assert quote("-._~") == "-._~"


def test_quote_hex_digits():
    assert quote("/") == "%2F"
    assert quote("?") == "%3F"
    assert quote("\x00") == "%00"
    assert quote("\x7f") == "%7F"
    assert quote("+") == "%2B"


def test_quote_utf8():
    assert quote("é") == "%C3%A9"
    assert quote("€") == "%E2%82%AC"


def test_unquote_basic():
    assert unquote("a+b") == "a b"
    assert unquote("a%26b") == "a&b"
    assert unquote("%2f%2F") == "//"
    assert unquote("%C3%A9t%C3%A9") == "été"
    assert unquote("") == ""


def test_unquote_bad_escapes():
    for bad in ["%", "%4", "abc%zz", "%G0"]:
        with pytest.raises(ValueError):
            unquote(bad)
    with pytest.raises(ValueError, match="position 3"):
        unquote("abc%2")


def test_round_trip():
    for text in ["a b&c=d", "100% sure", "ünïcödé ✓", "~tilde.dot-dash_"]:
        assert unquote(quote(text)) == text


def test_parse_query_basic():
    assert parse_query("a=1&b=2") == {"a": ["1"], "b": ["2"]}
    assert parse_query("?q=hello+world") == {"q": ["hello world"]}
    assert parse_query("") == {}


def test_parse_query_repeats_and_blanks():
    assert parse_query("t=x&t=y&&t=z") == {"t": ["x", "y", "z"]}
    assert parse_query("flag&empty=") == {"flag": [""], "empty": [""]}
    assert parse_query("eq=a=b") == {"eq": ["a=b"]}
    assert parse_query("k%20x=v%26") == {"k x": ["v&"]}


def test_build_query_basic():
    assert build_query({"b": "2", "a": 1}) == "a=1&b=2"
    assert build_query({}) == ""
    assert build_query({"q": "a b"}) == "q=a+b"


def test_build_query_lists():
    assert build_query({"t": ["x", "y"], "n": (1, 2)}) == "n=1&n=2&t=x&t=y"
    assert build_query({"e": []}) == ""
    assert parse_query(build_query({"k&": ["v=1", "w 2"]})) == {"k&": ["v=1", "w 2"]}


def test_first_value():
    assert first_value("a=1&a=2", "a") == "1"
    assert first_value("a=1", "b") is None
    assert first_value("a=1", "b", default="x") == "x"
    assert first_value("a=", "a") == ""
