import pytest

from roman_numerals import from_roman, is_roman, to_roman

VISIBLE = ["test_to_roman_basic", "test_from_roman_basic", "test_round_trip_all"]


def test_to_roman_basic():
    assert to_roman(1) == "I"
    assert to_roman(3) == "III"
    assert to_roman(8) == "VIII"
    assert to_roman(2024) == "MMXXIV"


def test_to_roman_subtractive_pairs():
    assert to_roman(4) == "IV"
    assert to_roman(9) == "IX"
    assert to_roman(40) == "XL"
    assert to_roman(90) == "XC"
    assert to_roman(400) == "CD"
    assert to_roman(900) == "CM"
    assert to_roman(1994) == "MCMXCIV"


def test_to_roman_bounds():
    assert to_roman(3999) == "MMMCMXCIX"
    with pytest.raises(ValueError):
        to_roman(0)
    with pytest.raises(ValueError):
        to_roman(4000)
    with pytest.raises(ValueError):
        to_roman(-5)


def test_to_roman_rejects_non_int():
    with pytest.raises(TypeError):
        to_roman(3.0)
    with pytest.raises(TypeError):
        to_roman("12")
    with pytest.raises(TypeError):
        to_roman(True)


def test_from_roman_basic():
    assert from_roman("I") == 1
    assert from_roman("XIV") == 14
    assert from_roman("MMXXIV") == 2024
    assert from_roman("DCCCLXXXVIII") == 888


def test_from_roman_subtractive():
    assert from_roman("IV") == 4
    assert from_roman("IX") == 9
    assert from_roman("XL") == 40
    assert from_roman("CM") == 900
    assert from_roman("MCMXCIV") == 1994


def test_from_roman_case_and_whitespace():
    assert from_roman("  mcmlxxxiv ") == 1984
    assert from_roman("xlii") == 42


def test_from_roman_empty_message():
    with pytest.raises(ValueError, match="empty"):
        from_roman(" ")


def test_from_roman_rejects_invalid():
    for bad in ["", "   ", "ABC", "IIII", "VX", "IC", "MMMM", "XM", "VV"]:
        with pytest.raises(ValueError):
            from_roman(bad)


def test_round_trip_all():
    for number in list(range(1, 500)) + list(range(500, 4000, 37)) + [3999]:
        assert from_roman(to_roman(number)) == number


def test_is_roman():
    assert is_roman("XII")
    assert is_roman("mmm")
    assert is_roman("IIX") is False
    assert is_roman("") is False
    assert is_roman("Q") is False
