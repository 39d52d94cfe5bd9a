"""Dense matrix helpers on lists of lists.

Matrices are row-major lists of equal-length rows. Results are new lists;
inputs are never modified.
"""

from fractions import Fraction


def shape(matrix):
    """Return (rows, columns); raises ValueError for ragged input."""
    rows = len(matrix)
    columns = len(matrix[0]) if rows else 0
    if any(len(row) != columns for row in matrix):
        raise ValueError("ragged matrix")
    return rows, columns


def identity(n):
    """Return the n x n identity matrix."""
    return [[1 if i == j else 0 for j in range(n)] for i in range(n)]


def transpose(matrix):
    """Return the transpose."""
    rows, columns = shape(matrix)
    return [[matrix[i][j] for i in range(rows)] for j in range(columns)]


def add(a, b):
    """Return the element-wise sum of two matrices of the same shape."""
    if shape(a) != shape(b):
        raise ValueError("shapes differ")
    return [[x + y for x, y in zip(row_a, row_b)] for row_a, row_b in zip(a, b)]


def multiply(a, b):
    """Return the matrix product a @ b."""
    rows_a, cols_a = shape(a)
    rows_b, cols_b = shape(b)
    if cols_a != rows_b:
        raise ValueError(f"cannot multiply {rows_a}x{cols_a} by {rows_b}x{cols_b}")
    return [
        [sum(a[i][k] * b[k][j] for k in range(cols_a)) for j in range(cols_b)]
        for i in range(rows_a)
    ]


def power(matrix, exponent):
    """Return matrix raised to a non-negative integer power by repeated squaring."""
    rows, columns = shape(matrix)
    if rows != columns:
        raise ValueError("power needs a square matrix")
    if exponent < 0:
        raise ValueError("exponent must be non-negative")
    result = identity(rows)
    base = matrix
    while exponent:
        if exponent % 2 == 1:
            result = multiply(result, base)
        base = multiply(base, base)
        exponent //= 2
    return result


def determinant(matrix):
    """Return the determinant, computed exactly with Gaussian elimination over fractions."""
    rows, columns = shape(matrix)
    if rows != columns:
        raise ValueError("determinant needs a square matrix")
    work = [[Fraction(value) for value in row] for row in matrix]
    det = Fraction(1)
    for col in range(rows):
        pivot = next((r for r in range(col, rows) if work[r][col] != 0), None)
        if pivot is None:
            return 0
        if pivot != col:
            work[col], work[pivot] = work[pivot], work[col]
            det = -det
        det *= work[col][col]
        for r in range(col + 1, rows):
            factor = work[r][col] / work[col][col]
            for c in range(col, rows):
                work[r][c] -= factor * work[col][c]
    return int(det) if det.denominator == 1 else det


def trace(matrix):
    """Return the sum of the main diagonal of a square matrix."""
    rows, columns = shape(matrix)
    if rows != columns:
        raise ValueError("trace needs a square matrix")
    return sum(matrix[i][i] for i in range(rows))
