import pytest

from run_length_encoding import compression_ratio, decode, encode, expand, longest_run, runs

VISIBLE = ["test_encode_basic", "test_decode_basic", "test_runs"]


def test_runs():
    assert runs("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]
    assert runs([1, 1, 2, 1]) == [(1, 2), (2, 1), (1, 1)]
    assert runs("") == []
    assert runs("z") == [("z", 1)]


def test_expand():
    assert expand([("a", 3), ("b", 1)]) == ["a", "a", "a", "b"]
    assert expand([(0, 0), (1, 2)]) == [1, 1]
    assert expand([]) == []


def test_expand_negative():
    with pytest.raises(ValueError):
        expand([("a", -1)])


def test_encode_basic():
    assert encode("aaabcc") == "3ab2c"
    assert encode("abc") == "abc"
    assert encode("") == ""


def test_encode_long_runs():
    assert encode("a" * 12 + "b" * 2) == "12a2b"
    assert encode("xxxxxxxxxx") == "10x"
    assert encode("  ") == "2 "


def test_encode_rejects_digits():
    with pytest.raises(ValueError):
        encode("ab1")


def test_decode_basic():
    assert decode("3ab2c") == "aaabcc"
    assert decode("abc") == "abc"
    assert decode("") == ""
    assert decode("12a") == "a" * 12


def test_decode_errors_and_zero():
    with pytest.raises(ValueError):
        decode("3a4")
    assert decode("0ab") == "b"


def test_round_trip():
    for text in ["wwwwaaadexxxxxx", "a", "aabbaa", "mississippi", "   x  "]:
        assert decode(encode(text)) == text


def test_compression_ratio():
    assert compression_ratio("") == 1.0
    assert compression_ratio("aaaa") == 0.5
    assert compression_ratio("abcd") == 1.0
    assert compression_ratio("ab") == 1.0


def test_longest_run():
    assert longest_run("aabbbcc") == ("b", 3)
    assert longest_run("aabb") == ("a", 2)
    assert longest_run("") == (None, 0)
    assert longest_run([5, 5, 5, 7, 7, 7, 7]) == (7, 4)
    assert longest_run("x") == ("x", 1)
