import pytest

from check_digits import (
    ean8_valid,
    gtin_check_digit,
    isbn10_to_isbn13,
    isbn10_valid,
    isbn13_valid,
    luhn_check_digit,
    luhn_checksum,
    luhn_valid,
)

VISIBLE = ["test_luhn_valid_numbers", "test_isbn10_valid", "test_isbn13_valid"]


def test_luhn_checksum_values():
    assert luhn_checksum("79927398713") == 0
    assert luhn_checksum("79927398710") == 7
    assert luhn_checksum("0") == 0
    assert luhn_checksum("18") == 0
    assert luhn_checksum("5") == 5
    assert luhn_checksum("59") == 0


def test_luhn_valid_numbers():
    assert luhn_valid("4539 1488 0343 6467") is True
    assert luhn_valid("79927398713") is True
    assert luhn_valid("4111-1111-1111-1111") is True


def test_luhn_invalid_numbers():
    assert luhn_valid("79927398710") is False
    assert luhn_valid("4539 1488 0343 6468") is False
    assert luhn_valid("0") is False
    assert luhn_valid("") is False
    assert luhn_valid("4111a111") is False
    assert luhn_valid("00") is True


def test_luhn_check_digit():
    assert luhn_check_digit("7992739871") == 3
    assert luhn_check_digit("411111111111111") == 1
    assert luhn_check_digit("1") == 8
    assert luhn_check_digit("0") == 0
    assert luhn_check_digit("9") == 1


def test_isbn10_valid():
    assert isbn10_valid("0-306-40615-2") is True
    assert isbn10_valid("0306406152") is True
    assert isbn10_valid("080442957X") is True
    assert isbn10_valid("080442957x") is True


def test_isbn10_invalid():
    assert isbn10_valid("0306406153") is False
    assert isbn10_valid("030640615") is False
    assert isbn10_valid("03064061522") is False
    assert isbn10_valid("X306406152") is False
    assert isbn10_valid("030640615Y") is False
    assert isbn10_valid("0804429579") is False


def test_gtin_check_digit():
    assert gtin_check_digit("978030640615") == 7
    assert gtin_check_digit("400638133393") == 1
    assert gtin_check_digit("9638507") == 4
    assert gtin_check_digit("0") == 0
    assert gtin_check_digit("1") == 7
    assert gtin_check_digit("10") == 9


def test_isbn13_valid():
    assert isbn13_valid("978-0-306-40615-7") is True
    assert isbn13_valid("9780306406157") is True
    assert isbn13_valid("979-10-90636-07-1") is True


def test_isbn13_invalid():
    assert isbn13_valid("9780306406158") is False
    assert isbn13_valid("4006381333931") is False
    assert isbn13_valid("978030640615") is False
    assert isbn13_valid("97803064061570") is False
    assert isbn13_valid("978030640615a") is False


def test_ean8():
    assert ean8_valid("96385074") is True
    assert ean8_valid("9638-5074") is True
    assert ean8_valid("96385075") is False
    assert ean8_valid("9638507") is False
    assert ean8_valid("9638507a") is False


def test_isbn10_to_isbn13():
    assert isbn10_to_isbn13("0-306-40615-2") == "9780306406157"
    assert isbn10_to_isbn13("080442957X") == "9780804429573"
    with pytest.raises(ValueError):
        isbn10_to_isbn13("0306406153")
