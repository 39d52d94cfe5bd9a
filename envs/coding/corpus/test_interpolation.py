import pytest

from interpolation import clamp, inverse_lerp, lerp, piecewise, remap, resample, smoothstep

VISIBLE = ["test_clamp", "test_lerp", "test_piecewise_inside"]


def test_clamp():
    assert clamp(5, 0, 10) == 5
    assert clamp(-1, 0, 10) == 0
    assert clamp(11, 0, 10) == 10
    assert clamp(0, 0, 10) == 0
    assert clamp(10, 0, 10) == 10
    assert clamp(3, 3, 3) == 3


def test_clamp_bad_bounds():
    with pytest.raises(ValueError):
        clamp(1, 5, 4)


def test_lerp():
    assert lerp(0, 10, 0.5) == 5
    assert lerp(10, 20, 0) == 10
    assert lerp(10, 20, 1) == 20
    assert lerp(10, 20, 0.25) == 12.5
    assert lerp(5, -5, 0.5) == 0
    assert lerp(0, 10, 1.5) == 15


def test_inverse_lerp():
    assert inverse_lerp(0, 10, 5) == 0.5
    assert inverse_lerp(10, 20, 12.5) == 0.25
    assert inverse_lerp(20, 10, 15) == 0.5
    assert inverse_lerp(0, 4, 6) == 1.5
    with pytest.raises(ValueError):
        inverse_lerp(3, 3, 3)


def test_remap():
    assert remap(5, 0, 10, 0, 100) == 50
    assert remap(0, -1, 1, 0, 10) == 5
    assert remap(15, 0, 10, 0, 100) == 150
    assert remap(15, 0, 10, 0, 100, clamped=True) == 100
    assert remap(-5, 0, 10, 0, 100, clamped=True) == 0
    assert remap(32, 32, 212, 0, 100) == 0


def test_piecewise_inside():
    table = [(0, 0), (10, 100), (20, 150)]
    assert piecewise(table, 5) == 50
    assert piecewise(table, 10) == 100
    assert piecewise(table, 15) == 125
    assert piecewise(table, 19) == 145
    assert piecewise(table, 20) == 150


def test_piecewise_outside_and_single():
    table = [(0, 1), (10, 2)]
    assert piecewise(table, -5) == 1
    assert piecewise(table, 0) == 1
    assert piecewise(table, 50) == 2
    assert piecewise([(3, 7)], 100) == 7
    assert piecewise([(3, 7)], -100) == 7


def test_piecewise_validation():
    with pytest.raises(ValueError):
        piecewise([], 1)
    with pytest.raises(ValueError):
        piecewise([(0, 0), (0, 1)], 0)
    with pytest.raises(ValueError):
        piecewise([(5, 0), (1, 1)], 2)


def test_resample():
    assert resample([0, 10], 3) == [0, 5, 10]
    assert resample([0, 10, 20], 5) == [0, 5, 10, 15, 20]
    assert resample([1, 3, 2], 2) == [1, 2]
    assert resample([0, 4, 8, 12], 3) == [0, 6, 12]


def test_resample_validation():
    with pytest.raises(ValueError):
        resample([1], 3)
    with pytest.raises(ValueError):
        resample([1, 2], 1)
    assert resample([1, 2], 2) == [1, 2]


def test_smoothstep():
    assert smoothstep(0, 1, -1) == 0
    assert smoothstep(0, 1, 0) == 0
    assert smoothstep(0, 1, 0.5) == 0.5
    assert smoothstep(0, 1, 1) == 1
    assert smoothstep(0, 1, 2) == 1
    assert smoothstep(0, 10, 2.5) == pytest.approx(0.15625)
    assert smoothstep(2, 4, 3) == 0.5
    assert smoothstep(2, 4, 2.5) == pytest.approx(0.15625)
