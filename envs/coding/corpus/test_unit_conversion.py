import pytest

from unit_conversion import (
    celsius_to_fahrenheit,
    convert_length,
    convert_mass,
    convert_temperature,
    fahrenheit_to_celsius,
    feet_and_inches,
)

VISIBLE = ["test_celsius_fahrenheit", "test_convert_length", "test_convert_mass"]


def test_celsius_fahrenheit():
    assert celsius_to_fahrenheit(0) == 32
    assert celsius_to_fahrenheit(100) == 212
    assert celsius_to_fahrenheit(-40) == -40
    assert celsius_to_fahrenheit(37) == pytest.approx(98.6)


def test_fahrenheit_celsius():
    assert fahrenheit_to_celsius(32) == 0
    assert fahrenheit_to_celsius(212) == 100
    assert fahrenheit_to_celsius(-40) == -40
    assert fahrenheit_to_celsius(50) == 10


def test_convert_temperature_kelvin():
    assert convert_temperature(0, "K", "C") == -273.15
    assert convert_temperature(0, "C", "K") == 273.15
    assert convert_temperature(373.15, "K", "F") == pytest.approx(212)
    assert convert_temperature(32, "F", "K") == pytest.approx(273.15)
    assert convert_temperature(25, "C", "C") == 25
    assert convert_temperature(300, "K", "K") == pytest.approx(300)
    assert convert_temperature(50, "F", "F") == pytest.approx(50)


def test_convert_temperature_absolute_zero():
    assert convert_temperature(-273.15, "C", "K") == 0
    with pytest.raises(ValueError, match="absolute zero"):
        convert_temperature(-274, "C", "K")
    with pytest.raises(ValueError, match="absolute zero"):
        convert_temperature(-1, "K", "C")
    with pytest.raises(ValueError, match="absolute zero"):
        convert_temperature(-460, "F", "C")


def test_convert_temperature_unknown_units():
    with pytest.raises(ValueError, match="'X'"):
        convert_temperature(1, "X", "C")
    with pytest.raises(ValueError, match="'R'"):
        convert_temperature(1, "C", "R")


def test_convert_length():
    assert convert_length(1, "km", "m") == 1000
    assert convert_length(1, "mi", "km") == pytest.approx(1.609344)
    assert convert_length(12, "in", "ft") == pytest.approx(1)
    assert convert_length(3, "ft", "yd") == pytest.approx(1)
    assert convert_length(250, "cm", "m") == pytest.approx(2.5)
    assert convert_length(1, "m", "mm") == pytest.approx(1000)


def test_convert_length_unknown_unit():
    with pytest.raises(ValueError, match="length"):
        convert_length(1, "parsec", "m")
    with pytest.raises(ValueError, match="'furlong'"):
        convert_length(1, "m", "furlong")


def test_convert_mass():
    assert convert_mass(1, "lb", "kg") == pytest.approx(0.45359237)
    assert convert_mass(16, "oz", "lb") == pytest.approx(1)
    assert convert_mass(2.5, "t", "kg") == 2500
    assert convert_mass(500, "g", "kg") == 0.5
    with pytest.raises(ValueError, match="mass"):
        convert_mass(1, "stone", "kg")


def test_round_trips():
    for unit in ["mm", "in", "yd", "mi"]:
        assert convert_length(convert_length(7.5, "m", unit), unit, "m") == pytest.approx(7.5)
    for unit in ["F", "K"]:
        assert convert_temperature(convert_temperature(21.5, "C", unit), unit, "C") == pytest.approx(21.5)


def test_feet_and_inches():
    assert feet_and_inches(1.8288) == (6, 0.0)
    assert feet_and_inches(1.75) == (5, 8.9)
    assert feet_and_inches(0.3) == (0, 11.8)
    assert feet_and_inches(0.3047) == (1, 0.0)
    assert feet_and_inches(0) == (0, 0.0)
    assert feet_and_inches(0.9271) == (3, 0.5)
