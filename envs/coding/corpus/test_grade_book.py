import pytest

from grade_book import drop_lowest, gpa, letter_grade, weighted_score

VISIBLE = ["test_weighted_score", "test_letter_grade_cutoffs", "test_gpa"]


def test_weighted_score():
    assert weighted_score([80, 90], [1, 1]) == 85
    assert weighted_score([100, 50], [0.25, 0.75]) == 62.5
    assert weighted_score([70], [3]) == 70
    assert weighted_score([60, 90], [1, 2]) == 80


def test_weighted_score_errors():
    with pytest.raises(ValueError):
        weighted_score([], [])
    with pytest.raises(ValueError):
        weighted_score([1, 2], [1])
    with pytest.raises(ValueError):
        weighted_score([50], [0])
    with pytest.raises(ValueError):
        weighted_score([50, 60], [1, -1])


def test_letter_grade_cutoffs():
    assert letter_grade(100) == "A"
    assert letter_grade(93) == "A"
    assert letter_grade(92.9) == "A-"
    assert letter_grade(90) == "A-"
    assert letter_grade(89.99) == "B+"
    assert letter_grade(83) == "B"
    assert letter_grade(80) == "B-"


def test_letter_grade_low_end():
    assert letter_grade(77) == "C+"
    assert letter_grade(73) == "C"
    assert letter_grade(70) == "C-"
    assert letter_grade(69) == "D"
    assert letter_grade(60) == "D"
    assert letter_grade(59.5) == "F"
    assert letter_grade(0) == "F"


def test_letter_grade_out_of_range():
    for bad in [-1, 100.5]:
        with pytest.raises(ValueError):
            letter_grade(bad)


def test_gpa():
    assert gpa([("A", 3), ("B", 3)]) == 3.5
    assert gpa([("A", 4), ("C", 2)]) == 3.33
    assert gpa([("F", 3)]) == 0.0


def test_gpa_empty_and_zero_credits():
    assert gpa([]) == 0.0
    assert gpa([("A", 0)]) == 0.0
    assert gpa([("B+", 2), ("A-", 1)]) == 3.43


def test_every_cutoff_and_grade_point():
    expected = [(93, "A", 4.0), (90, "A-", 3.7), (87, "B+", 3.3), (83, "B", 3.0), (80, "B-", 2.7),
                (77, "C+", 2.3), (73, "C", 2.0), (70, "C-", 1.7), (60, "D", 1.0)]
    for cutoff, letter, points in expected:
        assert letter_grade(cutoff) == letter
        assert letter_grade(cutoff - 0.5) != letter
        assert gpa([(letter, 1)]) == points
    assert gpa([("F", 1)]) == 0.0


def test_drop_lowest():
    assert drop_lowest([70, 50, 90, 60]) == [70, 90, 60]
    assert drop_lowest([70, 50, 90, 60], 2) == [70, 90]
    assert drop_lowest([5, 5, 5], 1) == [5, 5]


def test_drop_lowest_edges():
    assert drop_lowest([1, 2], 0) == [1, 2]
    assert drop_lowest([1, 2], -1) == [1, 2]
    assert drop_lowest([1, 2], 2) == []
    assert drop_lowest([1, 2], 5) == []
    assert drop_lowest([3, 1, 2], 2) == [3]


def test_drop_lowest_ties_drop_earliest():
    assert drop_lowest([4, 2, 9, 2], 1) == [4, 9, 2]
