import pytest

from base_conversion import bit_count, decode_base62, encode_base62, from_base, to_base, to_binary

VISIBLE = ["test_to_base", "test_from_base", "test_base62_round_trip"]


def test_to_base():
    assert to_base(255, 16) == "ff"
    assert to_base(255, 2) == "11111111"
    assert to_base(0, 7) == "0"
    assert to_base(35, 36) == "z"
    assert to_base(36, 36) == "10"
    assert to_base(8, 8) == "10"


def test_to_base_negative():
    assert to_base(-10, 2) == "-1010"
    assert to_base(-255, 16) == "-ff"


def test_invalid_bases():
    for base in [1, 37, 0]:
        with pytest.raises(ValueError):
            to_base(10, base)
        with pytest.raises(ValueError):
            from_base("10", base)
    assert to_base(3, 2) == "11"
    assert from_base("z", 36) == 35


def test_from_base():
    assert from_base("ff", 16) == 255
    assert from_base("FF", 16) == 255
    assert from_base("1010", 2) == 10
    assert from_base(" -7f ", 16) == -127
    assert from_base("0", 10) == 0


def test_from_base_invalid_digits():
    with pytest.raises(ValueError, match="'2'"):
        from_base("102", 2)
    with pytest.raises(ValueError):
        from_base("g", 16)
    with pytest.raises(ValueError):
        from_base("1.5", 10)
    with pytest.raises(ValueError, match="no digits"):
        from_base("-", 10)
    with pytest.raises(ValueError, match="no digits"):
        from_base("", 10)
    assert from_base("f", 16) == 15


def test_round_trip_many_bases():
    for base in (2, 3, 8, 10, 16, 36):
        for number in (-1000, -1, 0, 1, 99, 123456789):
            assert from_base(to_base(number, base), base) == number


def test_encode_base62():
    assert encode_base62(0) == "0"
    assert encode_base62(61) == "z"
    assert encode_base62(62) == "10"
    assert encode_base62(3843) == "zz"
    assert encode_base62(10) == "A"
    with pytest.raises(ValueError):
        encode_base62(-1)


def test_decode_base62():
    assert decode_base62("z") == 61
    assert decode_base62("10") == 62
    assert decode_base62("A") == 10
    assert decode_base62("a") == 36
    assert decode_base62("0") == 0
    with pytest.raises(ValueError):
        decode_base62("")
    with pytest.raises(ValueError, match="'-'"):
        decode_base62("ab-c")


def test_base62_round_trip():
    for number in [1, 61, 62, 1000, 916132831, 2 ** 64]:
        assert decode_base62(encode_base62(number)) == number


def test_bit_count():
    assert bit_count(0) == 0
    assert bit_count(1) == 1
    assert bit_count(255) == 8
    assert bit_count(0b1010_0001) == 3
    assert bit_count(2 ** 40) == 1
    with pytest.raises(ValueError):
        bit_count(-1)


def test_to_binary():
    assert to_binary(5, 8) == "00000101"
    assert to_binary(0, 3) == "000"
    assert to_binary(255, 8) == "11111111"
    with pytest.raises(ValueError):
        to_binary(256, 8)
    with pytest.raises(ValueError):
        to_binary(-1, 8)
