import pytest

from word_wrap import fill, indent, justify_line, truncate, wrap

VISIBLE = ["test_wrap_basic", "test_fill_plain", "test_truncate_at_word"]


def test_wrap_basic():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]
    assert wrap("one two", 20) == ["one two"]


def test_wrap_exact_width():
    assert wrap("abcd efgh", 9) == ["abcd efgh"]
    assert wrap("abcd efgh", 8) == ["abcd", "efgh"]
    assert wrap("a b c d", 3) == ["a b", "c d"]


def test_wrap_whitespace_and_empty():
    assert wrap("", 5) == []
    assert wrap("   ", 5) == []
    assert wrap("  hello\n\tworld  ", 20) == ["hello world"]


def test_wrap_long_words():
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("hi abcdefgh yo", 4) == ["hi", "abcd", "efgh", "yo"]
    assert wrap("abcdefgh", 4) == ["abcd", "efgh"]
    assert wrap("abcd", 4) == ["abcd"]


def test_wrap_invalid_width():
    with pytest.raises(ValueError):
        wrap("text", 0)
    assert wrap("a", 1) == ["a"]


def test_justify_line():
    assert justify_line("a b c", 8) == "a   b  c"
    assert justify_line("a b c", 9) == "a   b   c"
    assert justify_line("ab cd", 7) == "ab   cd"
    assert justify_line("one two three", 15) == "one  two  three"
    assert justify_line("one two three", 16) == "one   two  three"
    assert justify_line("solo", 6) == "solo  "


def test_fill_plain():
    assert fill("the quick brown fox jumps", 10) == "the quick\nbrown fox\njumps"
    assert fill("", 10) == ""


def test_fill_justified():
    text = "the quick brown fox jumps over"
    assert fill(text, 11, justify=True) == "the   quick\nbrown   fox\njumps over"
    assert fill("a b", 10, justify=True) == "a b"


def test_truncate_at_word():
    assert truncate("hello brave new world", 15) == "hello brave..."
    assert truncate("hello world", 11) == "hello world"
    assert truncate("hello world", 10) == "hello..."


def test_truncate_edge_cases():
    assert truncate("abcdefghijkl", 8) == "abcde..."
    assert truncate("abcdef", 3) == "..."
    assert truncate("abcdef", 2) == ".."
    assert truncate("hello world", 9, ellipsis="~") == "hello~"
    assert truncate("", 0) == ""
    assert truncate("abcdef", 4) == "a..."
    assert truncate("a bcdefgh", 6) == "a..."
    assert truncate(" abcdefgh", 6) == " ab..."


def test_indent():
    assert indent(["a", "b"], "  ") == ["  a", "  b"]
    assert indent(["a", "b", "c"], "   ", "-> ") == ["-> a", "   b", "   c"]
    assert indent([], "  ") == []
