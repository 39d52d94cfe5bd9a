import pytest

from byte_sizes import fits, format_size, parse_size

VISIBLE = ["test_format_decimal", "test_format_binary", "test_parse_units"]


def test_format_small_values():
    assert format_size(0) == "0 B"
    assert format_size(999) == "999 B"
    assert format_size(1023, binary=True) == "1023 B"


def test_format_decimal():
    assert format_size(1000) == "1.0 kB"
    assert format_size(1500) == "1.5 kB"
    assert format_size(1_000_000) == "1.0 MB"
    assert format_size(2_500_000_000) == "2.5 GB"
    assert format_size(999_999) == "1000.0 kB"


def test_format_binary():
    assert format_size(1024, binary=True) == "1.0 KiB"
    assert format_size(1536, binary=True) == "1.5 KiB"
    assert format_size(1048576, binary=True) == "1.0 MiB"
    assert format_size(1000, binary=True) == "1000 B"


def test_format_precision():
    assert format_size(1234567, precision=2) == "1.23 MB"
    assert format_size(1234567, precision=0) == "1 MB"
    assert format_size(1500, binary=True, precision=3) == "1.465 KiB"


def test_format_largest_unit_caps():
    assert format_size(10 ** 15) == "1.0 PB"
    assert format_size(5 * 10 ** 18) == "5000.0 PB"
    assert format_size(1024 ** 5, binary=True) == "1.0 PiB"


def test_format_negative():
    assert format_size(-1500) == "-1.5 kB"
    assert format_size(-5) == "-5 B"


def test_parse_units():
    assert parse_size("512") == 512
    assert parse_size("10 B") == 10
    assert parse_size("1.5 kB") == 1500
    assert parse_size("2GiB") == 2 * 1024 ** 3
    assert parse_size("3 MB") == 3_000_000
    assert parse_size("1 KiB") == 1024


def test_parse_case_and_aliases():
    assert parse_size("10 k") == 10_000
    assert parse_size("10kb") == 10_000
    assert parse_size(" 1 mib ") == 1048576
    assert parse_size("0.5 TB") == 500_000_000_000
    assert parse_size("1 PiB") == 1024 ** 5


def test_parse_errors():
    with pytest.raises(ValueError, match="no number"):
        parse_size("MB")
    with pytest.raises(ValueError, match="no number"):
        parse_size("")
    with pytest.raises(ValueError, match="unknown size unit"):
        parse_size("5 XB")


def test_round_trip_approximately():
    assert parse_size(format_size(1500)) == 1500
    assert parse_size(format_size(3 * 1024 ** 2, binary=True)) == 3 * 1024 ** 2


def test_fits():
    assert fits([100, 200, 300], 600) == 3
    assert fits([100, 200, 300], 599) == 2
    assert fits([100, 200, 300], 300) == 2
    assert fits([100, 200, 300], 99) == 0
    assert fits([], 10) == 0
    assert fits([0, 0], 0) == 2
