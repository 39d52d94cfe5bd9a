"""Conversion between units of temperature, length and mass.

Length and mass go through a base unit (metre, kilogram) using exact
factors; temperature needs offsets and is handled separately.
"""

LENGTH_IN_METRES = {
    "mm": 0.001,
    "cm": 0.01,
    "m": 1.0,
    "km": 1000.0,
    "in": 0.0254,
    "ft": 0.3048,
    "yd": 0.9144,
    "mi": 1609.344,
}

MASS_IN_KILOGRAMS = {
    "g": 0.001,
    "kg": 1.0,
    "t": 1000.0,
    "oz": 0.028349523125,
    "lb": 0.45359237,
}

ABSOLUTE_ZERO_C = -273.15


def celsius_to_fahrenheit(celsius):
    """Convert degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def fahrenheit_to_celsius(fahrenheit):
    """Convert degrees Fahrenheit to degrees Celsius."""
    return (fahrenheit - 32) * 5 / 9


def convert_temperature(value, source, target):
    """Convert between 'C', 'F' and 'K'; rejects values below absolute zero."""
    if source == "C":
        celsius = value
    elif source == "F":
        celsius = fahrenheit_to_celsius(value)
    elif source == "K":
        celsius = value + ABSOLUTE_ZERO_C
    else:
        raise ValueError(f"unknown temperature unit {source!r}")
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError("temperature below absolute zero")
    if target == "C":
        return celsius
    if target == "F":
        return celsius_to_fahrenheit(celsius)
    if target == "K":
        return celsius - ABSOLUTE_ZERO_C
    raise ValueError(f"unknown temperature unit {target!r}")


def _convert(value, source, target, table, kind):
    if source not in table or target not in table:
        raise ValueError(f"unknown {kind} unit: {source if source not in table else target!r}")
    return value * table[source] / table[target]


def convert_length(value, source, target):
    """Convert a length between units such as 'km', 'mi', 'ft' and 'in'."""
    return _convert(value, source, target, LENGTH_IN_METRES, "length")


def convert_mass(value, source, target):
    """Convert a mass between 'g', 'kg', 't', 'oz' and 'lb'."""
    return _convert(value, source, target, MASS_IN_KILOGRAMS, "mass")


def feet_and_inches(metres):
    """Split a length in metres into whole feet and inches rounded to one decimal."""
    total_inches = metres / LENGTH_IN_METRES["in"]
    feet = int(total_inches // 12)
    inches = round(total_inches - feet * 12, 1)
    if inches >= 12:
        feet, inches = feet + 1, 0.0
    return feet, inches
