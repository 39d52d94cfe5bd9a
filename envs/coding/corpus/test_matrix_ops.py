from fractions import Fraction

import pytest

from matrix_ops import add, determinant, identity, multiply, power, shape, trace, transpose

VISIBLE = ["test_shape", "test_multiply", "test_determinant_small"]

A = [[1, 2, 3], [4, 5, 6]]


def test_shape():
    assert shape(A) == (2, 3)
    assert shape([]) == (0, 0)
    assert shape([[7]]) == (1, 1)
    with pytest.raises(ValueError):
        shape([[1, 2], [3]])


def test_identity():
    assert identity(3) == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    assert identity(1) == [[1]]
    assert identity(0) == []


def test_transpose():
    assert transpose(A) == [[1, 4], [2, 5], [3, 6]]
    assert transpose([[1]]) == [[1]]
    assert transpose(transpose(A)) == A


def test_add():
    assert add(A, A) == [[2, 4, 6], [8, 10, 12]]
    assert add([[1, -1]], [[2, 3]]) == [[3, 2]]
    with pytest.raises(ValueError):
        add(A, transpose(A))


def test_multiply():
    assert multiply(A, transpose(A)) == [[14, 32], [32, 77]]
    assert multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
    assert multiply([[2, 0], [0, 2]], [[1], [3]]) == [[2], [6]]


def test_multiply_shape_mismatch():
    with pytest.raises(ValueError, match="2x3 by 2x3"):
        multiply(A, A)


def test_multiply_identity():
    m = [[3, 1], [4, 1]]
    assert multiply(identity(2), m) == m
    assert multiply(m, identity(2)) == m


def test_power():
    fib = [[1, 1], [1, 0]]
    assert power(fib, 0) == [[1, 0], [0, 1]]
    assert power(fib, 1) == fib
    assert power(fib, 2) == [[2, 1], [1, 1]]
    assert power(fib, 10) == [[89, 55], [55, 34]]
    assert power([[2]], 5) == [[32]]


def test_power_errors():
    with pytest.raises(ValueError, match="square"):
        power(A, 2)
    with pytest.raises(ValueError):
        power([[1]], -1)


def test_determinant_small():
    assert determinant([[5]]) == 5
    assert determinant([[1, 2], [3, 4]]) == -2
    assert determinant([[2, 0, 0], [0, 3, 0], [0, 0, 4]]) == 24
    assert determinant([[6, 1, 1], [4, -2, 5], [2, 8, 7]]) == -306


def test_determinant_pivoting_and_singular():
    assert determinant([[0, 1], [1, 0]]) == -1
    assert determinant([[0, 2, 1], [1, 1, 1], [2, 0, 3]]) == -4
    assert determinant([[1, 2], [2, 4]]) == 0
    assert determinant([[0, 0], [0, 0]]) == 0
    assert determinant([[1, 2, 3], [4, 5, 6], [7, 8, 10]]) == -3


def test_determinant_fraction_and_type():
    assert determinant([[Fraction(1, 2), 0], [0, 1]]) == Fraction(1, 2)
    assert type(determinant([[2, 1], [1, 1]])) is int
    with pytest.raises(ValueError):
        determinant(A)


def test_trace():
    assert trace([[1, 2], [3, 4]]) == 5
    assert trace(identity(4)) == 4
    with pytest.raises(ValueError):
        trace(A)
