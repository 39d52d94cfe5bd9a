import pytest

from edit_distance import closest_match, hamming, levenshtein, longest_common_prefix, similarity

VISIBLE = ["test_levenshtein_classic", "test_hamming", "test_closest_match"]


def test_levenshtein_classic():
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("flaw", "lawn") == 2
    assert levenshtein("saturday", "sunday") == 3


def test_levenshtein_empty():
    assert levenshtein("", "") == 0
    assert levenshtein("abc", "") == 3
    assert levenshtein("", "abcd") == 4


def test_levenshtein_single_edits():
    assert levenshtein("cat", "cat") == 0
    assert levenshtein("cat", "cut") == 1
    assert levenshtein("cat", "cats") == 1
    assert levenshtein("cat", "at") == 1
    assert levenshtein("ab", "ba") == 2


def test_levenshtein_symmetric():
    pairs = [("book", "back"), ("a", "xyz"), ("intention", "execution")]
    for a, b in pairs:
        assert levenshtein(a, b) == levenshtein(b, a)
    assert levenshtein("intention", "execution") == 5


def test_hamming():
    assert hamming("karolin", "kathrin") == 3
    assert hamming("1011101", "1001001") == 2
    assert hamming("", "") == 0
    assert hamming("abc", "abc") == 0


def test_hamming_length_mismatch():
    with pytest.raises(ValueError):
        hamming("abc", "ab")


def test_similarity():
    assert similarity("", "") == 1.0
    assert similarity("abc", "abc") == 1.0
    assert similarity("abcd", "abce") == 0.75
    assert similarity("ab", "abcd") == 0.5
    assert similarity("abc", "xyz") == 0.0


def test_longest_common_prefix():
    assert longest_common_prefix(["interview", "internet", "interval"]) == "inter"
    assert longest_common_prefix(["dog", "racecar"]) == ""
    assert longest_common_prefix(["same"]) == "same"
    assert longest_common_prefix([]) == ""
    assert longest_common_prefix(["abc", "ab", "abcd"]) == "ab"
    assert longest_common_prefix(["ab", "abc"]) == "ab"


def test_closest_match():
    commands = ["status", "commit", "checkout", "branch"]
    assert closest_match("comit", commands) == "commit"
    assert closest_match("stats", commands) == "status"
    assert closest_match("xyzzy", commands) is None
    assert closest_match("abcd", ["axyz"]) is None
    assert closest_match("abcd", ["abyz"]) == "abyz"


def test_closest_match_threshold_and_ties():
    assert closest_match("abcd", ["abxy"], max_distance=2) == "abxy"
    assert closest_match("abcd", ["axyz"], max_distance=2) is None
    assert closest_match("abcd", ["axyz"], max_distance=3) == "axyz"
    assert closest_match("cat", ["bat", "hat"]) == "bat"
    assert closest_match("cat", ["cut", "cat"]) == "cat"
    assert closest_match("x", []) is None
