import pytest

from caesar_cipher import atbash, caesar, crack_caesar, rot13, shift_char, vigenere

VISIBLE = ["test_caesar_basic", "test_rot13", "test_vigenere_classic"]


def test_shift_char():
    assert shift_char("a", 1) == "b"
    assert shift_char("z", 1) == "a"
    assert shift_char("Z", 2) == "B"
    assert shift_char("A", -1) == "Z"
    assert shift_char("m", 26) == "m"
    assert shift_char("5", 3) == "5"
    assert shift_char("é", 3) == "é"


def test_shift_char_boundaries():
    assert shift_char("`", 1) == "`"
    assert shift_char("{", 1) == "{"
    assert shift_char("@", 1) == "@"
    assert shift_char("[", 1) == "["
    assert shift_char("a", 0) == "a"
    assert shift_char("A", 25) == "Z"


def test_caesar_basic():
    assert caesar("abc", 3) == "def"
    assert caesar("xyz", 3) == "abc"
    assert caesar("Hello, World!", 5) == "Mjqqt, Btwqi!"


def test_caesar_decrypt_and_large_shifts():
    assert caesar("Mjqqt, Btwqi!", -5) == "Hello, World!"
    assert caesar("abc", 29) == "def"
    assert caesar("abc", -27) == "zab"


def test_rot13():
    assert rot13("Hello") == "Uryyb"
    assert rot13(rot13("Round Trip 42")) == "Round Trip 42"


def test_vigenere_classic():
    assert vigenere("ATTACKATDAWN", "LEMON") == "LXFOPVEFRNHR"
    assert vigenere("LXFOPVEFRNHR", "LEMON", decrypt=True) == "ATTACKATDAWN"


def test_vigenere_skips_non_letters():
    assert vigenere("attack at dawn!", "lemon") == "lxfopv ef rnhr!"
    assert vigenere("a-b", "bc") == "b-d"
    assert vigenere("ñab", "b") == "ñbc"


def test_vigenere_key_handling():
    assert vigenere("abc", "B-B") == "bcd"
    assert vigenere("Hello", "a") == "Hello"
    with pytest.raises(ValueError):
        vigenere("abc", "123")


def test_vigenere_round_trip():
    text = "The quick brown fox, 2024 edition."
    assert vigenere(vigenere(text, "Secret"), "Secret", decrypt=True) == text


def test_atbash():
    assert atbash("abc") == "zyx"
    assert atbash("XYZ") == "CBA"
    assert atbash("Wizard!") == "Draziw!"
    assert atbash(atbash("Mixed Case 1")) == "Mixed Case 1"
    assert atbash("m") == "n"
    assert atbash("AZaz") == "ZAza"


def test_crack_caesar():
    assert crack_caesar(caesar("meet me at noon", 7), "noon") == 7
    assert crack_caesar("hello", "hello") == 0
    assert crack_caesar(caesar("zebra", 25), "zebra") == 25
    assert crack_caesar("abc", "xyz!") is None
