import pytest

from number_words import amount_in_words, number_to_words, ordinal_suffix

VISIBLE = ["test_small_numbers", "test_hundreds", "test_ordinal_suffix_basic"]


def test_small_numbers():
    assert number_to_words(0) == "zero"
    assert number_to_words(7) == "seven"
    assert number_to_words(13) == "thirteen"
    assert number_to_words(19) == "nineteen"


def test_tens():
    assert number_to_words(20) == "twenty"
    assert number_to_words(21) == "twenty-one"
    assert number_to_words(45) == "forty-five"
    assert number_to_words(90) == "ninety"
    assert number_to_words(99) == "ninety-nine"


def test_hundreds():
    assert number_to_words(100) == "one hundred"
    assert number_to_words(105) == "one hundred and five"
    assert number_to_words(342) == "three hundred and forty-two"
    assert number_to_words(999) == "nine hundred and ninety-nine"
    assert number_to_words(110) == "one hundred and ten"


def test_thousands():
    assert number_to_words(1000) == "one thousand"
    assert number_to_words(1005) == "one thousand and five"
    assert number_to_words(1099) == "one thousand and ninety-nine"
    assert number_to_words(1100) == "one thousand, one hundred"
    assert number_to_words(1234) == "one thousand, two hundred and thirty-four"
    assert number_to_words(20020) == "twenty thousand and twenty"


def test_large_scales():
    assert number_to_words(1_000_000) == "one million"
    assert number_to_words(2_000_001) == "two million and one"
    assert number_to_words(1_001_000) == "one million, one thousand"
    assert number_to_words(123_456_789) == (
        "one hundred and twenty-three million, four hundred and fifty-six thousand, "
        "seven hundred and eighty-nine"
    )
    assert number_to_words(5_000_000_000) == "five billion"
    assert number_to_words(999_999_999_999).startswith("nine hundred and ninety-nine billion, ")


def test_negative():
    assert number_to_words(-1) == "minus one"
    assert number_to_words(-1500) == "minus one thousand, five hundred"


def test_too_large():
    with pytest.raises(ValueError):
        number_to_words(10 ** 12)
    with pytest.raises(ValueError):
        number_to_words(-(10 ** 12))


def test_ordinal_suffix_basic():
    assert ordinal_suffix(1) == "1st"
    assert ordinal_suffix(2) == "2nd"
    assert ordinal_suffix(3) == "3rd"
    assert ordinal_suffix(4) == "4th"
    assert ordinal_suffix(0) == "0th"


def test_ordinal_suffix_teens_and_larger():
    assert ordinal_suffix(11) == "11th"
    assert ordinal_suffix(12) == "12th"
    assert ordinal_suffix(13) == "13th"
    assert ordinal_suffix(20) == "20th"
    assert ordinal_suffix(21) == "21st"
    assert ordinal_suffix(22) == "22nd"
    assert ordinal_suffix(101) == "101st"
    assert ordinal_suffix(111) == "111th"
    assert ordinal_suffix(9) == "9th"
    assert ordinal_suffix(10) == "10th"


def test_amount_in_words():
    assert amount_in_words(1050) == "ten and 50/100"
    assert amount_in_words(5) == "zero and 05/100"
    assert amount_in_words(0) == "zero and 00/100"
    assert amount_in_words(123400) == "one thousand, two hundred and thirty-four and 00/100"
    with pytest.raises(ValueError):
        amount_in_words(-1)
