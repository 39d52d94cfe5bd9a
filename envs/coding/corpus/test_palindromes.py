from palindromes import can_form_palindrome, is_palindrome, longest_palindrome, normalize

VISIBLE = ["test_is_palindrome_words", "test_longest_palindrome", "test_normalize"]


def test_normalize():
    assert normalize("A man, a plan!") == "amanaplan"
    assert normalize("R2-D2") == "r2d2"
    assert normalize("") == ""


def test_is_palindrome_words():
    assert is_palindrome("racecar") is True
    assert is_palindrome("level") is True
    assert is_palindrome("python") is False
    assert is_palindrome("ab") is False


def test_is_palindrome_phrases():
    assert is_palindrome("A man, a plan, a canal: Panama") is True
    assert is_palindrome("Was it a car or a cat I saw?") is True
    assert is_palindrome("No lemon, no melon") is True
    assert is_palindrome("Not a palindrome") is False


def test_is_palindrome_short_and_even():
    assert is_palindrome("") is True
    assert is_palindrome("x") is True
    assert is_palindrome("abba") is True
    assert is_palindrome("abca") is False
    assert is_palindrome("abcxba") is False
    assert is_palindrome("12321") is True


def test_longest_palindrome():
    assert longest_palindrome("babad") == "bab"
    assert longest_palindrome("cbbd") == "bb"
    assert longest_palindrome("forgeeksskeegfor") == "geeksskeeg"


def test_longest_palindrome_edges():
    assert longest_palindrome("") == ""
    assert longest_palindrome("a") == "a"
    assert longest_palindrome("abc") == "a"
    assert longest_palindrome("aaaa") == "aaaa"
    assert longest_palindrome("xabay") == "aba"


def test_longest_palindrome_at_ends():
    assert longest_palindrome("abacdef") == "aba"
    assert longest_palindrome("defxyx") == "xyx"
    assert longest_palindrome("Aba") == "A"


def test_can_form_palindrome():
    assert can_form_palindrome("carrace") is True
    assert can_form_palindrome("aabb") is True
    assert can_form_palindrome("abc") is False
    assert can_form_palindrome("") is True


def test_can_form_palindrome_normalizes():
    assert can_form_palindrome("Tact Coa") is True
    assert can_form_palindrome("aab!") is True
    assert can_form_palindrome("ab") is False


def test_palindrome_consistency():
    for text in ["kayak", "noon", "refer", "stats"]:
        assert is_palindrome(text)
        assert can_form_palindrome(text)
        assert longest_palindrome(text) == text
