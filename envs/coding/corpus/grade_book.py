"""Course grading: weighted scores, letter grades and grade point averages."""

LETTER_CUTOFFS = [(93, "A"), (90, "A-"), (87, "B+"), (83, "B"), (80, "B-"),
                  (77, "C+"), (73, "C"), (70, "C-"), (60, "D")]
GRADE_POINTS = {"A": 4.0, "A-": 3.7, "B+": 3.3, "B": 3.0, "B-": 2.7,
                "C+": 2.3, "C": 2.0, "C-": 1.7, "D": 1.0, "F": 0.0}


def weighted_score(scores, weights):
    """Return the weighted average of percentage scores; weights need not sum to 1."""
    if len(scores) != len(weights) or not scores:
        raise ValueError("scores and weights must be non-empty and of equal length")
    total_weight = sum(weights)
    if total_weight <= 0:
        raise ValueError("weights must sum to a positive number")
    return sum(s * w for s, w in zip(scores, weights)) / total_weight


def letter_grade(score):
    """Return the letter grade for a 0-100 score (cutoffs are inclusive)."""
    if not 0 <= score <= 100:
        raise ValueError("score must be between 0 and 100")
    for cutoff, letter in LETTER_CUTOFFS:
        if score >= cutoff:
            return letter
    return "F"


def gpa(courses):
    """Return the credit-weighted GPA of (letter, credits) pairs, rounded to 2 decimals."""
    credits = sum(credit for _, credit in courses)
    if credits == 0:
        return 0.0
    points = sum(GRADE_POINTS[letter] * credit for letter, credit in courses)
    return round(points / credits, 2)


def drop_lowest(scores, count=1):
    """Return the scores without the ``count`` lowest ones (order preserved)."""
    if count <= 0:
        return list(scores)
    dropped = sorted(range(len(scores)), key=lambda i: (scores[i], i))[:count]
    return [s for i, s in enumerate(scores) if i not in dropped]
