import pytest

from morse_code import decode, duration_units, encode, words_per_minute_to_dot_ms

VISIBLE = ["test_encode_word", "test_decode_word", "test_duration_paris"]


def test_encode_word():
    assert encode("SOS") == "... --- ..."
    assert encode("e") == "."
    assert encode("hi") == ".... .."


def test_encode_words_and_spacing():
    assert encode("hello world") == ".... . .-.. .-.. --- / .-- --- .-. .-.. -.."
    assert encode("  a   b ") == ".- / -..."
    assert encode("") == ""


def test_encode_digits_and_punctuation():
    assert encode("2024") == "..--- ----- ..--- ....-"
    assert encode("ok?") == "--- -.- ..--.."
    assert encode("0.9") == "----- .-.-.- ----."


def test_encode_unsupported():
    with pytest.raises(ValueError, match="'!'"):
        encode("hi!")


def test_decode_word():
    assert decode("... --- ...") == "SOS"
    assert decode(".-") == "A"


def test_decode_words():
    assert decode(".... .. / - .... . .-. .") == "HI THERE"
    assert decode("  .-  /  -...  ") == "A B"
    assert decode("") == ""
    assert decode(" / ") == ""


def test_decode_unknown_symbol():
    with pytest.raises(ValueError, match="'......'"):
        decode("......")


def test_round_trip():
    for text in ["THE QUICK BROWN FOX", "CALL 911", "WHAT?"]:
        assert decode(encode(text)) == text


def test_duration_single_marks():
    assert duration_units(".") == 1
    assert duration_units("-") == 3
    assert duration_units(".-") == 5
    assert duration_units("") == 0


def test_duration_paris():
    assert duration_units(encode("PARIS")) == 43
    assert duration_units(encode("PARIS PARIS")) == 43 * 2 + 7
    assert duration_units(encode("e e")) == 9
    assert duration_units(encode("ee")) == 5


def test_words_per_minute():
    assert words_per_minute_to_dot_ms(20) == 60
    assert words_per_minute_to_dot_ms(12) == 100
    assert words_per_minute_to_dot_ms(1) == 1200
    with pytest.raises(ValueError):
        words_per_minute_to_dot_ms(0)
