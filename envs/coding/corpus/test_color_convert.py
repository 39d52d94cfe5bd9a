import pytest

from color_convert import contrast_ratio, hex_to_rgb, hsl_to_rgb, mix, relative_luminance, rgb_to_hex, rgb_to_hsl

VISIBLE = ["test_hex_to_rgb", "test_rgb_to_hex", "test_rgb_to_hsl_primaries"]


def test_hex_to_rgb():
    assert hex_to_rgb("#ff8000") == (255, 128, 0)
    assert hex_to_rgb("00ff7F") == (0, 255, 127)
    assert hex_to_rgb("#fff") == (255, 255, 255)
    assert hex_to_rgb("#1a2") == (17, 170, 34)


def test_hex_to_rgb_invalid():
    for bad in ["#ff80", "#ggg", "#12345g", "", "#1234567"]:
        with pytest.raises(ValueError, match="invalid colour"):
            hex_to_rgb(bad)


def test_rgb_to_hex():
    assert rgb_to_hex(255, 128, 0) == "#ff8000"
    assert rgb_to_hex(0, 0, 0) == "#000000"
    assert rgb_to_hex(1, 2, 255) == "#0102ff"


def test_rgb_to_hex_range():
    for bad in [(256, 0, 0), (0, -1, 0), (0, 0, 300)]:
        with pytest.raises(ValueError):
            rgb_to_hex(*bad)


def test_rgb_to_hsl_primaries():
    assert rgb_to_hsl(255, 0, 0) == (0.0, 1.0, 0.5)
    assert rgb_to_hsl(0, 255, 0) == (120.0, 1.0, 0.5)
    assert rgb_to_hsl(0, 0, 255) == (240.0, 1.0, 0.5)
    assert rgb_to_hsl(255, 0, 255) == (300.0, 1.0, 0.5)


def test_rgb_to_hsl_greys_and_mixed():
    assert rgb_to_hsl(128, 128, 128) == (0.0, 0.0, 0.502)
    assert rgb_to_hsl(255, 255, 255) == (0.0, 0.0, 1.0)
    assert rgb_to_hsl(255, 128, 0) == (30.1, 1.0, 0.5)
    assert rgb_to_hsl(64, 128, 191) == (209.8, 0.498, 0.5)
    assert rgb_to_hsl(200, 150, 100) == (30.0, 0.476, 0.588)
    assert rgb_to_hsl(100, 200, 150) == (150.0, 0.476, 0.588)


def test_hsl_to_rgb():
    assert hsl_to_rgb(0, 1, 0.5) == (255, 0, 0)
    assert hsl_to_rgb(120, 1, 0.5) == (0, 255, 0)
    assert hsl_to_rgb(240, 1, 0.25) == (0, 0, 128)
    assert hsl_to_rgb(60, 1, 0.5) == (255, 255, 0)
    assert hsl_to_rgb(180, 0.5, 0.5) == (64, 191, 191)
    assert hsl_to_rgb(330, 1, 0.5) == (255, 0, 128)
    assert hsl_to_rgb(0, 0, 0.2) == (51, 51, 51)
    assert hsl_to_rgb(390, 1, 0.5) == (255, 128, 0)


def test_hsl_round_trip():
    for rgb in [(12, 200, 99), (250, 10, 10), (33, 66, 99), (90, 90, 200), (200, 90, 200)]:
        assert hsl_to_rgb(*rgb_to_hsl(*rgb)) == rgb


def test_relative_luminance():
    assert relative_luminance(255, 255, 255) == pytest.approx(1.0)
    assert relative_luminance(0, 0, 0) == 0.0
    assert relative_luminance(10, 10, 10) == pytest.approx(10 / 255 / 12.92)
    assert relative_luminance(0, 255, 0) == pytest.approx(0.7152)


def test_contrast_ratio():
    assert contrast_ratio("#000000", "#ffffff") == 21.0
    assert contrast_ratio("#ffffff", "#000000") == 21.0
    assert contrast_ratio("#777777", "#777777") == 1.0
    assert contrast_ratio("#767676", "#ffffff") == 4.54


def test_mix():
    assert mix("#000000", "#ffffff") == "#808080"
    assert mix("#ff0000", "#0000ff", 0.25) == "#bf0040"
    assert mix("#123456", "#abcdef", 0) == "#123456"
    assert mix("#123456", "#abcdef", 1) == "#abcdef"
