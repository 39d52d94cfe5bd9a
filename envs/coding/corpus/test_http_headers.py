import pytest

from http_headers import get_header, negotiate, parse_accept, parse_headers, parse_parameters

VISIBLE = ["test_parse_headers_basic", "test_parse_parameters", "test_parse_accept_quality"]

BLOCK = "Host: example.org\r\nAccept: text/html\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\n"


def test_parse_headers_basic():
    assert parse_headers(BLOCK) == [
        ("host", "example.org"),
        ("accept", "text/html"),
        ("set-cookie", "a=1"),
        ("set-cookie", "b=2"),
    ]
    assert parse_headers("") == []


def test_parse_headers_values_with_colons():
    assert parse_headers("Date: Tue, 15 Nov 1994 08:12:31 GMT") == [("date", "Tue, 15 Nov 1994 08:12:31 GMT")]
    assert parse_headers("X-Empty:") == [("x-empty", "")]


def test_parse_headers_folding():
    assert parse_headers("X-Long: part one\n  part two\n\tpart three") == [("x-long", "part one part two part three")]
    with pytest.raises(ValueError, match="continuation"):
        parse_headers("  folded first")


def test_parse_headers_malformed():
    for bad in ["NoColonHere", ": value", "Bad Name : x"]:
        with pytest.raises(ValueError, match="malformed"):
            parse_headers(bad)
    assert parse_headers("Name:  spaced  ") == [("name", "spaced")]


def test_get_header():
    headers = parse_headers(BLOCK)
    assert get_header(headers, "HOST") == "example.org"
    assert get_header(headers, "Set-Cookie") == "a=1, b=2"
    assert get_header(headers, "missing") is None
    assert get_header(headers, "missing", "x") == "x"


def test_parse_parameters():
    assert parse_parameters("text/html; charset=UTF-8") == ("text/html", {"charset": "UTF-8"})
    assert parse_parameters('attachment; filename="a b.txt"') == ("attachment", {"filename": "a b.txt"})
    assert parse_parameters("TEXT/Plain") == ("text/plain", {})
    assert parse_parameters("x; ; Q=0.5; flag") == ("x", {"q": "0.5", "flag": ""})
    assert parse_parameters('x; v="') == ("x", {"v": '"'})
    assert parse_parameters('x; v=""') == ("x", {"v": ""})


def test_parse_accept_quality():
    assert parse_accept("text/html;q=0.5, application/json") == ["application/json", "text/html"]
    assert parse_accept("a/b;q=0.1, c/d;q=0.9, e/f;q=0.5") == ["c/d", "e/f", "a/b"]


def test_parse_accept_specificity_and_order():
    assert parse_accept("*/*, text/*, text/html") == ["text/html", "text/*", "*/*"]
    assert parse_accept("b/x, a/x") == ["b/x", "a/x"]
    assert parse_accept("*/*;q=0.9, text/*;q=0.9, image/png;q=0.8") == ["text/*", "*/*", "image/png"]


def test_parse_accept_drops_zero_and_bad_q():
    assert parse_accept("text/html;q=0, text/plain") == ["text/plain"]
    assert parse_accept("text/html;q=abc, text/plain;q=0.001") == ["text/plain"]
    assert parse_accept(" , ,") == []


def test_negotiate():
    offers = ["application/json", "text/html"]
    assert negotiate("text/html, application/json;q=0.9", offers) == "text/html"
    assert negotiate("application/*", offers) == "application/json"
    assert negotiate("*/*", offers) == "application/json"
    assert negotiate("image/png", offers) is None
    assert negotiate("text/plain, */*;q=0.1", offers) == "application/json"


def test_negotiate_subtype_must_match():
    assert negotiate("text/plain", ["text/html"]) is None
    assert negotiate("text/*", ["application/json", "text/csv"]) == "text/csv"
    assert negotiate("", ["text/html"]) is None
